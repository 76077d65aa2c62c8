// Owns parsing /proc/uptime: how long the host has been up, for rates measured since boot.
import { SECOND_MS } from '../../core/time.js';
import { fieldsOf, linesOf, parseDecimal, type ParseResult } from './proc-fields.js';

/** Parses /proc/uptime (`12345.67 2345.20`) into the host's uptime in integer milliseconds. */
export function parseUptime(text: string): ParseResult<number> {
  const seconds = parseDecimal(fieldsOf(linesOf(text)[0] ?? '')[0]);
  if (seconds === undefined) return { ok: false, error: 'uptime does not start with a number of seconds' };
  return { ok: true, value: Math.round(seconds * SECOND_MS) };
}
