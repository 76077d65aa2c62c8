// Owns the fast msgpack ingest decoder: an array of metric maps straight to points, no intermediate objects.
import { INGEST_BATCH_POINTS_MAX } from '../../../core/limits.js';
import type { Point } from '../../../model/sample.js';
import type { IngestMapping, IngestScope } from './ingest-body.js';
import {
  emitPoint,
  emptyFields,
  keyAtView,
  KEY_NAME,
  KEY_TENANT,
  KEY_TIME,
  KEY_TTL,
  KEY_UNIT,
  KEY_UNKNOWN,
  KEY_VALUE,
  resetFields,
  ttlAcceptable,
  type MetricFields,
} from './fast-fields.js';
import { FNV_OFFSET, FNV_PRIME, NameCache } from './name-cache.js';

const TWO_POW_32 = 4_294_967_296;
/** Returned by the helpers when the body leaves the fast path. */
const BAIL = -1;

/** Scratch state of one decode: the body, a view on it and the last value read. */
interface Reader {
  readonly buf: Buffer;
  readonly view: DataView;
  readonly names: NameCache;
  number: number;
  text: string;
  isText: boolean;
}

/** Length of a str whose type byte is at i (its bytes start at the returned index's meaning: see strStart), or BAIL. */
function strHeader(r: Reader, i: number): number {
  const type = r.buf[i] as number;
  if (type >= 0xa0 && type <= 0xbf) return type & 0x1f;
  if (type === 0xd9) return r.buf[i + 1] ?? BAIL;
  if (type === 0xda && i + 3 <= r.buf.length) return r.view.getUint16(i + 1);
  if (type === 0xdb && i + 5 <= r.buf.length) return r.view.getUint32(i + 1);
  return BAIL;
}

/** Bytes of a str header whose type byte is `type`. */
function strHeaderSize(type: number): number {
  return type <= 0xbf ? 1 : type === 0xd9 ? 2 : type === 0xda ? 3 : 5;
}

/** Reads a str or number value at i into the reader; returns the index after it, or BAIL for any other type. */
function readScalar(r: Reader, i: number): number {
  const buf = r.buf;
  const type = buf[i] as number;
  // float64 first: msgpackr writes every non-integer and every integer beyond 32 bits so.
  if (type === 0xcb) {
    r.isText = false;
    r.number = r.view.getFloat64(i + 1);
    return i + 9;
  }
  if (type <= 0x7f || type >= 0xe0) {
    r.isText = false;
    r.number = type <= 0x7f ? type : type - 0x100;
    return i + 1;
  }
  const length = strHeader(r, i);
  if (length !== BAIL) {
    const start = i + strHeaderSize(type);
    const end = start + length;
    if (end > buf.length) return BAIL;
    let hash = FNV_OFFSET;
    for (let j = start; j < end; j++) hash = Math.imul(hash ^ (buf[j] as number), FNV_PRIME);
    r.isText = true;
    r.text = r.names.text(buf, start, end, hash);
    return end;
  }
  r.isText = false;
  const view = r.view;
  const at = i + 1;
  // DataView reads past the end throw RangeError, which the caller turns into a bail.
  switch (type) {
    case 0xcb: r.number = view.getFloat64(at); return at + 8;
    case 0xca: r.number = view.getFloat32(at); return at + 4;
    case 0xcc: r.number = view.getUint8(at); return at + 1;
    case 0xcd: r.number = view.getUint16(at); return at + 2;
    case 0xce: r.number = view.getUint32(at); return at + 4;
    case 0xcf: r.number = view.getUint32(at) * TWO_POW_32 + view.getUint32(at + 4); return at + 8;
    case 0xd0: r.number = view.getInt8(at); return at + 1;
    case 0xd1: r.number = view.getInt16(at); return at + 2;
    case 0xd2: r.number = view.getInt32(at); return at + 4;
    case 0xd3: r.number = view.getInt32(at) * TWO_POW_32 + view.getUint32(at + 4); return at + 8;
    default: return BAIL;
  }
}

