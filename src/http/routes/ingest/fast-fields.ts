// Owns what the fast ingest decoders share: key recognition and turning one metric's fields into a point.
import type { Point } from '../../../model/sample.js';
import type { IngestScope } from './ingest-body.js';

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

const KEY_BYTES = ['metricName', 'metricValue', 'collectionTime', 'ttlInSeconds', 'unit', 'tenantId'].map((key) => Buffer.from(key, 'latin1'));
/** Key index by key length: the six keys all have different lengths, so one compare settles a key. */
const KEY_BY_LENGTH: readonly number[] = (() => {
  const table = new Array<number>(16).fill(KEY_UNKNOWN);
  KEY_BYTES.forEach((bytes, k) => (table[bytes.length] = k));
  return table;
})();

/** The key whose bytes are buf[start, end), or KEY_UNKNOWN. */
export function keyAt(buf: Uint8Array, start: number, end: number): number {
  const length = end - start;
  const k = length < KEY_BY_LENGTH.length ? (KEY_BY_LENGTH[length] as number) : KEY_UNKNOWN;
  if (k === KEY_UNKNOWN) return KEY_UNKNOWN;
  const key = KEY_BYTES[k] as Buffer;
  for (let i = 0; i < length; i++) if (buf[start + i] !== key[i]) return KEY_UNKNOWN;
  return k;
}

/** Largest ttlInSeconds (Blueflood: Integer.MAX_VALUE). */
export const TTL_SECONDS_MAX = 2_147_483_647;

/** The fields of one metric as a fast decoder read them; undefined when absent. */
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

/** Records a decoded key/value in `fields`; false when the value's type does not fit the key (the decoder then bails). */
export function storeField(fields: MetricFields, key: number, value: number | string): boolean {
  if (key === KEY_VALUE) fields.value = value;
  else if (typeof value === 'string') {
    if (key === KEY_NAME) fields.name = value;
    else if (key === KEY_UNIT) fields.unit = value;
    else if (key === KEY_TENANT) fields.tenant = value;
    else return false;
  } else if (key === KEY_TIME) fields.time = value;
  else if (key === KEY_TTL) fields.ttlOk = ttlAcceptable(value);
  else return false;
  return true;
}

/** Where a fast decoder puts the points it reads: an array of points, or columns for another thread. */
export interface PointSink {
  add(tenant: string, metric: string, timestamp: number, value: number | string, unit: string | undefined): void;
}

/** Collects points as Point objects. */
export class PointArraySink implements PointSink {
  readonly points: Point[] = [];

  add(tenant: string, metric: string, timestamp: number, value: number | string, unit: string | undefined): void {
    // One object shape for every point keeps the store's loops monomorphic.
    this.points.push({ tenant, metric, timestamp, value, unit });
  }
}

/**
 * Adds the point of a clean metric to `sink`; false when anything would need an error entry or a
 * skip: the fast decoders then hand the whole body to the full decoder, which reports it properly.
 */
export function emitPoint(fields: MetricFields, scope: IngestScope, sink: PointSink): boolean {
  if (fields.name === undefined || fields.value === undefined || fields.time === undefined || !fields.ttlOk) return false;
  let tenant: string;
  if (scope.multi) {
    if (fields.tenant === undefined || fields.tenant === '' || (!scope.anyTenant && fields.tenant !== scope.ownTenant)) return false;
    tenant = fields.tenant;
  } else {
    tenant = scope.tenant;
  }
  sink.add(tenant, fields.name, fields.time, fields.value, fields.unit);
  return true;
}
