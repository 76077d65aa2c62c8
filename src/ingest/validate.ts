// Owns validating a batch of points into columns, with one reason per rejected point.
import type { ErrorCode } from '../core/errors.js';
import {
  INGEST_FUTURE_SKEW_MS,
  METRIC_NAME_LENGTH_MAX,
  STRING_VALUE_LENGTH_MAX,
  TENANT_LENGTH_MAX,
  UNIT_LENGTH_MAX,
} from '../core/limits.js';
import { isoUtc } from '../core/time.js';
import type { Point } from '../model/sample.js';
import type { SeriesRegistry } from '../storage/series-registry.js';
import type { BatchColumns } from '../storage/wal-record.js';
import type { PointRejection } from '../store-types.js';

const TENANT_PATTERN = /^[A-Za-z0-9._-]+$/;
// Control characters would break glob matching, logs and the key separator.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
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

function reject(rejected: PointRejection[], index: number, code: ErrorCode, field: string, message: string): void {
  rejected.push({ index, code, field, message });
}

function timestampProblem(t: unknown, bounds: TimeBounds): [ErrorCode, string] | undefined {
  if (typeof t !== 'number' || !Number.isSafeInteger(t)) {
    return ['INGEST_TIMESTAMP_INVALID', `timestamp must be an integer number of milliseconds since the epoch, got ${String(t)}`];
  }
  const hint =
    t < SECONDS_HINT_BELOW && t * 1000 >= bounds.oldestMs && t * 1000 <= bounds.newestMs
      ? ' It looks like seconds; timestamps are milliseconds since the epoch.'
      : '';
  if (t < bounds.oldestMs) {
    return ['INGEST_TIMESTAMP_TOO_OLD', `timestamp ${t} (${safeIso(t)}) is older than the FULL retention allows (oldest accepted ${isoUtc(bounds.oldestMs)}).${hint}`];
  }
  if (t > bounds.newestMs) {
    return ['INGEST_TIMESTAMP_IN_FUTURE', `timestamp ${t} (${safeIso(t)}) is more than ${INGEST_FUTURE_SKEW_MS} ms in the future.${hint}`];
  }
  return undefined;
}

function safeIso(t: number): string {
  return Math.abs(t) <= 8.64e15 ? isoUtc(t) : 'out of range';
}

function metricProblem(metric: unknown): [ErrorCode, string] | undefined {
  if (typeof metric !== 'string') return ['INGEST_METRIC_NAME_INVALID', 'metric name must be a string'];
  if (metric.length === 0) return ['INGEST_METRIC_NAME_EMPTY', 'metric name is empty'];
  if (metric.length > METRIC_NAME_LENGTH_MAX) return ['INGEST_METRIC_NAME_TOO_LONG', `metric name is longer than ${METRIC_NAME_LENGTH_MAX} characters`];
  if (CONTROL_CHARS.test(metric)) return ['INGEST_METRIC_NAME_INVALID', 'metric name holds control characters'];
  return undefined;
}

function tenantValid(tenant: unknown): tenant is string {
  return typeof tenant === 'string' && tenant.length > 0 && tenant.length <= TENANT_LENGTH_MAX && TENANT_PATTERN.test(tenant);
}

function valueProblem(value: unknown): [ErrorCode, string] | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : ['INGEST_VALUE_NOT_FINITE', `value must be finite, got ${value}`];
  if (typeof value === 'string' && value.length <= STRING_VALUE_LENGTH_MAX) return undefined;
  return ['INGEST_VALUE_INVALID', `value must be a finite number or a string of at most ${STRING_VALUE_LENGTH_MAX} characters`];
}

/**
 * Validates every point and resolves its series (registering new ones in `registry`, pending
 * persistence). The hot path: points of a series already registered skip the name checks. The
 * returned columns are views into `scratch`, valid until the next call.
 */
export function validateBatch(points: readonly Point[], registry: SeriesRegistry, bounds: TimeBounds, scratch: IngestScratch): ValidatedBatch {
  const n = points.length;
  scratch.reserve(n);
  const { seriesIds, timestampsMs, values } = scratch;
  let strings: Map<number, string> | null = null;
  const rejected: PointRejection[] = [];
  // A sentinel no point carries, so even a missing tenant (undefined) is checked.
  let lastTenant: unknown = UNCHECKED;
  let metricsOfTenant: ReadonlyMap<string, number> = new Map();
  let count = 0;
  for (let i = 0; i < n; i++) {
    const p = points[i] as Point;
    if (typeof p !== 'object' || p === null) {
      reject(rejected, i, 'INGEST_POINT_MALFORMED', 'point', 'point must be an object with tenant, metric, timestamp and value');
      continue;
    }
    const { tenant, metric, timestamp, value, unit } = p;
    if (tenant !== lastTenant) {
      if (!tenantValid(tenant)) {
        reject(rejected, i, 'INGEST_TENANT_INVALID', 'tenant', `tenant must be 1 to ${TENANT_LENGTH_MAX} letters, digits, '.', '_' or '-'`);
        continue;
      }
      lastTenant = tenant;
      metricsOfTenant = registry.liveMetricsOf(tenant);
    }
    let id = typeof metric === 'string' ? metricsOfTenant.get(metric) : undefined;
    if (id === undefined) {
      const problem = metricProblem(metric);
      if (problem) {
        reject(rejected, i, problem[0], 'metric', problem[1]);
        continue;
      }
    }
    const tsProblem = timestampProblem(timestamp, bounds);
    if (tsProblem) {
      reject(rejected, i, tsProblem[0], 'timestamp', tsProblem[1]);
      continue;
    }
    const vProblem = valueProblem(value);
    if (vProblem) {
      reject(rejected, i, vProblem[0], 'value', vProblem[1]);
      continue;
    }
    if (unit !== undefined && (typeof unit !== 'string' || unit.length > UNIT_LENGTH_MAX)) {
      reject(rejected, i, 'INGEST_UNIT_INVALID', 'unit', `unit must be a string of at most ${UNIT_LENGTH_MAX} characters`);
      continue;
    }
    if (id === undefined || unit !== undefined) id = registry.resolve(tenant, metric, unit);
    seriesIds[count] = id;
    timestampsMs[count] = timestamp;
    if (typeof value === 'number') {
      values[count] = value;
    } else {
      values[count] = NaN;
      (strings ??= new Map()).set(count, value);
    }
    count++;
  }
  const columns: BatchColumns = {
    length: count,
    seriesIds: seriesIds.subarray(0, count),
    timestampsMs: timestampsMs.subarray(0, count),
    values: values.subarray(0, count),
    strings,
  };
  return { columns, rejected };
}
