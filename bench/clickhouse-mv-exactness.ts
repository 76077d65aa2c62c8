// Owns the MV probe's exactness check: every MIN5 bucket as the materialized views merged it against the raw points' deduplicated (FINAL) aggregation.
import { chRows } from './clickhouse-http.js';

/** Relative tolerance for the average (the MV sums in another order than the raw GROUP BY). */
const AVERAGE_TOLERANCE = 1e-9;
/** Relative tolerance for the population variance (the reference measured agreement within 1e-6). */
const VARIANCE_TOLERANCE = 1e-6;
const BUCKET_MS = 300_000;

/** How the MV's MIN5 buckets compare with the raw points read with FINAL (last write wins). */
export interface Min5Comparison {
  readonly rawBuckets: number;
  readonly mvBuckets: number;
  /** Buckets in one side only. */
  readonly missing: number;
  readonly countDiffers: number;
  readonly averageDiffers: number;
  readonly varianceDiffers: number;
  readonly minMaxDiffers: number;
  /** Buckets where count or average differ (or missing): wrong answers to a plot. */
  readonly wrongBuckets: number;
}

interface Bucket {
  readonly count: number;
  readonly average: number;
  readonly variance: number;
  readonly min: number;
  readonly max: number;
}

function relativeDiffers(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) > tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

async function buckets(url: string, database: string, sql: string): Promise<Map<string, Bucket>> {
  const out = new Map<string, Bucket>();
  for (const [series, bucket, count, average, variance, min, max] of await chRows(url, sql, database)) {
    out.set(`${series}:${bucket}`, { count: Number(count), average: Number(average), variance: Number(variance), min: Number(min), max: Number(max) });
  }
  return out;
}

/** Compares the MIN5 buckets of `database`'s agg_min5 (merged states) with points_local FINAL. */
export async function compareMin5(url: string, database: string): Promise<Min5Comparison> {
  const mv = await buckets(
    url,
    database,
    'SELECT series, bucket, countMerge(cnt), avgMerge(avg_state), varPopMerge(var_state), minMerge(min_state), maxMerge(max_state) FROM agg_min5 GROUP BY series, bucket',
  );
  const raw = await buckets(
    url,
    database,
    `SELECT series, intDiv(ts, ${BUCKET_MS}) * ${BUCKET_MS} AS bucket, count(), avg(value), varPop(value), min(value), max(value) FROM points_local FINAL WHERE kind = 0 GROUP BY series, bucket`,
  );
  let missing = 0;
  let countDiffers = 0;
  let averageDiffers = 0;
  let varianceDiffers = 0;
  let minMaxDiffers = 0;
  let wrongBuckets = 0;
  for (const [key, r] of raw) {
    const m = mv.get(key);
    if (m === undefined) {
      missing++;
      wrongBuckets++;
      continue;
    }
    const count = m.count !== r.count;
    const average = relativeDiffers(m.average, r.average, AVERAGE_TOLERANCE);
    if (count) countDiffers++;
    if (average) averageDiffers++;
    if (relativeDiffers(m.variance, r.variance, VARIANCE_TOLERANCE)) varianceDiffers++;
    if (m.min !== r.min || m.max !== r.max) minMaxDiffers++;
    if (count || average) wrongBuckets++;
  }
  for (const key of mv.keys()) {
    if (!raw.has(key)) {
      missing++;
      wrongBuckets++;
    }
  }
  return { rawBuckets: raw.size, mvBuckets: mv.size, missing, countDiffers, averageDiffers, varianceDiffers, minMaxDiffers, wrongBuckets };
}
