// Owns the fast-check building blocks the /proc parser properties share: counters, blanks between fields, junk lines.
import fc from 'fast-check';

/** A counter as /proc writes it (kept within 2^53 so the parsed number is exact). */
export const counter = fc.maxSafeNat();

/** One or more blanks between fields: the kernel pads columns with spaces, some files use tabs. */
export const blank = fc.constantFrom(' ', '  ', '   ', '\t', ' \t ');

/** Joins fields with generated blanks. */
export function joinWith(fields: readonly string[], blanks: readonly string[]): string {
  return fields.map((field, i) => (i === 0 ? field : `${blanks[i % blanks.length] ?? ' '}${field}`)).join('');
}

/** Any text at all, including control characters, lone surrogates and digits. */
export const junkText = fc.string({ unit: fc.oneof(fc.constantFrom(' ', '\t', '\n', ':', '/', '\\', '0', '9', '.', 'k', 'B', '-'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })), maxLength: 400 });

/** A line of junk that cannot be mistaken for a record of any parser: one blank-free field starting with '#'. */
export const junkLine = fc.string({ maxLength: 60 }).map((text) => `#${text.replace(/\s/g, '_')}`);

/** Interleaves records with junk lines at generated positions, keeping the records' order. */
export function interleave(records: readonly string[], junk: readonly string[]): string[] {
  const lines: string[] = [];
  records.forEach((record, i) => {
    const extra = junk[i];
    if (extra !== undefined) lines.push(extra);
    lines.push(record);
  });
  return lines.concat(junk.slice(records.length));
}
