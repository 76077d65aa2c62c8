// Owns what the fast ingest decoders share besides the wire format: key recognition and turning one metric's fields into a point.
import { PointColumnsBuilder } from '../model/point-columns.js';
import { DecodeScratch } from './decode-scratch.js';
import type { IngestMapping, IngestScope } from './ingest-mapping.js';
import { tenantIdProblem } from './metric-rules.js';

/** A body key the fast decoders recognise, by index; KEY_UNKNOWN makes them fall back to the full decoder. */
export const KEY_NAME = 0;
/** metricValue. */
export const KEY_VALUE = 1;
/** collectionTime. */
export const KEY_TIME = 2;
/** ttlInSeconds. */
export const KEY_TTL = 3;
/** unit. */
export const KEY_UNIT = 4;
/** tenantId (multi-tenant ingest). */
export const KEY_TENANT = 5;
/** Any other key. */
export const KEY_UNKNOWN = -1;

/** The body keys in KEY_* order. */
const KEY_TEXTS = ['metricName', 'metricValue', 'collectionTime', 'ttlInSeconds', 'unit', 'tenantId'] as const;

/**
 * A key's bytes as big-endian 32-bit words at offsets 0, 4, 8, ... and a last one ending exactly
 * at the key's end (overlapping the one before), so a compare never reads past the key.
 */
function keyWords(text: string): number[] {
  const bytes = Buffer.from(text, 'latin1');
  const words: number[] = [];
  for (let at = 0; at + 4 < bytes.length; at += 4) words.push(bytes.readInt32BE(at));
  words.push(bytes.readInt32BE(bytes.length - 4));
  return words;
}

/** Byte length of each key's text, by KEY_* index. */
export const KEY_LENGTHS: readonly number[] = KEY_TEXTS.map((text) => text.length);
// The lengths of the four keys of every metric, as module constants for the decoders' hot loops.
/** Byte length of "metricName". */
export const NAME_KEY_LENGTH = KEY_TEXTS[KEY_NAME].length;
/** Byte length of "metricValue". */
export const VALUE_KEY_LENGTH = KEY_TEXTS[KEY_VALUE].length;
/** Byte length of "collectionTime". */
export const TIME_KEY_LENGTH = KEY_TEXTS[KEY_TIME].length;
/** Byte length of "ttlInSeconds". */
export const TTL_KEY_LENGTH = KEY_TEXTS[KEY_TTL].length;

// Module constants, so the compares below compile to immediate operands.
const [NAME_0, NAME_4, NAME_6] = keyWords(KEY_TEXTS[KEY_NAME]) as [number, number, number];
const [VALUE_0, VALUE_4, VALUE_7] = keyWords(KEY_TEXTS[KEY_VALUE]) as [number, number, number];
const [TIME_0, TIME_4, TIME_8, TIME_10] = keyWords(KEY_TEXTS[KEY_TIME]) as [number, number, number, number];
const [TTL_0, TTL_4, TTL_8] = keyWords(KEY_TEXTS[KEY_TTL]) as [number, number, number];
const [UNIT_0] = keyWords(KEY_TEXTS[KEY_UNIT]) as [number];
const [TENANT_0, TENANT_4] = keyWords(KEY_TEXTS[KEY_TENANT]) as [number, number];

/** True when the 10 bytes at `at` are "metricName". */
export function isNameKey(view: DataView, at: number): boolean {
  return view.getInt32(at) === NAME_0 && view.getInt32(at + 4) === NAME_4 && view.getInt32(at + 6) === NAME_6;
}

/** True when the 11 bytes at `at` are "metricValue". */
export function isValueKey(view: DataView, at: number): boolean {
  return view.getInt32(at) === VALUE_0 && view.getInt32(at + 4) === VALUE_4 && view.getInt32(at + 7) === VALUE_7;
}

