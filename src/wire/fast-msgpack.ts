// Owns the fast msgpack ingest decoder: an array of metric maps straight to point columns, no object per metric.
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import type { PointColumnsBuilder } from '../model/point-columns.js';
import type { DecodeScratch, ReadCursor } from './decode-scratch.js';
import {
  decodeClean,
  emitPoint,
  isNameKey,
  isTimeKey,
  isTtlKey,
  isValueKey,
  keyAt,
  KEY_UNIT,
  KEY_UNKNOWN,
  runDecodeLoop,
  NAME_KEY_LENGTH,
  TIME_KEY_LENGTH,
  TTL_KEY_LENGTH,
  VALUE_KEY_LENGTH,
} from './fast-fields.js';
import type { IngestMapping, IngestScope } from './ingest-mapping.js';
import { ttlAcceptable } from './metric-rules.js';
import type { NameCache } from './name-cache.js';

const TWO_POW_32 = 4_294_967_296;
/** Returned by the helpers when the body leaves the fast path. */
const BAIL = -1;

// Each helper leaves in `read.next` the index just past what it read (BAIL when it bailed); `read`
// is the decoder's own cursor (DecodeScratch), passed down rather than kept at module level.

/**
 * Size of the container at i: an array (fix 0x90, 0xdc, 0xdd) when `fix` is 0x90, a map (0x80,
 * 0xde, 0xdf) when it is 0x80; BAIL for anything else. Past the end `buf[i]` is undefined, which
 * fails every comparison.
 */
function containerAt(buf: Buffer, view: DataView, i: number, fix: number, read: ReadCursor): number {
  const type = buf[i] as number;
  if (type >= fix && type <= fix + 0x0f) {
    read.next = i + 1;
    return type & 0x0f;
  }
  const wide = fix === 0x90 ? 0xdc : 0xde;
  if (type === wide) {
    read.next = i + 3;
    return view.getUint16(i + 1);
  }
  if (type === wide + 1) {
    read.next = i + 5;
    return view.getUint32(i + 1);
  }
  return BAIL;
}

/** Length of the str at i (read.next at its first byte), or BAIL when the value is no str. */
function strAt(buf: Buffer, view: DataView, i: number, read: ReadCursor): number {
  const type = buf[i] as number;
  if (type >= 0xa0 && type <= 0xbf) {
    read.next = i + 1;
    return type & 0x1f;
  }
  if (type === 0xd9) {
    read.next = i + 2;
    return view.getUint8(i + 1);
  }
  if (type === 0xda) {
    read.next = i + 3;
    return view.getUint16(i + 1);
  }
  if (type === 0xdb) {
    read.next = i + 5;
    return view.getUint32(i + 1);
  }
  return BAIL;
}

/** The number at i with read.next after it; read.next BAIL when the value is no number. */
function numberAt(buf: Buffer, view: DataView, i: number, read: ReadCursor): number {
  const type = buf[i] as number;
  // float64 first: msgpackr writes every non-integer and every integer beyond 32 bits so.
  if (type === 0xcb) {
    read.next = i + 9;
    return view.getFloat64(i + 1);
  }
  if (type >= 0 && type <= 0x7f) {
    read.next = i + 1;
    return type;
  }
  if (type >= 0xe0 && type <= 0xff) {
    read.next = i + 1;
    return type - 0x100;
  }
  const at = i + 1;
  switch (type) {
    case 0xca: read.next = at + 4; return view.getFloat32(at);
    case 0xcc: read.next = at + 1; return view.getUint8(at);
    case 0xcd: read.next = at + 2; return view.getUint16(at);
    case 0xce: read.next = at + 4; return view.getUint32(at);
    case 0xcf: read.next = at + 8; return view.getUint32(at) * TWO_POW_32 + view.getUint32(at + 4);
    case 0xd0: read.next = at + 1; return view.getInt8(at);
    case 0xd1: read.next = at + 2; return view.getInt16(at);
    case 0xd2: read.next = at + 4; return view.getInt32(at);
    case 0xd3: read.next = at + 8; return view.getInt32(at) * TWO_POW_32 + view.getUint32(at + 4);
    default: read.next = BAIL; return NaN;
  }
}

/** Reads the str at i as a string (interned unless `plain`); read.next after it, BAIL when the value is no str. */
function textAt(buf: Buffer, view: DataView, i: number, names: NameCache, plain: boolean, read: ReadCursor): string {
  const length = strAt(buf, view, i, read);
  if (length === BAIL) return '';
  const start = read.next;
  const end = start + length;
  if (end > buf.length) {
    read.next = BAIL;
    return '';
  }
  read.next = end;
  return plain ? buf.toString('utf8', start, end) : names.intern(buf, view, start, end);
}

