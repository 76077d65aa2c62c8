// Owns parsing /proc/loadavg: the 1, 5 and 15 minute load averages.
import { fieldsOf, linesOf, parseDecimal, type ParseResult } from './proc-fields.js';

/** The run-queue load averaged over the last 1, 5 and 15 minutes. */
export interface LoadAverage {
  readonly load1m: number;
  readonly load5m: number;
  readonly load15m: number;
}

/** Parses /proc/loadavg (`0.42 0.33 0.30 1/123 4567`); only the first three fields are read. */
export function parseLoadavg(text: string): ParseResult<LoadAverage> {
  const fields = fieldsOf(linesOf(text)[0] ?? '');
  const [load1m, load5m, load15m] = fields.slice(0, 3).map(parseDecimal);
  if (load1m === undefined || load5m === undefined || load15m === undefined) {
    return { ok: false, error: 'loadavg does not start with three load averages' };
  }
  return { ok: true, value: { load1m, load5m, load15m } };
}