/** True when the 14 bytes at `at` are "collectionTime". */
export function isTimeKey(view: DataView, at: number): boolean {
  return view.getInt32(at) === TIME_0 && view.getInt32(at + 4) === TIME_4 && view.getInt32(at + 8) === TIME_8 && view.getInt32(at + 10) === TIME_10;
}

/** True when the 12 bytes at `at` are "ttlInSeconds". */
export function isTtlKey(view: DataView, at: number): boolean {
  return view.getInt32(at) === TTL_0 && view.getInt32(at + 4) === TTL_4 && view.getInt32(at + 8) === TTL_8;
}

/**
 * The key whose `length` bytes start at `at`, or KEY_UNKNOWN. The six keys' lengths all differ,
 * so the length picks the one candidate. The decoders test the four common keys inline first.
 */
export function keyAt(view: DataView, at: number, length: number): number {
  if (length === NAME_KEY_LENGTH) return isNameKey(view, at) ? KEY_NAME : KEY_UNKNOWN;
  if (length === VALUE_KEY_LENGTH) return isValueKey(view, at) ? KEY_VALUE : KEY_UNKNOWN;
  if (length === TIME_KEY_LENGTH) return isTimeKey(view, at) ? KEY_TIME : KEY_UNKNOWN;
  if (length === TTL_KEY_LENGTH) return isTtlKey(view, at) ? KEY_TTL : KEY_UNKNOWN;
  if (length === KEY_TEXTS[KEY_UNIT].length) return view.getInt32(at) === UNIT_0 ? KEY_UNIT : KEY_UNKNOWN;
  if (length === KEY_TEXTS[KEY_TENANT].length) return view.getInt32(at) === TENANT_0 && view.getInt32(at + 4) === TENANT_4 ? KEY_TENANT : KEY_UNKNOWN;
  return KEY_UNKNOWN;
}

/**
 * Appends the point of a clean metric to `columns` and returns its index, where the caller stores
 * the time and value (doubles stay out of this call: a non-inlined call would box them). Returns
 * -1 when anything would need an error entry or a skip: the fast decoder then hands the whole
 * body to the full decoder, which reports it.
 */
export function emitPoint(
  scope: IngestScope,
  columns: PointColumnsBuilder,
  name: string | undefined,
  complete: boolean,
  unit: string | undefined,
  tenantId: string | undefined,
): number {
  if (name === undefined || !complete) return -1;
  let tenant: string;
  if (scope.multi) {
    if (tenantIdProblem(scope, tenantId) !== undefined) return -1;
    tenant = tenantId as string;
  } else {
    tenant = scope.tenant;
  }
  return columns.add(tenant, name, unit);
}

/**
 * A fast decoder's loop over a body (`view` is a DataView over exactly `buf`), writing its scratch
 * (names, number slot, cursor) into its decoder's DecodeScratch; false means fall back.
 */
export type DecodeLoop = (buf: Buffer, view: DataView, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder) => boolean;

/**
 * Runs a decoder loop over a raw body. The loops read with DataView, which throws RangeError past
 * the end of a truncated body: that too means the body takes the full decoder.
 */
export function runDecodeLoop(loop: DecodeLoop, raw: Buffer, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder): boolean {
  try {
    return loop(raw, new DataView(raw.buffer, raw.byteOffset, raw.byteLength), scope, scratch, columns);
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** A decoder's `*Into` function: decodes a clean body into `columns`, or returns false. */
export type DecodeInto = (raw: Buffer, scope: IngestScope, scratch: DecodeScratch, columns: PointColumnsBuilder) => boolean;

/** The mapping of a clean body through a fast decoder, or undefined (for tests and tools). */
export function decodeClean(decodeInto: DecodeInto, raw: Buffer, scope: IngestScope, scratch = new DecodeScratch(), columns = new PointColumnsBuilder()): IngestMapping | undefined {
  columns.reset();
  return decodeInto(raw, scope, scratch, columns) ? { columns, positions: null, errors: [], skipped: 0 } : undefined;
}