/**
 * The decoding loop. The common encodings (fixstr keys and names, float64 values and times,
 * uint32 ttls) are read inline; the rest goes through the helpers above. Keys are told apart by
 * length (the six differ), then compared a word at a time.
 */
function decode(buf: Buffer, view: DataView, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder): boolean {
  // The decoder's own scratch, read into locals once per body.
  const names = scratch.names;
  const read = scratch.cursor;
  const count = containerAt(buf, view, 0, 0x90, read);
  // Empty and oversized batches get their coded errors from the full decoder.
  if (count === BAIL || count === 0 || count > INGEST_BATCH_POINTS_MAX) return false;
  let i = read.next;
  for (let m = 0; m < count; m++) {
    const size = containerAt(buf, view, i, 0x80, read);
    if (size === BAIL) return false;
    i = read.next;
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
    for (let k = 0; k < size; k++) {
      const keyType = buf[i] as number;
      // Keys are fixstr (every encoder writes such short keys so); anything else takes the full decoder.
      if (!(keyType >= 0xa0 && keyType <= 0xbf)) return false;
      const keyLength = keyType & 0x1f;
      const at = i + 1 + keyLength;
      const type = buf[at] as number;
      // The four keys of every metric are told apart by length and compared inline.
      if (keyLength === NAME_KEY_LENGTH) {
        if (!isNameKey(view, i + 1)) return false;
        if (type >= 0xa0 && type <= 0xbf) {
          i = at + 1 + (type & 0x1f);
          if (i > buf.length) return false;
          name = names.intern(buf, view, at + 1, i);
          continue;
        }
        name = textAt(buf, view, at, names, false, read);
      } else if (keyLength === VALUE_KEY_LENGTH) {
        if (!isValueKey(view, i + 1)) return false;
        haveValue = true;
        text = undefined;
        if (type === 0xcb) {
          value = view.getFloat64(at + 1);
          i = at + 9;
          continue;
        }
        value = numberAt(buf, view, at, read);
        if (read.next === BAIL) text = textAt(buf, view, at, names, true, read);
      } else if (keyLength === TIME_KEY_LENGTH) {
        if (!isTimeKey(view, i + 1)) return false;
        haveTime = true;
        if (type === 0xcb) {
          time = view.getFloat64(at + 1);
          i = at + 9;
          continue;
        }
        time = numberAt(buf, view, at, read);
      } else if (keyLength === TTL_KEY_LENGTH) {
        if (!isTtlKey(view, i + 1)) return false;
        if (type === 0xce) {
          ttlOk = ttlAcceptable(view.getUint32(at + 1));
          i = at + 5;
          continue;
        }
        ttlOk = ttlAcceptable(numberAt(buf, view, at, read));
      } else {
        const key = keyAt(view, i + 1, keyLength);
        if (key === KEY_UNKNOWN) return false;
        if (key === KEY_UNIT) unit = textAt(buf, view, at, names, false, read);
        else tenant = textAt(buf, view, at, names, false, read);
      }
      if (read.next === BAIL) return false;
      i = read.next;
    }
    const n = emitPoint(scope, columns, name, haveValue && haveTime && ttlOk, unit, tenant);
    if (n < 0) return false;
    columns.timestampsMs[n] = time;
    if (text === undefined) columns.values[n] = value;
    else columns.setText(n, text);
  }
  return i === buf.length;
}

/**
 * Decodes a msgpack ingest body whose every metric is clean (known keys; string name and unit;
 * number or string value; number time; valid or absent ttl; allowed tenant) into `columns`.
 * Returns false for anything else (the columns must then be reset): the caller uses the full
 * decoder, which yields the same points for clean bodies (a property test checks) and the error
 * entries.
 */
export function decodeMsgpackInto(raw: Buffer, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder): boolean {
  return runDecodeLoop(decode, raw, scope, scratch, columns);
}

/** The points of a clean msgpack ingest body (see decodeMsgpackInto), or undefined. */
export function fastMsgpackIngest(raw: Buffer, scope: IngestScope, scratch?: DecodeScratch, columns?: PointColumnsBuilder): IngestMapping | undefined {
  return decodeClean(decodeMsgpackInto, raw, scope, scratch, columns);
}
