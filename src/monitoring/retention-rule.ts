// Owns the one rule for a configured retention (notification history, audits): an integer number of ms inside its kind's range, the default when none is given.
import { configError } from '../core/config-error.js';
import { DAY_MS, HOUR_MS } from '../core/time.js';

/** The accepted retentions of one kind of record, and the option that sets them. */
export interface RetentionRange {
  /** The option named in the error (`historyRetentionMs`, `auditRetentionMs`). */
  readonly option: string;
  readonly defaultMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** A duration in the largest whole unit that states it exactly (`366 days`, `1 hour`, `1500 ms`). */
function spoken(ms: number): string {
  const [size, unit] = ms % DAY_MS === 0 ? [DAY_MS, 'day'] : ms % HOUR_MS === 0 ? [HOUR_MS, 'hour'] : [1, 'ms'];
  const count = ms / size;
  return unit === 'ms' ? `${count} ms` : `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The retention in force: `retentionMs`, or the range's default when undefined; CONFIG_INVALID naming the option when it is not an integer inside the range. */
export function resolveRetention(retentionMs: number | undefined, range: RetentionRange): number {
  const value = retentionMs ?? range.defaultMs;
  if (!Number.isSafeInteger(value) || value < range.minMs || value > range.maxMs) {
    throw configError(range.option, `an integer number of ms from ${range.minMs} (${spoken(range.minMs)}) to ${range.maxMs} (${spoken(range.maxMs)})`, value);
  }
  return value;
}
