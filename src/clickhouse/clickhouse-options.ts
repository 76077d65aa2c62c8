// Owns resolving openStore options for the ClickHouse backend into a complete, validated configuration.
import type { Clock } from '../core/clock.js';
import { configError } from '../core/config-error.js';
import { CLICKHOUSE_REQUEST_TIMEOUT_MS, CLICKHOUSE_SHARDS_MAX } from '../core/limits.js';
import type { RetentionTable } from '../model/resolution.js';
import type { ClickHouseBackendOptions, StoreLogger } from '../store-types.js';

/** The database Strata owns on every shard unless told otherwise. */
export const DEFAULT_CLICKHOUSE_DATABASE = 'strata';
/** A statement may be given at most this long (an hour): longer is a typo, not a timeout. */
const REQUEST_TIMEOUT_MS_MAX = 3_600_000;
/** Database names: a plain identifier, so it never needs quoting rules of its own. */
const DATABASE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Cluster names as ClickHouse's remote_servers accepts them (XML element names). */
const CLUSTER_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** openStore options of a ClickHouse store with every default filled in. */
export interface ClickHouseConfig extends EngineOptions {
  /** Shard URLs in the cluster's shard order, normalised (no trailing slash). */
  readonly urls: readonly string[];
  readonly cluster: string;
  readonly database: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly requestTimeoutMs: number;
}

/** The options every backend reads, resolved by the composition root (src/store-options.ts). */
export interface EngineOptions {
  readonly clock: Clock;
  readonly retention: RetentionTable;
  readonly background: boolean;
  readonly logger: StoreLogger;
}

function invalid(option: string, accepted: string, value: unknown): never {
  throw configError(option, accepted, value, 'STORE_OPTIONS_INVALID');
}

function shardUrl(value: unknown, index: number): string {
  const accepted = 'an http:// or https:// URL with no path, query or credentials';
  if (typeof value !== 'string') invalid(`backend.urls[${index}]`, accepted, value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid(`backend.urls[${index}]`, accepted, value);
  }
  const plain = (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  if (!plain) invalid(`backend.urls[${index}]`, accepted, value);
  return url.origin;
}

/** Validates the ClickHouse backend options (the engine's are resolved already); throws STORE_OPTIONS_INVALID. */
export function resolveClickHouseOptions(backend: ClickHouseBackendOptions, engine: EngineOptions): ClickHouseConfig {
  const urls = backend.urls as unknown;
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > CLICKHOUSE_SHARDS_MAX) {
    invalid('backend.urls', `a list of 1 to ${CLICKHOUSE_SHARDS_MAX} shard URLs`, urls);
  }
  const resolved = urls.map(shardUrl);
  if (new Set(resolved).size !== resolved.length) invalid('backend.urls', 'distinct shard URLs', urls);
  if (typeof backend.cluster !== 'string' || !CLUSTER_PATTERN.test(backend.cluster)) {
    invalid('backend.cluster', 'a cluster name of letters, digits, _, . and - (as in remote_servers)', backend.cluster);
  }
  const database = backend.database ?? DEFAULT_CLICKHOUSE_DATABASE;
  if (typeof database !== 'string' || !DATABASE_PATTERN.test(database)) invalid('backend.database', 'an identifier of letters, digits and _ (at most 64)', database);
  for (const key of ['username', 'password'] as const) {
    const v = backend[key];
    if (v !== undefined && typeof v !== 'string') invalid(`backend.${key}`, 'a string', v);
  }
  const requestTimeoutMs = backend.requestTimeoutMs ?? CLICKHOUSE_REQUEST_TIMEOUT_MS;
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 1 || requestTimeoutMs > REQUEST_TIMEOUT_MS_MAX) {
    invalid('backend.requestTimeoutMs', `an integer from 1 to ${REQUEST_TIMEOUT_MS_MAX}`, requestTimeoutMs);
  }
  return {
    urls: resolved,
    cluster: backend.cluster,
    database,
    username: backend.username,
    password: backend.password,
    requestTimeoutMs,
    ...engine,
  };
}
