// Owns the character sets of the RE2 translation as code point ranges: RE2's ASCII classes, case folding of ASCII letters, and writing ranges as JavaScript class content.

/** An inclusive range of code points. */
export type Range = readonly [number, number];

/** The surrogate code points: no well-formed string holds one alone. */
export const SURROGATES: Range = [0xd800, 0xdfff];
/** RE2's `\d`: ASCII digits. */
export const DIGIT: readonly Range[] = [[0x30, 0x39]];
/** RE2's `\w`: ASCII letters, digits and underscore. */
export const WORD: readonly Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** RE2's `\s`: exactly tab, newline, form feed, carriage return and space (not JavaScript's Unicode white space, nor \v). */
export const SPACE: readonly Range[] = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
/** RE2's ASCII classes `[:name:]`. */
export const POSIX_CLASSES: Readonly<Record<string, readonly Range[]>> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};
/** The two characters outside ASCII that simple case folding joins to ASCII letters: KELVIN SIGN with k, LONG S with s. */
const KELVIN = 0x212a;
const LONG_S = 0x17f;

/** The JavaScript escape of one code point, valid in both modes below U+10000 and in Unicode mode above. */
export function codeEscape(cp: number): string {
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Class content for ranges. */
export function rangesText(ranges: readonly Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? codeEscape(lo) : `${codeEscape(lo)}-${codeEscape(hi)}`)).join('');
}

/** The ranges without the surrogates (which no well-formed subject holds), for the code-unit form. */
export function withoutSurrogates(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const [lo, hi] of ranges) {
    if (hi < SURROGATES[0] || lo > SURROGATES[1]) out.push([lo, hi]);
    else {
      if (lo < SURROGATES[0]) out.push([lo, SURROGATES[0] - 1]);
      if (hi > SURROGATES[1]) out.push([SURROGATES[1] + 1, hi]);
    }
  }
  return out;
}

/** True when a character of [lo, hi] has a case form other than itself (one outside what caseFolded spells out). */
function hasCasedBeyondAscii(lo: number, hi: number): boolean {
  for (let cp = Math.max(lo, 0x80); cp <= Math.min(hi, 0xffff); cp++) {
    if (cp === KELVIN || cp === LONG_S || (cp >= SURROGATES[0] && cp <= SURROGATES[1])) continue;
    const c = String.fromCharCode(cp);
    if (c.toLowerCase() !== c || c.toUpperCase() !== c) return true;
  }
  return false;
}

/**
 * The ranges with every ASCII letter's case partners added (simple case folding: A with a, and k
 * and s with KELVIN SIGN and LONG S too), or undefined when a range holds a letter outside ASCII,
 * whose folding is not spelt out here.
 */
export function caseFolded(ranges: readonly Range[]): Range[] | undefined {
  const out: Range[] = [...ranges];
  const covers = (cp: number): boolean => ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
  for (const [lo, hi] of ranges) {
    if (hasCasedBeyondAscii(lo, hi)) return undefined;
    const upperLo = Math.max(lo, 0x41);
    const upperHi = Math.min(hi, 0x5a);
    if (upperLo <= upperHi) out.push([upperLo + 0x20, upperHi + 0x20]);
    const lowerLo = Math.max(lo, 0x61);
    const lowerHi = Math.min(hi, 0x7a);
    if (lowerLo <= lowerHi) out.push([lowerLo - 0x20, lowerHi - 0x20]);
  }
  if (covers(0x4b) || covers(0x6b) || covers(KELVIN)) out.push([0x4b, 0x4b], [0x6b, 0x6b], [KELVIN, KELVIN]);
  if (covers(0x53) || covers(0x73) || covers(LONG_S)) out.push([0x53, 0x53], [0x73, 0x73], [LONG_S, LONG_S]);
  return out;
}
