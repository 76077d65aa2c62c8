// Owns what the fast ingest decoder needs besides msgpack itself: key recognition and turning one metric's fields into a point.
import type { Point } from '../../../model/sample.js';
import type { IngestScope } from './ingest-body.js';

/** A body key the fast decoder recognises, by index; KEY_UNKNOWN makes it fall back to the full decoder. */
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

const KEY_BYTES = ['metricName', 'metricValue', 'collectionTime', 'ttlInSeconds', 'unit', 'tenantId'].map((key) => Buffer.from(key, 'latin1'));
/** Key index by key length: the six keys all have different lengths, so one compare settles a key. */
const KEY_BY_LENGTH: readonly number[] = (() => {
  const table = new Array<number>(16).fill(KEY_UNKNOWN);
  KEY_BYTES.forEach((bytes, k) => (table[bytes.length] = k));
  return table;
})();

/** A key's bytes as big-endian 32-bit words (the last one zero-padded) for word-wise compares. */
const KEY_WORDS: readonly (readonly number[])[] = KEY_BYTES.map((bytes) => {
  const padded = Buffer.alloc(Math.ceil(bytes.length / 4) * 4);
  bytes.copy(padded);
  return Array.from({ length: padded.length / 4 }, (_, w) => padded.readUInt32BE(w * 4));
});
/** Masks keeping the meaningful bytes of a key's last word. */
const LAST_WORD_MASKS = [0xffffffff, 0xff000000, 0xffff0000, 0xffffff00];

/**
 * The key at view[start, start + length), compared a 32-bit word at a time (a third of the work of
 * a byte loop). The last word may read up to three bytes past the key, which belong to the value
 * that follows; a body that ends there throws RangeError, which makes the decoder bail.
 */
export function keyAtView(view: DataView, start: number, length: number): number {
  const k = length < KEY_BY_LENGTH.length ? (KEY_BY_LENGTH[length] as number) : KEY_UNKNOWN;
  if (k === KEY_UNKNOWN) return KEY_UNKNOWN;
  const words = KEY_WORDS[k] as readonly number[];
  const last = words.length - 1;
  for (let w = 0; w < last; w++) if (view.getUint32(start + w * 4) !== words[w]) return KEY_UNKNOWN;
  const mask = LAST_WORD_MASKS[length % 4] as number;
  return ((view.getUint32(start + last * 4) & mask) >>> 0) === words[last] ? k : KEY_UNKNOWN;
}

/** Largest ttlInSeconds (Blueflood: Integer.MAX_VALUE). */
export const TTL_SECONDS_MAX = 2_147_483_647;

/** The fields of one metric as the fast decoder read them; undefined when absent. */
export interface MetricFields {
  name: string | undefined;
  value: number | string | undefined;
  time: number | undefined;
  /** True when ttlInSeconds was absent or a valid integer. */
  ttlOk: boolean;
  unit: string | undefined;
  tenant: string | undefined;
}

/** A fresh, empty field set (reused across metrics by the decoders). */
export function emptyFields(): MetricFields {
  return { name: undefined, value: undefined, time: undefined, ttlOk: true, unit: undefined, tenant: undefined };
}

/** Clears a field set for the next metric. */
export function resetFields(fields: MetricFields): void {
  fields.name = undefined;
  fields.value = undefined;
  fields.time = undefined;
  fields.ttlOk = true;
  fields.unit = undefined;
  fields.tenant = undefined;
}

/** True when a ttlInSeconds value is acceptable (the full decoder's rule). */
export function ttlAcceptable(ttl: number): boolean {
  return Number.isInteger(ttl) && ttl >= 1 && ttl <= TTL_SECONDS_MAX;
}

/**
 * Appends the point of a clean metric to `points`; false when anything would need an error entry
 * or a skip: the fast decoder then hands the whole body to the full decoder, which reports it.
 */
export function emitPoint(fields: MetricFields, scope: IngestScope, points: Point[]): boolean {
  if (fields.name === undefined || fields.value === undefined || fields.time === undefined || !fields.ttlOk) return false;
  let tenant: string;
  if (scope.multi) {
    if (fields.tenant === undefined || fields.tenant === '' || (!scope.anyTenant && fields.tenant !== scope.ownTenant)) return false;
    tenant = fields.tenant;
  } else {
    tenant = scope.tenant;
  }
  // One object shape for every point keeps the store's loops monomorphic.
  points.push({ tenant, metric: fields.name, timestamp: fields.time, value: fields.value, unit: fields.unit });
  return true;
}
