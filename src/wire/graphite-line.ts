// Owns parsing one Graphite plaintext line (`path value timestamp`, Graphite 1.1 tags) from bytes into a point.
import { Buffer, isUtf8 } from 'node:buffer';
import { METRIC_NAME_LENGTH_MAX } from '../core/limits.js';
import { NumberSlot, parseJsonNumber } from './json-number.js';
import { NameCache } from './name-cache.js';
import { SERIES_LABELS_MAX } from './protocol-limits.js';
import { seriesMetricName, seriesProblem, type Label } from './series-name.js';
import { NAME_CACHE_ENTRIES_MAX } from './wire-limits.js';

/** Why a line was refused; the line is dropped and counted, never an exception. */
export interface GraphiteLineProblem {
  readonly code: 'GRAPHITE_LINE_MALFORMED';
  readonly message: string;
}

/**
 * What parseGraphiteLine found: a point (in `out`), a point whose value is NaN or infinite (skipped
 * by design, `out.metric` set), a line holding only white space, or a problem.
 */
export type GraphiteLineOutcome = 'point' | 'skipped' | 'blank' | GraphiteLineProblem;

/**
 * Where parseGraphiteLine leaves the point it read. A class the caller reuses line after line: no
 * object per line, and the double fields keep one shape (see NumberSlot).
 */
export class GraphitePoint {
  metric = '';
  /** Integer milliseconds since the epoch. */
  timestampMs = 0;
  value = 0;
}

/**
 * What one parser reuses from line to line: interned paths, the canonical names of tagged paths,
 * the number slot and a DataView over the last buffer seen. Parsing is synchronous, so one scratch
 * serves every connection of a listener. Results never depend on it: a fresh scratch parses every
 * line the same. Only paths up to METRIC_NAME_LENGTH_MAX bytes are cached, so its memory is bounded
 * by NAME_CACHE_ENTRIES_MAX short names.
 */
