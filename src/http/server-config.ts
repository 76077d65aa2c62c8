// Owns the server's configuration: its fields, defaults and validation (the CLI fills it from flags and env).
import type { WorkKind } from './route-rules.js';
import type { QueueLimits } from './admission.js';
import { configError } from '../core/config-error.js';
import {
  HTTP_BODY_BYTES_MAX,
  HTTP_BODY_BYTES_MIN,
  INGEST_CONCURRENCY_DEFAULT,
  INGEST_QUEUE_MAX_DEFAULT,
  QUERY_CONCURRENCY_DEFAULT,
  QUERY_QUEUE_MAX_DEFAULT,
} from './http-limits.js';

/** Everything createServer needs to know besides its collaborators. */
export interface ServerConfig {
  /** Base URL clients reach the server at, used in the catalog; default: the listening address. */
  readonly publicUrl: string | undefined;
  /** Region of the regional catalog entries and the users' default region. */
  readonly region: string;
  /** Vendor prefix of the identity extension keys (`RAX-KSKEY:…`, `RAX-AUTH:…`). */
  readonly vendorPrefix: string;
  /** Largest ingest body in bytes. */
  readonly bodyLimitBytes: number;
  /** Admission queue sizes per kind of work. */
  readonly admission: Readonly<Record<WorkKind, QueueLimits>>;
  /** When true, admins may write points of any tenant through /ingest/multi; otherwise only their own. */
  readonly multiTenantIngest: boolean;
  /** When true, /metrics also carries the process metrics (CPU, memory, event loop lag). */
  readonly processMetrics: boolean;
}

/** Defaults of every field. */
export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  publicUrl: undefined,
  region: 'LOCAL',
  vendorPrefix: 'RAX',
  bodyLimitBytes: HTTP_BODY_BYTES_MAX,
  admission: {
    ingest: { concurrency: INGEST_CONCURRENCY_DEFAULT, queueMax: INGEST_QUEUE_MAX_DEFAULT },
    query: { concurrency: QUERY_CONCURRENCY_DEFAULT, queueMax: QUERY_QUEUE_MAX_DEFAULT },
  },
  multiTenantIngest: false,
  processMetrics: false,
};

/** Input of resolveServerConfig: any subset of the fields, queue sizes per kind partial too. */
export type ServerConfigInput = Partial<Omit<ServerConfig, 'admission'>> & {
  readonly admission?: Partial<Record<WorkKind, Partial<QueueLimits>>>;
};

const VENDOR_PATTERN = /^[A-Z][A-Z0-9]{0,15}$/;
const REGION_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Fills defaults and validates; throws CONFIG_INVALID naming the bad option and what it accepts. */
export function resolveServerConfig(input: ServerConfigInput = {}): ServerConfig {
  const admission = {
    ingest: { ...DEFAULT_SERVER_CONFIG.admission.ingest, ...input.admission?.ingest },
    query: { ...DEFAULT_SERVER_CONFIG.admission.query, ...input.admission?.query },
  };
  const config: ServerConfig = { ...DEFAULT_SERVER_CONFIG, ...input, admission };
  if (!VENDOR_PATTERN.test(config.vendorPrefix)) throw configError('vendorPrefix', '1 to 16 upper-case letters or digits, starting with a letter', config.vendorPrefix);
  if (!REGION_PATTERN.test(config.region)) throw configError('region', '1 to 32 letters, digits, _ or -', config.region);
  if (!Number.isSafeInteger(config.bodyLimitBytes) || config.bodyLimitBytes < HTTP_BODY_BYTES_MIN || config.bodyLimitBytes > HTTP_BODY_BYTES_MAX) {
    throw configError('bodyLimitBytes', `an integer from ${HTTP_BODY_BYTES_MIN} to ${HTTP_BODY_BYTES_MAX}`, config.bodyLimitBytes);
  }
  if (config.publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(config.publicUrl)) {
    throw configError('publicUrl', 'an absolute http(s) URL', config.publicUrl);
  }
  return config;
}
