// Owns time arithmetic: integer milliseconds since the epoch and half-open ranges [startMs, endMs).

/** One second in milliseconds. */
export const SECOND_MS = 1_000;
/** One minute in milliseconds. */
export const MINUTE_MS = 60 * SECOND_MS;
/** One hour in milliseconds. */
export const HOUR_MS = 60 * MINUTE_MS;
/** One day in milliseconds. */
export const DAY_MS = 24 * HOUR_MS;

/** Largest multiple of `widthMs` that is <= `timeMs` (works for negative times too). */
export function alignDown(timeMs: number, widthMs: number): number {
  return Math.floor(timeMs / widthMs) * widthMs;
}

/** Smallest multiple of `widthMs` that is >= `timeMs`. */
export function alignUp(timeMs: number, widthMs: number): number {
  return Math.ceil(timeMs / widthMs) * widthMs;
}


/** Largest |ms| a Date can hold (±100,000,000 days around the epoch). */
const DATE_MS_MAX = 8.64e15;

/** ISO 8601 UTC text of a timestamp for messages, or `<n> ms` for one no Date can hold. */
export function isoOrMs(timeMs: number): string {
  return Math.abs(timeMs) <= DATE_MS_MAX ? isoUtc(timeMs) : `${timeMs} ms`;
}

/** ISO 8601 UTC text of a millisecond timestamp, for messages and file names. */
export function isoUtc(timeMs: number): string {
  return new Date(timeMs).toISOString();
}
