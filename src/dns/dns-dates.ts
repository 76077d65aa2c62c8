// Owns the two date formats of spec 2.8: JSON "YYYY-MM-DDThh:mm:ss.000+0000", XML ISO 8601 UTC with a trailing Z.

/** A time as the JSON views show it, e.g. 2011-06-23T03:09:34.000+0000. */
export function jsonDate(timeMs: number): string {
  return new Date(timeMs).toISOString().replace(/Z$/, '+0000');
}

/** A time as the XML views show it, e.g. 2011-06-23T03:09:34Z (whole seconds, as the reference shows). */
export function xmlDate(timeMs: number): string {
  return new Date(timeMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