/** Size of the container (array when `array`, else map) whose header is at i, and the index after it, or BAIL. */
function containerHeader(r: Reader, i: number, array: boolean): [size: number, next: number] | undefined {
  const type = r.buf[i];
  if (type === undefined) return undefined;
  const fix = array ? 0x90 : 0x80;
  if (type >= fix && type <= fix + 0x0f) return [type & 0x0f, i + 1];
  if (type === (array ? 0xdc : 0xde) && i + 3 <= r.buf.length) return [r.view.getUint16(i + 1), i + 3];
  if (type === (array ? 0xdd : 0xdf) && i + 5 <= r.buf.length) return [r.view.getUint32(i + 1), i + 5];
  return undefined;
}

/** Reads the value of a known key at i; returns the index after it, or BAIL when its type does not fit the key. */
function readField(r: Reader, i: number, key: number, fields: MetricFields): number {
  const next = readScalar(r, i);
  if (next === BAIL) return BAIL;
  if (key === KEY_VALUE) fields.value = r.isText ? r.text : r.number;
  else if (r.isText) {
    if (key === KEY_NAME) fields.name = r.text;
    else if (key === KEY_UNIT) fields.unit = r.text;
    else if (key === KEY_TENANT) fields.tenant = r.text;
    else return BAIL;
  } else if (key === KEY_TIME) fields.time = r.number;
  else if (key === KEY_TTL) fields.ttlOk = ttlAcceptable(r.number);
  else return BAIL;
  return next;
}

function decode(r: Reader, scope: IngestScope, points: Point[]): boolean {
  const buf = r.buf;
  const top = containerHeader(r, 0, true);
  // Empty and oversized batches get their coded errors from the full decoder.
  if (top === undefined || top[0] === 0 || top[0] > INGEST_BATCH_POINTS_MAX) return false;
  let i = top[1];
  const fields = emptyFields();
  for (let m = 0; m < top[0]; m++) {
    resetFields(fields);
    let size: number;
    const type = buf[i] as number;
    if (type >= 0x80 && type <= 0x8f) {
      size = type & 0x0f;
      i += 1;
    } else {
      const header = containerHeader(r, i, false);
      if (header === undefined) return false;
      [size, i] = header;
    }
    for (let k = 0; k < size; k++) {
      const keyType = buf[i] as number;
      // Keys are nearly always fixstr; other str headers take the general path.
      const keyLength = keyType >= 0xa0 && keyType <= 0xbf ? keyType & 0x1f : strHeader(r, i);
      if (keyLength === BAIL) return false;
      const keyStart = i + strHeaderSize(keyType);
      const key = keyAtView(r.view, keyStart, keyLength);
      if (key === KEY_UNKNOWN) return false;
      i = readField(r, keyStart + keyLength, key, fields);
      if (i === BAIL) return false;
    }
    if (!emitPoint(fields, scope, points)) return false;
  }
  return i === buf.length;
}

/**
 * Decodes a msgpack ingest body whose every metric is clean (known keys; string name and unit;
 * number or string value; number time; valid or absent ttl; allowed tenant) into `points`. Returns
 * false for anything else (the points must then be dropped): the caller uses the full decoder,
 * which yields the same points for clean bodies (a property test checks) and the error entries.
 */
export function decodeMsgpackInto(raw: Buffer, scope: IngestScope, names: NameCache, points: Point[]): boolean {
  const reader: Reader = { buf: raw, view: new DataView(raw.buffer, raw.byteOffset, raw.byteLength), names, number: 0, text: '', isText: false };
  try {
    return decode(reader, scope, points);
  } catch (error) {
    // DataView reads past the end of a truncated body.
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** The points of a clean msgpack ingest body (see decodeMsgpackInto), or undefined. */
export function fastMsgpackIngest(raw: Buffer, scope: IngestScope, names: NameCache = new NameCache()): IngestMapping | undefined {
  const points: Point[] = [];
  return decodeMsgpackInto(raw, scope, names, points) ? { points, positions: null, errors: [], skipped: 0 } : undefined;
}
