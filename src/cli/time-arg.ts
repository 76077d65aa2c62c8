// Owns parsing time and number arguments of the CLI: integer milliseconds or ISO 8601 text.
import { InvalidArgumentError } from 'commander';

/** Parses integer milliseconds since the epoch, or an ISO 8601 date-time, into milliseconds. */
export function parseTimeArg(text: string): number {
  if (/^-?\d+$/.test(text)) {
    const ms = Number(text);
    if (Number.isSafeInteger(ms)) return ms;
  }
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw new InvalidArgumentError('expected milliseconds since the epoch or an ISO 8601 date-time');
  return parsed;
}

/** Parses a non-negative integer. */
export function parseCountArg(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}
