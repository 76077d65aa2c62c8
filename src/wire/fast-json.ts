// Owns the fast JSON ingest decoder: an array of metric objects straight to point columns, no parse tree.
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import type { PointColumnsBuilder } from '../model/point-columns.js';
import type { DecodeScratch } from './decode-scratch.js';
import {
  decodeClean,
  emitPoint,
  isNameKey,
  isTimeKey,
  isTtlKey,
  isValueKey,
  keyAt,
  KEY_LENGTHS,
  KEY_NAME,
  KEY_TENANT,
  KEY_TIME,
  KEY_TTL,
  KEY_UNIT,
  KEY_UNKNOWN,
  runDecodeLoop,
  KEY_VALUE,
  NAME_KEY_LENGTH,
  TIME_KEY_LENGTH,
  TTL_KEY_LENGTH,
  VALUE_KEY_LENGTH,
} from './fast-fields.js';
import type { IngestMapping, IngestScope } from './ingest-mapping.js';
import { parseJsonNumber } from './json-number.js';
import { ttlAcceptable } from './metric-rules.js';

const BAIL = -1;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** Bytes below this must be escaped inside a JSON string. */
const CONTROL_LIMIT = 0x20;

/** The index of the first byte at or after i that is not JSON whitespace. */
function skipSpace(buf: Buffer, i: number): number {
  let c = buf[i] as number;
  // One compare settles the common case: a token, not whitespace, follows.
  while (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) c = buf[++i] as number;
  return i;
}

/**
 * The index of the closing quote of the string whose first content byte is at i, or BAIL when it
 * holds an escape or a control byte (the full decoder takes those) or runs past the end.
 */
function stringEnd(buf: Buffer, i: number): number {
  for (;;) {
    const c = buf[i];
    if (c === QUOTE) return i;
    if (c === undefined || c === BACKSLASH || c < CONTROL_LIMIT) return BAIL;
    i++;
  }
}

/**
 * The key whose first content byte is at i, with its closing quote. The four keys of every
 * metric are tried by the position of their quote first; others take a scan and the by-length match.
 */
function keyOf(buf: Buffer, view: DataView, i: number): number {
  if (buf[i + NAME_KEY_LENGTH] === QUOTE && isNameKey(view, i)) return KEY_NAME;
  if (buf[i + VALUE_KEY_LENGTH] === QUOTE && isValueKey(view, i)) return KEY_VALUE;
  if (buf[i + TIME_KEY_LENGTH] === QUOTE && isTimeKey(view, i)) return KEY_TIME;
  if (buf[i + TTL_KEY_LENGTH] === QUOTE && isTtlKey(view, i)) return KEY_TTL;
  const end = stringEnd(buf, i);
  return end === BAIL ? KEY_UNKNOWN : keyAt(view, i, end - i);
}

function decode(buf: Buffer, view: DataView, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder): boolean {
  // The decoder's own scratch, read into locals once per body.
  const names = scratch.names;
  const slot = scratch.slot;
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_BRACKET) return false;
  i = skipSpace(buf, i + 1);
  // An empty array gets its coded error from the full decoder.
  if (buf[i] === CLOSE_BRACKET) return false;
  for (;;) {
    if (buf[i] !== OPEN_BRACE || columns.length >= INGEST_BATCH_POINTS_MAX) return false;
    i = skipSpace(buf, i + 1);
    let name: string | undefined;
    // Numbers stay in number-only locals (a local that may also hold a string is boxed per write).
    let value = 0;
    let text: string | undefined;
    let haveValue = false;
    let time = 0;
    let haveTime = false;
    let ttlOk = true;
    let unit: string | undefined;
    let tenant: string | undefined;
    for (;;) {
      if (buf[i] !== QUOTE) return false;
      const key = keyOf(buf, view, i + 1);
      if (key === KEY_UNKNOWN) return false;
      i += 2 + (KEY_LENGTHS[key] as number);
      // Compact bodies have the colon right after the key and the value right after the colon.
      if (buf[i] === COLON) i += 1;
      else {
        i = skipSpace(buf, i);
        if (buf[i] !== COLON) return false;
        i += 1;
      }
      if (buf[i] as number <= 0x20) i = skipSpace(buf, i);
      if (buf[i] === QUOTE) {
        const start = i + 1;
        const end = stringEnd(buf, start);
        if (end === BAIL) return false;
        i = end + 1;
        if (key === KEY_NAME) name = names.intern(buf, view, start, end);
        else if (key === KEY_VALUE) {
          text = buf.toString('utf8', start, end);
          haveValue = true;
        }
        else if (key === KEY_UNIT) unit = names.intern(buf, view, start, end);
        else if (key === KEY_TENANT) tenant = names.intern(buf, view, start, end);
        else return false;
      } else {
        if (key === KEY_NAME || key === KEY_UNIT || key === KEY_TENANT) return false;
        i = parseJsonNumber(buf, i, slot);
        if (i === BAIL) return false;
        if (key === KEY_VALUE) {
          value = slot.value;
          text = undefined;
          haveValue = true;
        } else if (key === KEY_TIME) {
          time = slot.value;
          haveTime = true;
        } else {
          ttlOk = ttlAcceptable(slot.value);
        }
      }
      if (buf[i] as number <= 0x20) i = skipSpace(buf, i);
      if (buf[i] === COMMA) {
        i += 1;
        if (buf[i] as number <= 0x20) i = skipSpace(buf, i);
        continue;
      }
      if (buf[i] !== CLOSE_BRACE) return false;
      break;
    }
    const n = emitPoint(scope, columns, name, haveValue && haveTime && ttlOk, unit, tenant);
    if (n < 0) return false;
    columns.timestampsMs[n] = time;
    if (text === undefined) columns.values[n] = value;
    else columns.setText(n, text);
    i = skipSpace(buf, i + 1);
    if (buf[i] === COMMA) {
      i = skipSpace(buf, i + 1);
      continue;
    }
    if (buf[i] !== CLOSE_BRACKET) return false;
    break;
  }
  return skipSpace(buf, i + 1) === buf.length;
}

/**
 * Decodes a JSON ingest body whose every metric is clean (known keys; string name and unit without
 * escapes; number or string value; number time; valid or absent ttl; allowed tenant) into
 * `columns`, with exactly JSON.parse's numbers. Returns false for anything else (the columns must
 * then be reset): the caller uses the full decoder, which yields the same points for clean bodies
 * (a property test checks) and the error entries.
 */
export function decodeJsonInto(raw: Buffer, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder): boolean {
  return runDecodeLoop(decode, raw, scope, scratch, columns);
}

/** The points of a clean JSON ingest body (see decodeJsonInto), or undefined. */
export function fastJsonIngest(raw: Buffer, scope: IngestScope, scratch?: DecodeScratch, columns?: PointColumnsBuilder): IngestMapping | undefined {
  return decodeClean(decodeJsonInto, raw, scope, scratch, columns);
}