export class GraphiteLineScratch {
  readonly names = new NameCache();
  readonly slot = new NumberSlot();
  /** The metric name, or the problem, of each tagged path text seen (cleared when it reaches NAME_CACHE_ENTRIES_MAX). */
  readonly tagged = new Map<string, string | GraphiteLineProblem>();
  /** What the last path scan saw (PATH_* bits): the path is scanned once, as its token is found. */
  pathFlags = 0;
  private viewed: Buffer | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  /** A DataView over exactly `buf` (the name cache reads words through it), rebuilt only when the buffer changes. */
  viewOf(buf: Buffer): DataView {
    if (this.viewed !== buf) {
      this.viewed = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    return this.view;
  }
}

const CH_TAB = 0x09;
const CH_CR = 0x0d;
const CH_SPACE = 0x20;
const CH_PLUS = 0x2b;
const CH_MINUS = 0x2d;
const CH_DOT = 0x2e;
const CH_ZERO = 0x30;
const CH_ONE = 0x31;
const CH_SEMICOLON = 0x3b;
const CH_UPPER_N = 0x4e;
const CH_LOWER_E = 0x65;
const CH_LOWER_N = 0x6e;
const CH_OPEN_BRACE = 0x7b;
const CH_CLOSE_BRACE = 0x7d;
const ASCII_LOWER_BIT = 0x20;
const ASCII_END = 0x80;
/** Path scan bits: a `;` (tags follow), a brace, a byte outside ASCII. */
const PATH_TAGGED = 1;
const PATH_BRACE = 2;
const PATH_NON_ASCII = 4;
/** Digits of whole seconds accumulated exactly (10^15 < 2^53); more are out of range anyway. */
const SECONDS_DIGITS_MAX = 15;
/** Largest whole seconds whose milliseconds, plus up to 999, are still a safe integer. */
const SECONDS_SAFE_MAX = Math.floor(Number.MAX_SAFE_INTEGER / 1000) - 1;
/** Longest piece of a line quoted in a message. */
const QUOTE_CHARS_MAX = 64;

function isSeparator(byte: number): boolean {
  return byte === CH_SPACE || byte === CH_TAB;
}

function isDigit(byte: number): boolean {
  return (byte - CH_ZERO) >>> 0 <= 9;
}

function problem(message: string): GraphiteLineProblem {
  return { code: 'GRAPHITE_LINE_MALFORMED', message };
}

/** buf[start, end) for a message: JSON-quoted, cut at QUOTE_CHARS_MAX characters. */
function quote(buf: Buffer, start: number, end: number): string {
  const text = buf.toString('utf8', start, end);
  return JSON.stringify(text.length > QUOTE_CHARS_MAX ? `${text.slice(0, QUOTE_CHARS_MAX)}…` : text);
}

/** The index of the first separator at or after i (or end). */
function tokenEnd(buf: Buffer, i: number, end: number): number {
  while (i < end && !isSeparator(buf[i] as number)) i++;
  return i;
}

/** The end of the path token starting at i, noting in scratch.pathFlags what it holds. */
function pathEnd(buf: Buffer, i: number, end: number, scratch: GraphiteLineScratch): number {
  let flags = 0;
  for (; i < end; i++) {
    const byte = buf[i] as number;
    if (byte === CH_SPACE || byte === CH_TAB) break;
    if (byte === CH_SEMICOLON) flags |= PATH_TAGGED;
    else if (byte === CH_OPEN_BRACE || byte === CH_CLOSE_BRACE) flags |= PATH_BRACE;
    else if (byte >= ASCII_END) flags |= PATH_NON_ASCII;
  }
  scratch.pathFlags = flags;
  return i;
}

/** The index of the first byte at or after i that is not a separator (or end). */
function separatorsEnd(buf: Buffer, i: number, end: number): number {
  while (i < end && isSeparator(buf[i] as number)) i++;
  return i;
}

/**
 * Parses buf[start, end), one line without its newline: `path value timestamp` separated by runs of
 * spaces or tabs (leading and trailing ones, and one trailing \r, are tolerated). The path may carry
 * Graphite 1.1 tags (`path;name=value;...`), which become the series name of series-name.ts. The
 * value is a decimal number as Number() reads it (no hex or other notation); NaN and infinities
 * (`nan`, `inf`, `infinity` in any case and signed, or a decimal past the double range) are
 * 'skipped'. The timestamp is
 * seconds, whole or fractional, rounded half up to whole milliseconds from its decimal digits, or
 * `-1` or `N` for `nowMs`. Never throws on any bytes.
 */
export function parseGraphiteLine(buf: Buffer, start: number, end: number, nowMs: number, scratch: GraphiteLineScratch, out: GraphitePoint): GraphiteLineOutcome {
  if (end > start && buf[end - 1] === CH_CR) end--;
  while (end > start && isSeparator(buf[end - 1] as number)) end--;
  const pathStart = separatorsEnd(buf, start, end);
  if (pathStart === end) return 'blank';
  const pathStop = pathEnd(buf, pathStart, end, scratch);
  const valueStart = separatorsEnd(buf, pathStop, end);
  const valueEnd = tokenEnd(buf, valueStart, end);
  const timeStart = separatorsEnd(buf, valueEnd, end);
  const timeEnd = tokenEnd(buf, timeStart, end);
  if (timeStart === end) return problem(`a line is \`path value timestamp\`; got ${valueStart === end ? 'only a path' : 'no timestamp'} in ${quote(buf, pathStart, end)}`);
  if (timeEnd !== end) return problem(`a line is \`path value timestamp\`; got more than three fields in ${quote(buf, pathStart, end)}`);
  const metric = metricOf(buf, pathStart, pathStop, scratch);
  if (typeof metric !== 'string') return metric;
  const valueProblem = readValue(buf, valueStart, valueEnd, scratch.slot);
  if (valueProblem !== undefined) return valueProblem;
  if (!readTimestamp(buf, timeStart, timeEnd, nowMs, out)) return problem(`timestamp ${quote(buf, timeStart, timeEnd)} is not seconds since the epoch (digits, perhaps a fraction), -1 or N`);
  out.metric = metric;
  out.value = scratch.slot.value;
  return Number.isFinite(out.value) ? 'point' : 'skipped';
}

/** The metric name of the path buf[start, end) (scratch.pathFlags describe it), or why it cannot be one. */
function metricOf(buf: Buffer, start: number, end: number, scratch: GraphiteLineScratch): string | GraphiteLineProblem {
  const flags = scratch.pathFlags;
  if ((flags & PATH_BRACE) !== 0) return problem(`path ${quote(buf, start, end)} holds a brace, which delimits the labels of a series name`);
  if ((flags & PATH_NON_ASCII) !== 0 && !isUtf8(buf.subarray(start, end))) return problem('the path is not valid UTF-8');
  const tagged = (flags & PATH_TAGGED) !== 0;
  // A path longer than any metric name is refused by the store; caching it would only let such
  // lines fill the caches with large entries.
  if (end - start > METRIC_NAME_LENGTH_MAX) {
    const long = buf.toString('utf8', start, end);
    return tagged ? taggedMetric(long) : long;
  }
  const text = scratch.names.intern(buf, scratch.viewOf(buf), start, end);
  if (!tagged) return text;
  let metric = scratch.tagged.get(text);
  if (metric === undefined) {
    metric = taggedMetric(text);
    if (scratch.tagged.size >= NAME_CACHE_ENTRIES_MAX) scratch.tagged.clear();
    scratch.tagged.set(text, metric);
  }
  return metric;
}

/** The series name of a tagged path `path;name=value;...`: tags sorted by name, or why it has none. */
function taggedMetric(text: string): string | GraphiteLineProblem {
  const parts = text.split(';');
  const name = parts[0] as string;
  if (parts.length - 1 > SERIES_LABELS_MAX) return problem(`path ${JSON.stringify(name)} has ${parts.length - 1} tags; at most ${SERIES_LABELS_MAX} are allowed`);
  const labels: Label[] = [];
  for (let i = 1; i < parts.length; i++) {
    const tag = parts[i] as string;
    const eq = tag.indexOf('=');
    if (eq < 0) return problem(`tag ${JSON.stringify(tag)} of path ${JSON.stringify(name)} is not name=value`);
    if (eq === tag.length - 1) return problem(`tag ${JSON.stringify(tag.slice(0, eq))} of path ${JSON.stringify(name)} has an empty value`);
    labels.push({ name: tag.slice(0, eq), value: tag.slice(eq + 1) });
  }
  const why = seriesProblem(name, labels);
  return why === undefined ? seriesMetricName(name, labels) : problem(why);
}

/** Whether buf[i, end) spells `word` (lower case ASCII letters) in any case. */
function spells(buf: Buffer, i: number, end: number, word: string): boolean {
  if (end - i !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (((buf[i + k] as number) | ASCII_LOWER_BIT) !== word.charCodeAt(k)) return false;
  return true;
}

/** Whether buf[i, end) is `nan`, `inf` or `infinity` in any case (the sign already read); compared in place, no string made. */
function isNonFiniteWord(buf: Buffer, i: number, end: number): boolean {
  return spells(buf, i, end, 'nan') || spells(buf, i, end, 'inf') || spells(buf, i, end, 'infinity');
}

/** Index just past a run of digits starting at i. */
function digitsEnd(buf: Buffer, i: number, end: number): number {
  while (i < end && isDigit(buf[i] as number)) i++;
  return i;
}

/** Whether buf[start, end) is a decimal literal: [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)? */
function isDecimal(buf: Buffer, start: number, end: number): boolean {
  let i = start;
  if (buf[i] === CH_PLUS || buf[i] === CH_MINUS) i++;
  const wholeEnd = digitsEnd(buf, i, end);
  let digits = wholeEnd - i;
  i = wholeEnd;
  if (i < end && buf[i] === CH_DOT) {
    const fractionEnd = digitsEnd(buf, i + 1, end);
    digits += fractionEnd - i - 1;
    i = fractionEnd;
  }
  if (digits === 0) return false;
  if (i < end && ((buf[i] as number) | ASCII_LOWER_BIT) === CH_LOWER_E) {
    i++;
    if (i < end && (buf[i] === CH_PLUS || buf[i] === CH_MINUS)) i++;
    const exponentEnd = digitsEnd(buf, i, end);
    if (exponentEnd === i) return false;
    i = exponentEnd;
  }
  return i === end;
}

/** Reads the value token into slot.value (NaN or ±Infinity for the words), or returns why it is not a number. */
function readValue(buf: Buffer, start: number, end: number, slot: NumberSlot): GraphiteLineProblem | undefined {
  const first = buf[start] as number;
  const signed = first === CH_PLUS || first === CH_MINUS;
  if (isNonFiniteWord(buf, signed ? start + 1 : start, end)) {
    const word = (buf[signed ? start + 1 : start] as number) | ASCII_LOWER_BIT;
    slot.value = word === CH_LOWER_N ? NaN : first === CH_MINUS ? -Infinity : Infinity;
    return undefined;
  }
  if (!isDecimal(buf, start, end)) return problem(`value ${quote(buf, start, end)} is not a decimal number`);
  // The JSON grammar is a subset of the decimal one, read exactly as Number() would; the rest
  // (a leading + or zero, `1.`, `.5`) is rare enough to go through a string.
  if ((first === CH_MINUS || isDigit(first)) && parseJsonNumber(buf, start, slot) === end) return undefined;
  slot.value = Number(buf.toString('latin1', start, end));
  return undefined;
}

/**
 * Reads the timestamp token into out.timestampMs (integer milliseconds); false when it is not one.
 * Seconds are read from their decimal digits, not through a double: 1764000000.1234999999 is
 * 1764000000123 ms, where Math.round(Number(text) * 1000) gives ...124. The result goes into
 * `out` rather than being returned: a double returned from a call that is not inlined is boxed.
 */
function readTimestamp(buf: Buffer, start: number, end: number, nowMs: number, out: GraphitePoint): boolean {
  const length = end - start;
  if ((length === 1 && buf[start] === CH_UPPER_N) || (length === 2 && buf[start] === CH_MINUS && buf[start + 1] === CH_ONE)) {
    out.timestampMs = nowMs;
    return true;
  }
  const wholeEnd = digitsEnd(buf, start, end);
  if (wholeEnd === start || wholeEnd - start > SECONDS_DIGITS_MAX) return false;
  let seconds = 0;
  for (let i = start; i < wholeEnd; i++) seconds = seconds * 10 + (buf[i] as number) - CH_ZERO;
  if (seconds > SECONDS_SAFE_MAX) return false;
  let ms = 0;
  if (wholeEnd < end) {
    if (buf[wholeEnd] !== CH_DOT) return false;
    const fractionEnd = digitsEnd(buf, wholeEnd + 1, end);
    if (fractionEnd !== end || fractionEnd === wholeEnd + 1) return false;
    // The first three digits are whole milliseconds; the fourth rounds half up (the digits are exact).
    for (let k = 0; k < 3; k++) {
      const at = wholeEnd + 1 + k;
      ms = ms * 10 + (at < end ? (buf[at] as number) - CH_ZERO : 0);
    }
    const fourth = wholeEnd + 4;
    if (fourth < end && (buf[fourth] as number) >= CH_ZERO + 5) ms++;
  }
  out.timestampMs = seconds * 1000 + ms;
  return true;
}

/** parseGraphiteLine's result for one line of text, as a value (for tests and tools; the listener uses the byte form). */
export type GraphiteParsed =
  | { readonly kind: 'point'; readonly metric: string; readonly timestampMs: number; readonly value: number }
  | { readonly kind: 'skipped'; readonly metric: string; readonly timestampMs: number }
  | { readonly kind: 'blank' }
  | GraphiteLineProblem;

/** Parses one line of text (without its newline) with a fresh scratch; see parseGraphiteLine. */
export function parseGraphiteText(line: string, nowMs: number): GraphiteParsed {
  const buf = Buffer.from(line, 'utf8');
  const out = new GraphitePoint();
  const outcome = parseGraphiteLine(buf, 0, buf.length, nowMs, new GraphiteLineScratch(), out);
  if (outcome === 'point') return { kind: 'point', metric: out.metric, timestampMs: out.timestampMs, value: out.value };
  if (outcome === 'skipped') return { kind: 'skipped', metric: out.metric, timestampMs: out.timestampMs };
  if (outcome === 'blank') return { kind: 'blank' };
  return outcome;
}
