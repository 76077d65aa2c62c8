// Owns the fast JSON ingest decoder: an array of flat metric objects straight to points, no intermediate objects.
import { INGEST_BATCH_POINTS_MAX } from '../../../core/limits.js';
import type { IngestMapping, IngestScope } from './ingest-body.js';
import { emitPoint, emptyFields, keyAt, KEY_UNKNOWN, PointArraySink, resetFields, storeField, type MetricFields, type PointSink } from './fast-fields.js';
import { FNV_OFFSET, FNV_PRIME, NameCache } from './name-cache.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** A significand below 2^53 with at most this many digits is exact in a double (Clinger's fast path). */
const EXACT_DIGITS_MAX = 15;
/** Powers of ten that are exact doubles: a fast-path significand is divided by one of them. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** Returned by the scanning helpers when the body leaves the fast path. */
const BAIL = -1;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(buf: Buffer, i: number): number {
  while (i < buf.length && isSpace(buf[i] as number)) i++;
  return i;
}

/** Scratch results of the value scanners (one per decode call). */
interface Scan {
  number: number;
  text: string;
}

/** Scans a string starting after its opening quote; returns the index after the closing quote. Escapes and control characters bail. */
function scanString(buf: Buffer, i: number, scan: Scan, names: NameCache): number {
  const start = i;
  let hash = FNV_OFFSET;
  for (;;) {
    if (i >= buf.length) return BAIL;
    const c = buf[i] as number;
    if (c === QUOTE) break;
    if (c === BACKSLASH || c < 0x20) return BAIL;
    hash = Math.imul(hash ^ c, FNV_PRIME);
    i++;
  }
  scan.text = names.text(buf, start, i, hash);
  return i + 1;
}

/**
 * Scans a number by the JSON grammar -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?. Short decimals are computed
 * exactly (an exact significand divided by an exact power of ten rounds once, as JSON.parse
 * does); longer ones go through Number() of their text.
 */
function scanNumber(buf: Buffer, i: number, scan: Scan): number {
  const start = i;
  const negative = buf[i] === MINUS;
  if (negative) i++;
  let significand = 0;
  let digits = 0;
  const intStart = i;
  for (let c = buf[i] as number; c >= ZERO && c <= NINE; c = buf[++i] as number) significand = significand * 10 + (c - ZERO), digits++;
  if (digits === 0 || (digits > 1 && buf[intStart] === ZERO)) return BAIL;
  let fraction = 0;
  if (buf[i] === DOT) {
    const fracStart = ++i;
    for (let c = buf[i] as number; c >= ZERO && c <= NINE; c = buf[++i] as number) significand = significand * 10 + (c - ZERO), digits++;
    fraction = i - fracStart;
    if (fraction === 0) return BAIL;
  }
  let exponent = false;
  if (buf[i] === LOWER_E || buf[i] === UPPER_E) {
    exponent = true;
    i++;
    if (buf[i] === PLUS || buf[i] === MINUS) i++;
    const expStart = i;
    for (let c = buf[i] as number; c >= ZERO && c <= NINE; c = buf[++i] as number);
    if (i === expStart) return BAIL;
  }
  if (!exponent && digits <= EXACT_DIGITS_MAX) {
    const magnitude = fraction === 0 ? significand : significand / (POW10[fraction] as number);
    scan.number = negative ? -magnitude : magnitude;
  } else {
    scan.number = Number(buf.toString('latin1', start, i));
  }
  return i;
}

/** Scans a string (into scan.text) or a number (into scan.number); returns the index after it, or BAIL for other values. */
function scanValue(buf: Buffer, i: number, scan: Scan, names: NameCache): number {
  const c = buf[i] as number;
  if (c === QUOTE) return scanString(buf, i + 1, scan, names);
  if (c === MINUS || (c >= ZERO && c <= NINE)) return scanNumber(buf, i, scan);
  return BAIL;
}

/** Scans one metric object at i (after whitespace); returns the index after it or BAIL. */
function scanObject(buf: Buffer, i: number, fields: MetricFields, scan: Scan, names: NameCache): number {
  if (buf[i] !== OPEN_OBJECT) return BAIL;
  i = skipSpace(buf, i + 1);
  if (buf[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (buf[i] !== QUOTE) return BAIL;
    const keyStart = i + 1;
    let keyEnd = keyStart;
    while (keyEnd < buf.length && buf[keyEnd] !== QUOTE && buf[keyEnd] !== BACKSLASH) keyEnd++;
    if (buf[keyEnd] !== QUOTE) return BAIL;
    const key = keyAt(buf, keyStart, keyEnd);
    if (key === KEY_UNKNOWN) return BAIL;
    i = skipSpace(buf, keyEnd + 1);
    if (buf[i] !== COLON) return BAIL;
    i = skipSpace(buf, i + 1);
    const isString = buf[i] === QUOTE;
    i = scanValue(buf, i, scan, names);
    if (i === BAIL || !storeField(fields, key, isString ? scan.text : scan.number)) return BAIL;
    i = skipSpace(buf, i);
    const next = buf[i];
    if (next === CLOSE_OBJECT) return i + 1;
    if (next !== COMMA) return BAIL;
    i = skipSpace(buf, i + 1);
  }
}

/**
 * Decodes a JSON ingest body whose every metric is clean (flat objects with known keys; string
 * name and unit; number or string value; number time; valid or absent ttl; allowed tenant; no
 * string escapes) into `sink`. Returns false for anything else (the sink is then partly filled and
 * must be dropped): the caller uses JSON.parse and the full mapping, which yield the same points
 * for clean bodies (a property test checks) and the error entries for the rest.
 */
export function decodeJsonInto(buf: Buffer, scope: IngestScope, names: NameCache, sink: PointSink): boolean {
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_ARRAY) return false;
  i = skipSpace(buf, i + 1);
  // An empty batch gets its coded error from the full decoder.
  if (buf[i] === CLOSE_ARRAY) return false;
  const fields = emptyFields();
  const scan: Scan = { number: 0, text: '' };
  for (let count = 0; ; count++) {
    resetFields(fields);
    i = scanObject(buf, i, fields, scan, names);
    if (i === BAIL || count === INGEST_BATCH_POINTS_MAX || !emitPoint(fields, scope, sink)) return false;
    i = skipSpace(buf, i);
    const next = buf[i];
    if (next === CLOSE_ARRAY) break;
    if (next !== COMMA) return false;
    i = skipSpace(buf, i + 1);
  }
  return skipSpace(buf, i + 1) === buf.length;
}

/** The points of a clean JSON ingest body (see decodeJsonInto), or undefined. */
export function fastJsonIngest(raw: Buffer, scope: IngestScope, names: NameCache = new NameCache()): IngestMapping | undefined {
  const sink = new PointArraySink();
  return decodeJsonInto(raw, scope, names, sink) ? { points: sink.points, positions: null, errors: [], skipped: 0 } : undefined;
}
