// Owns the retention policy as data: resolving a partial retention table and the expiry cutoff per resolution.
import { StrataError } from '../core/errors.js';
import { INGEST_FUTURE_SKEW_MS } from '../core/limits.js';
import { DEFAULT_RETENTION_MS, RESOLUTIONS, isResolution, type Resolution, type RetentionTable } from '../model/resolution.js';

/**
 * The full retention table: `partial` over the defaults (spec section 8). Every value must be a
 * positive safe integer of ms, and no resolution may keep data shorter than a finer one (else a
 * coarse bucket would vanish while the raw points it summarises are still served). Unknown keys
 * are refused rather than ignored, so a misspelt resolution cannot silently keep the default.
 */
export function resolveRetention(partial?: Partial<RetentionTable>): RetentionTable {
  if (partial === undefined) return { ...DEFAULT_RETENTION_MS };
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) {
    throw new StrataError('STORE_OPTIONS_INVALID', 'retention must be an object keyed by resolution', { option: 'retention' });
  }
  for (const key of Object.keys(partial)) {
    if (!isResolution(key)) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `retention has an unknown resolution ${JSON.stringify(key)}; allowed: ${RESOLUTIONS.join(', ')}`,
        { option: 'retention', resolution: key },
      );
    }
  }
  const table: Record<Resolution, number> = { ...DEFAULT_RETENTION_MS };
  for (const resolution of RESOLUTIONS) {
    const value: unknown = partial[resolution];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `retention.${resolution} must be a positive integer number of milliseconds, got ${String(value)}`,
        { option: 'retention', resolution, value },
      );
    }
    table[resolution] = value;
  }
  for (let i = 1; i < RESOLUTIONS.length; i++) {
    const finer = RESOLUTIONS[i - 1] as Resolution;
    const coarser = RESOLUTIONS[i] as Resolution;
    if (table[coarser] < table[finer]) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `retention.${coarser} (${table[coarser]} ms) must be at least retention.${finer} (${table[finer]} ms)`,
        { option: 'retention', resolution: coarser },
      );
    }
  }
  return table;
}

/** Start of what `resolution` still serves at `nowMs`: data before it has expired. */
export function expiryCutoffMs(nowMs: number, retention: RetentionTable, resolution: Resolution): number {
  return nowMs - retention[resolution];
}

/**
 * The timestamps a write accepts at `nowMs`, both ends inclusive: the FULL retention back,
 * INGEST_FUTURE_SKEW_MS ahead. Every backend's one owner of that rule (a backend may only narrow it).
 */
export function ingestBounds(nowMs: number, retention: RetentionTable): { oldestMs: number; newestMs: number } {
  return { oldestMs: expiryCutoffMs(nowMs, retention, 'FULL'), newestMs: nowMs + INGEST_FUTURE_SKEW_MS };
}
