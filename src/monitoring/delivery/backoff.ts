// Owns the retry delay of a failed delivery: exponential from a base, capped, with jitter; pure.

/** Full jitter draws the delay from [0, cap); equal jitter from [cap/2, cap), so a retry never comes at once. */
export type JitterMode = 'full' | 'equal';

/** Highest exponent used: 2^52 times any base is already past every cap, and larger ones only risk Infinity. */
const EXPONENT_MAX = 52;

/**
 * The cap of the delay after `failures` failed attempts (1 or more): `baseMs * 2^(failures-1)`,
 * at most `maxMs`. Non-decreasing in `failures`.
 */
export function backoffCapMs(failures: number, baseMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), EXPONENT_MAX);
  return Math.min(maxMs, baseMs * 2 ** exponent);
}

/**
 * The delay before the next attempt after `failures` failed attempts: an integer in [0, cap] for
 * full jitter, [floor(cap/2), cap] for equal jitter, with `random` in [0, 1) choosing where.
 */
export function backoffDelayMs(failures: number, baseMs: number, maxMs: number, random: number, mode: JitterMode = 'equal'): number {
  const cap = backoffCapMs(failures, baseMs, maxMs);
  const unit = Math.min(Math.max(random, 0), 1);
  if (mode === 'full') return Math.floor(cap * unit);
  const half = Math.floor(cap / 2);
  return half + Math.floor((cap - half) * unit);
}
