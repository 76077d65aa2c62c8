// Owns validating a batch of points into columns, with one reason per rejected point.
import type { ErrorCode } from '../core/errors.js';
import {
  INGEST_FUTURE_SKEW_MS,
  METRIC_NAME_LENGTH_MAX,
  STRING_VALUE_LENGTH_MAX,
  TENANT_LENGTH_MAX,
  UNIT_LENGTH_MAX,
} from '../core/limits.js';
import { isoOrMs, isoUtc } from '../core/time.js';
import { PointColumnsBuilder, type PointColumns } from '../model/point-columns.js';
import type { Point } from '../model/sample.js';
import type { SeriesRegistry } from '../storage/series-registry.js';
import type { BatchColumns } from '../storage/wal-record.js';
import type { PointRejection } from '../store-types.js';

const TENANT_PATTERN = /^[A-Za-z0-9._-]+$/;
// Control characters would break glob matching, logs and the key separator.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/** With the u flag a surrogate pair is one code point, so this matches only a surrogate standing alone. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Timestamps below this look like seconds (1e11 ms is March 1973; 1e11 s is the year 5138). */
const SECONDS_HINT_BELOW = 1e11;

const UNCHECKED = Symbol('unchecked tenant');

/** The window of acceptable timestamps for a write at a given time. */
export interface TimeBounds {
  readonly oldestMs: number;
  readonly newestMs: number;
}

/**
 * Reusable column buffers for validation. A write is synchronous from validation to the head, so
 * one scratch per store is safe, and reusing it keeps the ingest path free of per-batch
 * allocations (large typed arrays count as external memory and would trigger full GCs).
 */
export class IngestScratch {
  /** Points of the object API as columns, before validation. */
  readonly points = new PointColumnsBuilder();
  seriesIds = new Uint32Array(0);
  timestampsMs = new Float64Array(0);
  values = new Float64Array(0);

  /** Ensures room for `n` points. */
  reserve(n: number): void {
    if (this.seriesIds.length >= n) return;
    this.seriesIds = new Uint32Array(n);
    this.timestampsMs = new Float64Array(n);
    this.values = new Float64Array(n);
  }
}

/** Accepted points as columns plus the rejections, in batch order. */
export interface ValidatedBatch {
  readonly columns: BatchColumns;
  readonly rejected: PointRejection[];
}

/** A rule a point broke: its code, the field and a message. */
type Problem = readonly [code: ErrorCode, field: string, message: string];

function timestampProblem(t: unknown, bounds: TimeBounds): Problem | undefined {
  if (typeof t !== 'number' || !Number.isSafeInteger(t)) {
    return ['INGEST_TIMESTAMP_INVALID', 'timestamp', `timestamp must be an integer number of milliseconds since the epoch, got ${String(t)}`];
  }
  const hint =
    t < SECONDS_HINT_BELOW && t * 1000 >= bounds.oldestMs && t * 1000 <= bounds.newestMs
      ? ' It looks like seconds; timestamps are milliseconds since the epoch.'
      : '';
  if (t < bounds.oldestMs) {
    return ['INGEST_TIMESTAMP_TOO_OLD', 'timestamp', `timestamp ${t} (${isoOrMs(t)}) is older than the FULL retention allows (oldest accepted ${isoUtc(bounds.oldestMs)}).${hint}`];
  }
  if (t > bounds.newestMs) {
    return ['INGEST_TIMESTAMP_IN_FUTURE', 'timestamp', `timestamp ${t} (${isoOrMs(t)}) is more than ${INGEST_FUTURE_SKEW_MS} ms in the future.${hint}`];
  }
  return undefined;
}

function metricProblem(metric: unknown): Problem | undefined {
  if (typeof metric !== 'string') return ['INGEST_METRIC_NAME_INVALID', 'metric', 'metric name must be a string'];
  if (metric.length === 0) return ['INGEST_METRIC_NAME_EMPTY', 'metric', 'metric name is empty'];
  if (metric.length > METRIC_NAME_LENGTH_MAX) return ['INGEST_METRIC_NAME_TOO_LONG', 'metric', `metric name is longer than ${METRIC_NAME_LENGTH_MAX} characters`];
  if (CONTROL_CHARS.test(metric)) return ['INGEST_METRIC_NAME_INVALID', 'metric', 'metric name holds control characters'];
  // A lone surrogate cannot be stored as UTF-8: it would become U+FFFD and two names would merge.
  if (LONE_SURROGATE.test(metric)) return ['INGEST_METRIC_NAME_INVALID', 'metric', 'metric name holds a lone UTF-16 surrogate (not valid Unicode)'];
  return undefined;
}

/** The store's tenant rule: 1 to TENANT_LENGTH_MAX letters, digits, '.', '_' or '-' (the CLI checks tenants it is given with it). */
export function tenantValid(tenant: unknown): tenant is string {
  return typeof tenant === 'string' && tenant.length > 0 && tenant.length <= TENANT_LENGTH_MAX && TENANT_PATTERN.test(tenant);
}

function valueProblem(value: unknown): Problem | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : ['INGEST_VALUE_NOT_FINITE', 'value', `value must be finite, got ${value}`];
  if (typeof value === 'string' && value.length <= STRING_VALUE_LENGTH_MAX) return undefined;
  return ['INGEST_VALUE_INVALID', 'value', `value must be a finite number or a string of at most ${STRING_VALUE_LENGTH_MAX} characters`];
}

/**
 * The first rule a point breaks, in the order tenant, metric, timestamp, value, unit; undefined
 * when it breaks none. `metricKnown` skips the name rules for a series already registered.
 */
