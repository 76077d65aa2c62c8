// Owns translating an RE2 pattern (the syntax of Prometheus' regular expression matchers) into JavaScript RegExp sources with the same matches.
import { StrataError } from '../core/errors.js';
import { caseFolded, codeEscape, DIGIT, POSIX_CLASSES, type Range, rangesText, SPACE, SURROGATES, withoutSurrogates, WORD } from './re2-char-sets.js';

/**
 * The JavaScript sources of one RE2 pattern. Neither is anchored: the caller wraps it (Prometheus
 * anchors every matcher at both ends). Two forms, because V8's linear-time engine (the only one
 * that cannot backtrack) runs patterns without flags only.
 */
export interface JsPattern {
  /** Source for a RegExp with the 'u' flag ('iu' when `ignoreCase`): the pattern as JavaScript reads it, to check its syntax. */
  readonly unicode: string;
  /**
   * Source for a RegExp with no flag that matches the same strings, case folding spelt out and a
   * character above U+FFFF being two code units; undefined when the pattern needs what only
   * Unicode mode has, and then `whyNotCodeUnits` says what.
   */
  readonly codeUnits: string | undefined;
  /** Why `codeUnits` is undefined: the first construct that needs Unicode mode. */
  readonly whyNotCodeUnits: string | undefined;
  /** True for a pattern opening with `(?i)`. */
  readonly ignoreCase: boolean;
}

/** One character outside the Basic Multilingual Plane, as two code units. */
const SURROGATE_PAIR = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]';
/** RE2's largest repetition count. */
const REPEAT_COUNT_MAX = 1000;
/** Characters that must be escaped to stand for themselves outside brackets. */
const SYNTAX_CHARACTERS: ReadonlySet<string> = new Set('^$\\.*+?()[]{}|/');
/** Unicode general categories, which JavaScript names as RE2 does; any other `\p` name is a script. */
const GENERAL_CATEGORIES: ReadonlySet<string> = new Set('C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '));

/** A class member: code point ranges, or a class only Unicode mode can write (`\p`, `\S` inside brackets). */
type ClassPart = { readonly ranges: readonly Range[] } | { readonly unicodeText: string; readonly why: string };

/** One pass over an RE2 pattern writing both JavaScript forms. */
class Translator {
  private i = 0;
  private unicode = '';
  private codeUnits = '';
  private whyNot: string | undefined;
  private dotAll = false;
  private ignoreCase = false;
  private readonly groupNames = new Set<string>();

  constructor(private readonly pattern: string) {}

  run(): JsPattern {
    this.leadingFlags();
    while (this.i < this.pattern.length) this.atom();
    const linear = this.whyNot === undefined;
    return { unicode: this.unicode, codeUnits: linear ? this.codeUnits : undefined, whyNotCodeUnits: this.whyNot, ignoreCase: this.ignoreCase };
  }

  private fail(reason: string): never {
    throw new StrataError('PROMETHEUS_MATCHER_INVALID', `The regular expression ${JSON.stringify(this.pattern)} is not accepted: ${reason} (at character ${this.i}).`, {
      pattern: this.pattern,
      offset: this.i,
    });
  }

  /** Records that the code-unit form cannot be written (the first reason is kept). */
  private unicodeOnly(why: string): void {
    this.whyNot ??= why;
  }

  private emit(unicode: string, codeUnits = unicode): void {
    this.unicode += unicode;
    this.codeUnits += codeUnits;
  }

  /**
   * Emits the characters not in `excluded`, a set holding every one above U+FFFF: `unicode` in
   * Unicode mode; in code units a surrogate pair or one unit outside `excluded` that is not half
   * of a pair, so it never matches half a character.
   */
  private emitNegated(unicode: string, excluded: readonly Range[]): void {
    this.emit(unicode, `(?:${SURROGATE_PAIR}|[^${rangesText(excluded)}${rangesText([SURROGATES])}])`);
  }

  /** `(?i)`, `(?s)` or `(?is)` at the very start; flags anywhere else are refused by group(). */
  private leadingFlags(): void {
    for (;;) {
      const match = /^\(\?([A-Za-z]+)\)/.exec(this.pattern.slice(this.i));
      if (match === null) return;
      for (const flag of match[1] as string) {
        if (flag === 'i') this.ignoreCase = true;
        else if (flag === 's') this.dotAll = true;
        else this.fail(`the flag ${flag} is not supported; only (?i) and (?s), at the start`);
      }
      this.i += match[0].length;
    }
  }

  private atom(): void {
    const c = String.fromCodePoint(this.pattern.codePointAt(this.i) as number);
    if (c === '\\') return this.escape();
    if (c === '[') return this.charClass();
    if (c === '(') return this.group();
    if (c === '{') return this.brace();
    this.i += c.length;
    if (c === '.') this.emitNegated(this.dotAll ? '[\\s\\S]' : '[^\\n]', this.dotAll ? [] : [[0x0a, 0x0a]]);
    else if ('*+?^$|)'.includes(c)) this.emit(c);
    else this.literal(c.codePointAt(0) as number);
  }

