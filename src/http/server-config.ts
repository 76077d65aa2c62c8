// Owns the server's configuration: its fields, defaults and validation (the CLI fills it from flags and env).
import { isAbsolute } from 'node:path';
import type { WorkKind } from './route-rules.js';
import { checkAdmissionLimits, type AdmissionLimits } from './admission-budget.js';
import { DEFAULT_RATE_LIMITS, resolveRateLimits, type RateLimits } from './rate-limit.js';
import { configError } from '../core/config-error.js';
import {
  ADMISSION_TENANT_SHARE_DEFAULT,
  HTTP_BODY_BYTES_MAX,
  HTTP_BODY_BYTES_MIN,
  INGEST_BODY_BYTES_DEFAULT,
  INGEST_CONCURRENCY_DEFAULT,
  INGEST_QUEUE_MAX_DEFAULT,
  QUERY_BODY_BYTES_DEFAULT,
  QUERY_CONCURRENCY_DEFAULT,
  QUERY_QUEUE_MAX_DEFAULT,
  VIEWS_BODY_BYTES_MAX,
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
  /** Admission limits per kind of work: queue sizes and in-flight budgets (see Admission). */
  readonly admission: Readonly<Record<WorkKind, AdmissionLimits>>;
  /** When true, admins may write points of any tenant through /ingest/multi; otherwise only their own. */
  readonly multiTenantIngest: boolean;
  /** When true, /metrics also carries the process metrics (CPU, memory, event loop lag). */
  readonly processMetrics: boolean;
  /** Directory of the built web console (index.html and assets/), served at / and /assets/; default: dist/console under the package root. */
  readonly consoleDir: string | undefined;
  /** Requests one tenant may make to the monitoring API per rate window, per bucket (`--rate-limits`). */
  readonly rateLimits: RateLimits;
}

/** Limits of one kind that have a default of their own; the tenant budgets default to a share of these. */
type KindDefaults = Omit<AdmissionLimits, 'tenantRequestsMax' | 'tenantBodyBytesMax'>;

const INGEST_DEFAULTS: KindDefaults = { concurrency: INGEST_CONCURRENCY_DEFAULT, queueMax: INGEST_QUEUE_MAX_DEFAULT, bodyBytesMax: INGEST_BODY_BYTES_DEFAULT };
const QUERY_DEFAULTS: KindDefaults = { concurrency: QUERY_CONCURRENCY_DEFAULT, queueMax: QUERY_QUEUE_MAX_DEFAULT, bodyBytesMax: QUERY_BODY_BYTES_DEFAULT };

/**
 * A kind's limits from its input over its defaults. Tenant budgets not given are
 * ADMISSION_TENANT_SHARE_DEFAULT of the kind's (the byte budget at least `largestBodyBytes`, so a
 * largest body fits), so raising a kind's budget raises its tenants' too.
 */
function kindLimits(defaults: KindDefaults, input: Partial<AdmissionLimits> | undefined, largestBodyBytes: number): AdmissionLimits {
  // A field given as undefined (an unset CLI flag) keeps its default rather than erasing it.
  const given = Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== undefined)) as Partial<AdmissionLimits>;
  const base = { ...defaults, ...given };
  const requests = base.concurrency + base.queueMax;
  const shareOfBytes = Math.max(Math.ceil(base.bodyBytesMax * ADMISSION_TENANT_SHARE_DEFAULT), largestBodyBytes);
  return {
    ...base,
    tenantRequestsMax: given.tenantRequestsMax ?? Math.max(1, Math.ceil(requests * ADMISSION_TENANT_SHARE_DEFAULT)),
    tenantBodyBytesMax: given.tenantBodyBytesMax ?? Math.min(base.bodyBytesMax, shareOfBytes),
  };
}

/** Defaults of every field. */
export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  publicUrl: undefined,
  region: 'LOCAL',
  vendorPrefix: 'RAX',
  bodyLimitBytes: HTTP_BODY_BYTES_MAX,
  admission: {
    ingest: kindLimits(INGEST_DEFAULTS, undefined, HTTP_BODY_BYTES_MAX),
    query: kindLimits(QUERY_DEFAULTS, undefined, VIEWS_BODY_BYTES_MAX),
  },
  multiTenantIngest: false,
  processMetrics: false,
  consoleDir: undefined,
  rateLimits: DEFAULT_RATE_LIMITS,
};

/** Input of resolveServerConfig: any subset of the fields, admission limits per kind partial too. */
export type ServerConfigInput = Partial<Omit<ServerConfig, 'admission' | 'rateLimits'>> & {
  readonly admission?: Partial<Record<WorkKind, Partial<AdmissionLimits>>>;
  /** Rate limits over the defaults, per bucket. */
  readonly rateLimits?: Partial<RateLimits>;
};

const VENDOR_PATTERN = /^[A-Z][A-Z0-9]{0,15}$/;
const REGION_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Fills defaults and validates; throws CONFIG_INVALID naming the bad option and what it accepts. */
export function resolveServerConfig(input: ServerConfigInput = {}): ServerConfig {
  const bodyLimitBytes = input.bodyLimitBytes ?? DEFAULT_SERVER_CONFIG.bodyLimitBytes;
  const admission = {
    ingest: kindLimits(INGEST_DEFAULTS, input.admission?.ingest, bodyLimitBytes),
    query: kindLimits(QUERY_DEFAULTS, input.admission?.query, VIEWS_BODY_BYTES_MAX),
  };
  const config: ServerConfig = { ...DEFAULT_SERVER_CONFIG, ...input, admission, rateLimits: resolveRateLimits(input.rateLimits) };
  if (!VENDOR_PATTERN.test(config.vendorPrefix)) throw configError('vendorPrefix', '1 to 16 upper-case letters or digits, starting with a letter', config.vendorPrefix);
  if (!REGION_PATTERN.test(config.region)) throw configError('region', '1 to 32 letters, digits, _ or -', config.region);
  if (!Number.isSafeInteger(config.bodyLimitBytes) || config.bodyLimitBytes < HTTP_BODY_BYTES_MIN || config.bodyLimitBytes > HTTP_BODY_BYTES_MAX) {
    throw configError('bodyLimitBytes', `an integer from ${HTTP_BODY_BYTES_MIN} to ${HTTP_BODY_BYTES_MAX}`, config.bodyLimitBytes);
  }
  // A byte budget must hold the largest body its kind may send: the ingest body limit, a multi-metric query.
  checkAdmissionLimits('ingest', config.admission.ingest, config.bodyLimitBytes);
  checkAdmissionLimits('query', config.admission.query, VIEWS_BODY_BYTES_MAX);
  if (config.publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(config.publicUrl)) {
    throw configError('publicUrl', 'an absolute http(s) URL', config.publicUrl);
  }
  if (config.consoleDir !== undefined && (typeof config.consoleDir !== 'string' || !isAbsolute(config.consoleDir))) {
    throw configError('consoleDir', 'an absolute directory path', config.consoleDir);
  }
  return config;
}