function pointProblem(tenant: unknown, metric: unknown, metricKnown: boolean, timestamp: unknown, value: unknown, unit: unknown, bounds: TimeBounds): Problem | undefined {
  if (!tenantValid(tenant)) return ['INGEST_TENANT_INVALID', 'tenant', `tenant must be 1 to ${TENANT_LENGTH_MAX} letters, digits, '.', '_' or '-'`];
  const problem = (metricKnown ? undefined : metricProblem(metric)) ?? timestampProblem(timestamp, bounds) ?? valueProblem(value);
  if (problem !== undefined) return problem;
  if (unit !== undefined && (typeof unit !== 'string' || unit.length > UNIT_LENGTH_MAX)) {
    return ['INGEST_UNIT_INVALID', 'unit', `unit must be a string of at most ${UNIT_LENGTH_MAX} characters`];
  }
  return undefined;
}

function rejection(index: number, problem: Problem): PointRejection {
  return { index, code: problem[0], field: problem[1], message: problem[2] };
}

const NO_METRICS: ReadonlyMap<string, number> = new Map();

/**
 * Validates every point of a column batch and resolves its series (registering new ones in
 * `registry`, pending persistence). The hot path checks a point of a registered series inline and
 * takes the rule chain only when something is off. The returned columns are views into `scratch`,
 * valid until the next call.
 */
export function validateColumns(batch: PointColumns, registry: SeriesRegistry, bounds: TimeBounds, scratch: IngestScratch): ValidatedBatch {
  const n = batch.length;
  scratch.reserve(n);
  const { seriesIds, timestampsMs: outTimes, values: outValues } = scratch;
  const { tenants, metrics, timestampsMs, values, units } = batch;
  const texts = batch.strings;
  const { oldestMs, newestMs } = bounds;
  let strings: Map<number, string> | null = null;
  const rejected: PointRejection[] = [];
  // A sentinel no point carries, so even a missing tenant (undefined) is checked.
  let lastTenant: unknown = UNCHECKED;
  let tenantOk = false;
  let metricsOfTenant = NO_METRICS;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const tenant = tenants[i] as string;
    if (tenant !== lastTenant) {
      lastTenant = tenant;
      tenantOk = tenantValid(tenant);
      metricsOfTenant = tenantOk ? registry.liveMetricsOf(tenant) : NO_METRICS;
    }
    const metric = metrics[i] as string;
    let id = metricsOfTenant.get(metric);
    const t = timestampsMs[i] as number;
    const v = values[i] as number;
    const text = v !== v && texts !== null ? texts.get(i) : undefined;
    const unit = units === null ? undefined : units[i];
    if (
      id === undefined ||
      // A unit the series already has changes nothing (clients send it with every point).
      (unit !== undefined && unit !== registry.row(id)?.unit) ||
      !(t >= oldestMs && t <= newestMs && Number.isSafeInteger(t)) ||
      !(text === undefined ? Number.isFinite(v) : typeof text === 'string' && text.length <= STRING_VALUE_LENGTH_MAX)
    ) {
      const value: unknown = text === undefined ? v : text;
      const problem = pointProblem(tenant, metric, id !== undefined, t, value, unit, bounds);
      if (problem !== undefined) {
        rejected.push(rejection(i, problem));
        continue;
      }
      if (id === undefined || unit !== undefined) id = registry.resolve(tenant, metric, unit);
      if (typeof value === 'string') (strings ??= new Map()).set(count, value);
      outValues[count] = typeof value === 'number' ? value : NaN;
    } else {
      if (text !== undefined) (strings ??= new Map()).set(count, text);
      outValues[count] = v;
    }
    seriesIds[count] = id;
    outTimes[count] = t;
    count++;
  }
  const columns: BatchColumns = {
    length: count,
    seriesIds: seriesIds.subarray(0, count),
    timestampsMs: outTimes.subarray(0, count),
    values: outValues.subarray(0, count),
    strings,
  };
  return { columns, rejected };
}

function hasPointTypes(p: Point): boolean {
  const { tenant, metric, timestamp, value, unit } = p;
  return (
    typeof tenant === 'string' &&
    typeof metric === 'string' &&
    typeof timestamp === 'number' &&
    (typeof value === 'number' || typeof value === 'string') &&
    (unit === undefined || typeof unit === 'string')
  );
}

/**
 * Validates a batch of point objects: points whose fields have the wrong types are refused here
 * (with the first rule they break, as validateColumns orders them); the rest go through
 * validateColumns as columns, so both write paths share one set of rules.
 */
export function validateBatch(points: readonly Point[], registry: SeriesRegistry, bounds: TimeBounds, scratch: IngestScratch): ValidatedBatch {
  const built = scratch.points;
  built.reset();
  const refused: PointRejection[] = [];
  /** Batch index of each built point; null while every point so far was built. */
  let positions: number[] | null = null;
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as Point;
    if (typeof p === 'object' && p !== null && hasPointTypes(p)) {
      if (positions !== null) positions.push(i);
      built.push(p.tenant, p.metric, p.timestamp, p.value, p.unit);
      continue;
    }
    positions ??= Array.from({ length: built.length }, (_, k) => k);
    const problem: Problem =
      typeof p !== 'object' || p === null
        ? ['INGEST_POINT_MALFORMED', 'point', 'point must be an object with tenant, metric, timestamp and value']
        : (pointProblem(p.tenant, p.metric, false, p.timestamp, p.value, p.unit, bounds) as Problem);
    refused.push(rejection(i, problem));
  }
  const batch = validateColumns(built, registry, bounds, scratch);
  if (positions === null) return batch;
  const sourceOf = positions;
  const rejected = [...refused, ...batch.rejected.map((r) => ({ ...r, index: sourceOf[r.index] as number }))].sort((a, b) => a.index - b.index);
  return { columns: batch.columns, rejected };
}
