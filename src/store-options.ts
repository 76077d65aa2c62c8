// Owns resolving openStore options into a complete, validated configuration.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { systemClock, type Clock } from './core/clock.js';
import { configError } from './core/config-error.js';
import { DEFAULT_GRACE_MS, GRACE_MS_MAX, ROLLUP_WORKERS_MAX } from './core/limits.js';
import type { RetentionTable } from './model/resolution.js';
import { resolveRetention } from './retention/policy.js';
import type { Durability } from './storage/open-database.js';
import type { StoreLogger, StoreOptions } from './store-types.js';

/** The openStore options every backend reads, with their defaults filled in. */
export interface CommonStoreConfig {
  readonly clock: Clock;
  readonly retention: RetentionTable;
  readonly background: boolean;
  readonly logger: StoreLogger;
}

/** openStore options of the SQLite backend with every default filled in. */
export interface StoreConfig extends CommonStoreConfig {
  readonly dir: string;
  readonly graceMs: number;
  readonly workers: number;
  readonly durability: Durability;
}

const silentLogger: StoreLogger = { info: () => {}, warn: () => {}, error: () => {} };

function invalid(option: string, accepted: string, value: unknown): never {
  throw configError(option, accepted, value, 'STORE_OPTIONS_INVALID');
}

/** The options every backend reads (clock, retention, background, logger), validated; throws STORE_OPTIONS_INVALID. */
export function resolveCommonOptions(options: StoreOptions): CommonStoreConfig {
  return {
    clock: options.clock ?? systemClock,
    retention: resolveRetention(options.retention),
    background: options.background ?? true,
    logger: options.logger ?? silentLogger,
  };
}

/** Validates the SQLite backend's options and fills in defaults; throws STORE_OPTIONS_INVALID on a bad option. */
export function resolveStoreOptions(options: StoreOptions): StoreConfig {
  if (typeof options?.dir !== 'string' || options.dir.length === 0) invalid('dir', 'a non-empty path', options?.dir);
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0 || graceMs > GRACE_MS_MAX) invalid('graceMs', `an integer from 0 to ${GRACE_MS_MAX}`, graceMs);
  // One worker on a 2-core machine leaves a core for ingestion and queries.
  const workers = options.workers ?? Math.max(1, availableParallelism() - 1);
  if (!Number.isSafeInteger(workers) || workers < 0 || workers > ROLLUP_WORKERS_MAX) invalid('workers', `an integer from 0 to ${ROLLUP_WORKERS_MAX}`, workers);
  const durability = options.durability ?? 'normal';
  if (durability !== 'normal' && durability !== 'full') invalid('durability', "'normal' or 'full'", durability);
  return { ...resolveCommonOptions(options), dir: resolve(options.dir), graceMs, workers, durability };
}
