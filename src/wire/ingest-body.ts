// Owns the full ingest decoder: any JSON or msgpack body parsed whole, then Blueflood metrics mapped onto the store's points.
import { Unpackr } from 'msgpackr';
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import { PointColumnsBuilder } from '../model/point-columns.js';
import type { BluefloodMetric } from './blueflood-metric.js';
import type { IngestErrorEntry, IngestFormat, IngestMapping, IngestScope } from './ingest-mapping.js';
import { tenantIdProblem, ttlAcceptable } from './metric-rules.js';
import { TTL_SECONDS_MAX } from './wire-limits.js';

/**
 * A msgpack decoder for ingest bodies; each IngestDecoder owns one. 64-bit integers (how msgpack
 * libraries other than msgpackr send millisecond times) decode to numbers, as JSON's do, rather
 * than to BigInt.
 */
export function ingestUnpackr(): Unpackr {
  return new Unpackr({ int64AsType: 'number', mapsAsObjects: true });
}

/**
 * Decodes a raw ingest body; throws HTTP_BODY_INVALID unless it is an array, INGEST_BATCH_TOO_LARGE
 * when it holds more than INGEST_BATCH_POINTS_MAX metrics.
 */
export function decodeIngestBody(raw: unknown, format: IngestFormat, unpackr: Unpackr = ingestUnpackr()): unknown[] {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw new StrataError('HTTP_BODY_INVALID', 'The request body is empty; send an array of metrics.');
  let body: unknown;
  try {
    // JSON.parse instead of a prototype-scanning parser: only known fields are read from the
    // result, so a "__proto__" key is inert here.
    body = format === 'msgpack' ? unpackr.unpack(raw) : JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new StrataError('HTTP_BODY_INVALID', `Cannot parse content: ${(error as Error).message}`);
  }
  if (!Array.isArray(body)) throw new StrataError('HTTP_BODY_INVALID', 'The request body must be an array of metrics.');
  if (body.length > INGEST_BATCH_POINTS_MAX) {
    throw new StrataError('INGEST_BATCH_TOO_LARGE', `A batch may hold at most ${INGEST_BATCH_POINTS_MAX} metrics; this one holds ${body.length}.`, {
      points: body.length,
      limit: INGEST_BATCH_POINTS_MAX,
    });
  }
  return body;
}

function entry(index: number, tenantId: string, raw: BluefloodMetric, source: string, code: string, message: string): IngestErrorEntry {
  const metricName = typeof raw.metricName === 'string' ? raw.metricName : '';
  const base = { index, tenantId, metricName, source, message, code };
  return typeof raw.collectionTime === 'number' ? { ...base, timestamp: raw.collectionTime } : base;
}

/** Why a point is refused before reaching the store, or undefined when it may go on. */
function precheck(raw: BluefloodMetric, index: number, tenant: string): IngestErrorEntry | undefined {
  if (typeof raw.metricName !== 'string') return entry(index, tenant, raw, 'metricName', 'INGEST_POINT_MALFORMED', 'metricName must be a string');
  const value = raw.metricValue;
  if (typeof value !== 'number' && typeof value !== 'string') {
    return entry(index, tenant, raw, 'metricValue', 'INGEST_VALUE_INVALID', 'metricValue must be a number or a string');
  }
  if (typeof raw.collectionTime !== 'number') {
    return entry(index, tenant, raw, 'collectionTime', 'INGEST_TIMESTAMP_INVALID', 'collectionTime must be a number of milliseconds');
  }
  const ttl = raw.ttlInSeconds;
  if (ttl !== undefined && ttl !== null && !ttlAcceptable(ttl as number)) {
    return entry(index, tenant, raw, 'ttlInSeconds', 'INGEST_TTL_INVALID', `ttlInSeconds must be between 1 and ${TTL_SECONDS_MAX}`);
  }
  if (raw.unit !== undefined && raw.unit !== null && typeof raw.unit !== 'string') {
    return entry(index, tenant, raw, 'unit', 'INGEST_UNIT_INVALID', 'unit must be a string');
  }
  return undefined;
}

function tenantOf(raw: BluefloodMetric, index: number, scope: IngestScope): string | IngestErrorEntry {
  if (!scope.multi) return scope.tenant;
  const problem = tenantIdProblem(scope, raw.tenantId);
  if (problem === 'missing') {
    return entry(index, '', raw, 'tenantId', 'INGEST_TENANT_INVALID', 'tenantId is required for each metric of a multi-tenant batch');
  }
  if (problem === 'forbidden') {
    return entry(index, raw.tenantId as string, raw, 'tenantId', 'AUTH_TENANT_FORBIDDEN', 'the token does not grant access to this tenant');
  }
  return raw.tenantId as string;
}

/**
 * Maps body metrics onto store points. Shape errors the store cannot report in body terms are
 * refused here; value, time, name and unit rules stay with the store (one place for them).
 */
export function mapIngestItems(items: readonly unknown[], scope: IngestScope, columns = new PointColumnsBuilder()): IngestMapping {
  columns.reset();
  const errors: IngestErrorEntry[] = [];
  let positions: number[] | null = null;
  let skipped = 0;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const raw: BluefloodMetric = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as BluefloodMetric) : {};
    const tenant = tenantOf(raw, index, scope);
    let problem: IngestErrorEntry | undefined = typeof tenant === 'string' ? undefined : tenant;
    if (problem === undefined && raw.metricValue === null) {
      // Blueflood skips a null metricValue silently; clients send them for "no reading".
      skipped += 1;
      positions ??= Array.from({ length: columns.length }, (_, i) => i);
      continue;
    }
    problem ??= precheck(raw, index, tenant as string);
    if (problem !== undefined) {
      errors.push(problem);
      positions ??= Array.from({ length: columns.length }, (_, i) => i);
      continue;
    }
    columns.push(tenant as string, raw.metricName as string, raw.collectionTime as number, raw.metricValue as number | string, typeof raw.unit === 'string' ? raw.unit : undefined);
    if (positions !== null) positions.push(index);
  }
  return { columns, positions, errors, skipped };
}

const SOURCE_OF_FIELD: Readonly<Record<string, string>> = {
  tenant: 'tenantId',
  metric: 'metricName',
  timestamp: 'collectionTime',
  value: 'metricValue',
  unit: 'unit',
};

/** Error entries for the store's rejections, in body terms (index, field name). */
export function storeRejectionEntries(rejected: readonly { index: number; code: string; message: string; field: string }[], mapping: IngestMapping): IngestErrorEntry[] {
  return rejected.map((rejection) => {
    const index = mapping.positions === null ? rejection.index : (mapping.positions[rejection.index] ?? rejection.index);
    const { columns } = mapping;
    const known = rejection.index < columns.length;
    // A point carries its metric's name and time unchanged, so it stands in for the raw metric.
    const raw: BluefloodMetric = known ? { metricName: columns.metrics[rejection.index], collectionTime: columns.timestampsMs[rejection.index] } : {};
    return entry(index, known ? (columns.tenants[rejection.index] as string) : '', raw, SOURCE_OF_FIELD[rejection.field] ?? rejection.field, rejection.code, rejection.message);
  });
}
