// Owns tokenizing /proc text for the parsers: lines, whitespace-separated fields, unsigned counters and decimals, and the result of a one-line file.

/** What a parser of a one-line /proc file returns: the value, or why the text is not one. */
export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** Largest value a /proc counter can hold (an unsigned 64-bit integer), as the nearest double. */
const COUNTER_MAX = 18_446_744_073_709_551_615;

/** The lines of a text, without their '\n' (a trailing '\r' kept: /proc never writes one, so such a line is junk to its parser). */
export function linesOf(text: string): string[] {
  return text.split('\n');
}

/** The whitespace-separated fields of a line (spaces and tabs), none empty. */
export function fieldsOf(line: string): string[] {
  return line.split(/[ \t]+/).filter((field) => field !== '');
}

/**
 * An unsigned decimal counter as /proc writes it, or undefined for anything else (signs, hex, exponents, blanks).
 * Values beyond 2^53 keep the nearest double, as the protocol's int64/uint64 metrics do.
 */
export function parseCount(token: string | undefined): number | undefined {
  if (token === undefined || !/^\d{1,20}$/.test(token)) return undefined;
  const value = Number(token);
  return value <= COUNTER_MAX ? value : undefined;
}

/** The counters of `tokens`, or undefined when any one of them is not a counter. */
export function parseCounts(tokens: readonly string[]): number[] | undefined {
  const values: number[] = [];
  for (const token of tokens) {
    const value = parseCount(token);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/** A non-negative decimal such as `0.42` or `12345.67` (what loadavg and uptime write), or undefined. */
export function parseDecimal(token: string | undefined): number | undefined {
  if (token === undefined || !/^\d{1,20}(\.\d{1,20})?$/.test(token)) return undefined;
  return Number(token);
}