  /** A character standing for itself outside brackets: its case partners too under (?i); above U+FFFF a group of its two code units, so a repetition takes both. */
  private literal(cp: number): void {
    const c = String.fromCodePoint(cp);
    const unicode = SYNTAX_CHARACTERS.has(c) ? `\\${c}` : cp < 0x20 ? codeEscape(cp) : c;
    if (cp > 0xffff) {
      if (this.ignoreCase && (c.toLowerCase() !== c || c.toUpperCase() !== c)) this.unicodeOnly('case-insensitive matching of a letter outside ASCII');
      this.emit(unicode, `(?:${codeEscape(c.charCodeAt(0))}${codeEscape(c.charCodeAt(1))})`);
      return;
    }
    const folded = this.ignoreCase ? caseFolded([[cp, cp]]) : [[cp, cp] as Range];
    if (folded === undefined) {
      this.unicodeOnly('case-insensitive matching of a letter outside ASCII');
      this.emit(unicode);
    } else this.emit(unicode, folded.length === 1 ? unicode : `[${rangesText(folded)}]`);
  }

  /** `{n}`, `{n,}` or `{n,m}` is a repetition; any other brace is literal, as in RE2. */
  private brace(): void {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.i));
    if (match === null) {
      this.i++;
      this.emit('\\{');
      return;
    }
    const counts = [match[1], match[3]].filter((n): n is string => n !== undefined && n !== '').map(Number);
    if (counts.some((n) => n > REPEAT_COUNT_MAX)) this.fail(`a repetition count is above ${REPEAT_COUNT_MAX}`);
    this.i += match[0].length;
    this.emit(match[0]);
  }

  private group(): void {
    const rest = this.pattern.slice(this.i);
    if (!rest.startsWith('(?')) {
      this.i++;
      // Captures are never read: a non-capturing group matches the same and costs less.
      this.emit('(?:');
      return;
    }
    if (rest.startsWith('(?:')) {
      this.i += 3;
      this.emit('(?:');
      return;
    }
    const named = /^\(\?P?<([^>]*)>/.exec(rest);
    if (named !== null && !rest.startsWith('(?<=') && !rest.startsWith('(?<!')) {
      const name = named[1] as string;
      if (!/^[A-Za-z0-9_]+$/.test(name)) this.fail(`the group name ${JSON.stringify(name)} is not letters, digits and underscores`);
      if (this.groupNames.has(name)) this.fail(`the group name ${name} is used twice`);
      this.groupNames.add(name);
      this.i += named[0].length;
      this.emit('(?:');
      return;
    }
    if (/^\(\?(=|!|<=|<!)/.test(rest)) this.fail('lookahead and lookbehind are not RE2 syntax');
    if (rest.startsWith('(?P=')) this.fail('back-references are not RE2 syntax');
    this.fail('flags are supported only at the start of the pattern, as (?i) or (?s)');
  }

  /** An escape outside brackets. */
  private escape(): void {
    const c = this.pattern[this.i + 1];
    if (c === undefined) this.fail('the pattern ends with a backslash');
    const code = this.codeOfEscape();
    if (code !== undefined) return this.literal(code);
    if (c === 'Q') {
      this.i += 2;
      for (const cp of this.quoted()) this.literal(cp);
      return;
    }
    const part = this.escapeClass();
    if (part !== undefined) {
      if ('ranges' in part) this.emit(`[${rangesText(part.ranges)}]`, `[${rangesText(this.folded(part.ranges))}]`);
      else this.emit(part.unicodeText, '');
      return;
    }
    this.i += 2;
    if (c === 'b' || c === 'B') this.emit(`\\${c}`);
    else if (c === 'D') this.emitNegated('\\D', DIGIT);
    else if (c === 'W') this.emitNegated('\\W', this.folded(WORD));
    else if (c === 'S') this.emitNegated(`[^${rangesText(SPACE)}]`, SPACE);
    else if (c === 'A') this.emit('^');
    else if (c === 'z') this.emit('$');
    else if (c === 'C') this.fail('\\C (any byte) is not supported');
    else this.fail(`\\${c} is not an RE2 escape`);
  }

  /** ASCII ranges with their case partners under (?i) (they never hold a letter outside ASCII). */
  private folded(ranges: readonly Range[]): Range[] {
    return this.ignoreCase ? (caseFolded(ranges) as Range[]) : [...ranges];
  }

  /** `\d`, `\w`, `\s` as ranges, or `\p`/`\P` in Unicode mode only; consumes it. Undefined, consuming nothing, for other escapes. */
  private escapeClass(): ClassPart | undefined {
    const c = this.pattern[this.i + 1];
    if (c === 'd' || c === 'w' || c === 's') {
      this.i += 2;
      return { ranges: c === 'd' ? DIGIT : c === 'w' ? WORD : SPACE };
    }
    if (c === 'p' || c === 'P') {
      this.i += 2;
      const text = this.unicodeClass(c);
      this.unicodeOnly(`the Unicode class ${text} needs Unicode mode, which the linear-time engine does not run`);
      return { unicodeText: text, why: 'a Unicode class' };
    }
    return undefined;
  }

  /**
   * The code point of an escape that stands for one character (`\n`, `\x41`, `\x{1F600}`, octal
   * `\012`, `\.`), consuming it; undefined, consuming nothing, for any other escape.
   */
  private codeOfEscape(): number | undefined {
    const c = this.pattern[this.i + 1] as string;
    const simple: Readonly<Record<string, number>> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (simple[c] !== undefined) {
      this.i += 2;
      return simple[c];
    }
    if (c === 'x') return this.hexEscape();
    if (/[0-9]/.test(c)) return this.octalEscape();
    if (c.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(c)) {
      // RE2: a backslash before any ASCII punctuation (or space) makes it literal.
      this.i += 2;
      return c.charCodeAt(0);
    }
    return undefined;
  }

  private hexEscape(): number {
    const match = /^\\x(?:\{([0-9A-Fa-f]{1,8})\}|([0-9A-Fa-f]{2}))/.exec(this.pattern.slice(this.i));
    if (match === null) this.fail('\\x needs two hexadecimal digits or {digits}');
    const cp = parseInt((match[1] ?? match[2]) as string, 16);
    if (cp > 0x10ffff || (cp >= SURROGATES[0] && cp <= SURROGATES[1])) this.fail(`${match[0]} is not a Unicode scalar value`);
    this.i += match[0].length;
    return cp;
  }

  /** `\0` with up to two more octal digits, or `\1` to `\7` followed by an octal digit (three at most); a lone `\1` is a back-reference. */
  private octalEscape(): number {
    const match = /^\\(0[0-7]{0,2}|[1-7][0-7]{1,2})/.exec(this.pattern.slice(this.i));
    if (match === null) this.fail('back-references are not RE2 syntax');
    this.i += match[0].length;
    return parseInt(match[1] as string, 8);
  }

  /** `\pL`, `\p{Greek}`, `\p{^Lu}`, `\PL` (the backslash and letter already consumed) as `\p{...}` or `\P{...}`. */
  private unicodeClass(letter: string): string {
    let name: string;
    if (this.pattern[this.i] === '{') {
      const end = this.pattern.indexOf('}', this.i);
      if (end === -1) this.fail(`\\${letter}{ is not closed`);
      name = this.pattern.slice(this.i + 1, end);
      this.i = end + 1;
    } else {
      name = this.pattern[this.i] ?? '';
      this.i++;
    }
    let negated = letter === 'P';
    if (name.startsWith('^')) {
      negated = !negated;
      name = name.slice(1);
    }
    if (!/^[A-Za-z_]+$/.test(name)) this.fail(`\\${letter}{${name}} names no Unicode class`);
    const property = name === 'Any' || GENERAL_CATEGORIES.has(name) ? name : `Script=${name}`;
    return `\\${negated ? 'P' : 'p'}{${property}}`;
  }

  /** The code points of `\Q...\E` (this.i just after the `\Q`), up to `\E` or the end. */
  private quoted(): number[] {
    const start = this.i;
    const end = this.pattern.indexOf('\\E', start);
    const text = this.pattern.slice(start, end === -1 ? undefined : end);
    this.i = end === -1 ? this.pattern.length : end + 2;
    return [...text].map((ch) => ch.codePointAt(0) as number);
  }

  /** A bracket expression: `[...]` or `[^...]`. */
  private charClass(): void {
    this.i++;
    let negated = false;
    if (this.pattern[this.i] === '^') {
      negated = true;
      this.i++;
    }
    const parts: ClassPart[] = [];
    // `[[:^alpha:]]` alone: RE2 allows a negated ASCII class; JavaScript only as a negated bracket.
    const alone = /^\[:\^([a-z]+):\]\]/.exec(this.pattern.slice(this.i));
    if (alone !== null) {
      negated = !negated;
      parts.push({ ranges: this.posix(alone[1] as string) });
      this.i += alone[0].length - 1;
    }
    // A ']' first in the brackets is a member, as in RE2.
    let first = alone === null;
    for (;;) {
      const c = this.pattern[this.i];
      if (c === undefined) this.fail('a bracket expression is not closed with ]');
      if (c === ']' && !first) break;
      first = false;
      parts.push(this.classMember());
    }
    this.i++;
    this.emitClass(parts, negated);
  }

  private emitClass(parts: readonly ClassPart[], negated: boolean): void {
    const ranges: Range[] = [];
    let unicodeText = '';
    for (const part of parts) {
      if ('ranges' in part) {
        ranges.push(...part.ranges);
        unicodeText += rangesText(part.ranges);
      } else {
        this.unicodeOnly(`${part.why} inside brackets needs Unicode mode, which the linear-time engine does not run`);
        unicodeText += part.unicodeText;
      }
    }
    const unicode = `[${negated ? '^' : ''}${unicodeText}]`;
    if (ranges.some(([, hi]) => hi > 0xffff)) this.unicodeOnly('a character above U+FFFF inside brackets needs Unicode mode, which the linear-time engine does not run');
    const folded = this.ignoreCase ? caseFolded(ranges) : ranges;
    if (folded === undefined) this.unicodeOnly('case-insensitive matching of a letter outside ASCII');
    const units = withoutSurrogates(folded ?? ranges);
    if (negated) this.emitNegated(unicode, units);
    // An empty set (only surrogates were named) matches nothing.
    else this.emit(unicode, units.length === 0 ? '[^\\s\\S]' : `[${rangesText(units)}]`);
  }

  private posix(name: string): readonly Range[] {
    const ranges = POSIX_CLASSES[name];
    if (ranges === undefined) this.fail(`[:${name}:] is not an ASCII class`);
    return ranges;
  }

  /** One member of a bracket expression: a character, a range, an escape class or an ASCII class. */
  private classMember(): ClassPart {
    const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.pattern.slice(this.i));
    if (posix !== null) {
      if (posix[1] === '^') this.fail('a negated ASCII class [:^name:] must stand alone in its brackets');
      this.i += posix[0].length;
      return { ranges: this.posix(posix[2] as string) };
    }
    const low = this.classChar();
    if (typeof low !== 'number') return low;
    if (this.pattern[this.i] === '-' && this.pattern[this.i + 1] !== ']' && this.pattern[this.i + 1] !== undefined) {
      this.i++;
      const high = this.classChar();
      if (typeof high !== 'number') this.fail('a range ends in a class, not a character');
      if (high < low) this.fail('a range ends before it starts');
      return { ranges: [[low, high]] };
    }
    return { ranges: [[low, low]] };
  }

  /** One character of a bracket expression as its code point, or a class escape. */
  private classChar(): number | ClassPart {
    if (this.pattern[this.i] !== '\\') {
      const cp = this.pattern.codePointAt(this.i) as number;
      this.i += String.fromCodePoint(cp).length;
      return cp;
    }
    const next = this.pattern[this.i + 1];
    if (next === undefined) this.fail('the pattern ends with a backslash');
    const code = this.codeOfEscape();
    if (code !== undefined) return code;
    const part = this.escapeClass();
    if (part !== undefined) return part;
    this.i += 2;
    if (next === 'D' || next === 'W' || next === 'S') {
      const text = next === 'S' ? `\\0-\\x08\\x0B\\x0E-\\x1F\\x21-\\u{10FFFF}` : `\\${next}`;
      return { unicodeText: text, why: `\\${next}` };
    }
    if (next === 'Q') {
      const cps = this.quoted();
      return { ranges: cps.map((cp): Range => [cp, cp]) };
    }
    return this.fail(`\\${next} is not an RE2 escape inside brackets`);
  }
}

/**
 * Translates an RE2 pattern into JavaScript sources with the same matches (see JsPattern), or
 * throws PROMETHEUS_MATCHER_INVALID naming what RE2 refuses or what is not supported here. RE2
 * features and their mapping: `.` never matches a newline unless `(?s)` (JavaScript's `.` also
 * skips `\r` and U+2028/9, so it is written out); `\s` is exactly `[\t\n\f\r ]`; `\d`, `\w`,
 * `\b` are ASCII; `[[:alpha:]]` and the other ASCII classes are spelt out; `(?i)` adds each ASCII
 * letter's case partners (k and s also match KELVIN SIGN and LONG S, as simple case folding
 * says); `\Q...\E` quotes; `\x{10FFFF}`, octal `\012`, `\a`, and a backslash before any
 * punctuation are characters; `{` that starts no repetition is literal; named groups
 * `(?P<n>...)` are accepted (captures are never read); `\pL`, `\p{Greek}` become Unicode property
 * escapes, in the Unicode form only. Refused: back-references and lookaround (not RE2), `\C`,
 * flags other than a leading `(?i)` or `(?s)` (`(?m)`, `(?U)`, `(?i:...)`, flags mid-pattern),
 * repetition counts above 1000.
 */
export function translateRe2(pattern: string): JsPattern {
  return new Translator(pattern).run();
}
