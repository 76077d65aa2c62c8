// Owns the limits and defaults of generated workloads (every option of `strata workload generate`), and checking options against them.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import { DAY_MS, SECOND_MS } from '../core/time.js';
import { RECORDING_FILE_BYTES_MAX } from '../recording/recording-limits.js';
import { chooseT0Ms } from './standard-workload.js';

/** Most series a generated workload has. */
export const WORKLOAD_SERIES_MAX = 100_000;
/** Most points per series. */
export const WORKLOAD_POINTS_MAX = 100_000;
/** Most points in all (series x points): the columns take 20 bytes a point in memory while the file is written. */
export const WORKLOAD_TOTAL_POINTS_MAX = 50_000_000;
/** Finest spacing of a series' points. */
export const WORKLOAD_INTERVAL_MS_MIN = SECOND_MS;
/** Coarsest spacing of a series' points. */
export const WORKLOAD_INTERVAL_MS_MAX = DAY_MS;
/** Most points in one ingest body: the server's own batch limit. */
export const WORKLOAD_BATCH_POINTS_MAX = INGEST_BATCH_POINTS_MAX;
/** Largest seed (seeds are unsigned 32-bit integers). */
export const WORKLOAD_SEED_MAX = 2 ** 32 - 1;
/** Latest reference "now": the largest time a JavaScript Date holds. */
export const WORKLOAD_END_MS_MAX = 8_640_000_000_000_000;
/** Highest replay-at-speed-1 rate, in points per second. */
export const WORKLOAD_RATE_MAX = 100_000_000;
/** Default replay-at-speed-1 rate, in points per second. */
export const WORKLOAD_RATE_DEFAULT = 100_000;
/** Most plot queries appended after the ingest. */
export const WORKLOAD_PLOTS_MAX = 100_000;
/** Plot queries appended by default. */
export const WORKLOAD_PLOTS_DEFAULT = 100;
/** Plot queries are spaced this far apart after the last ingest request. */
export const WORKLOAD_PLOT_SPACING_MS = 10;
/** Window of each plot query: the last day of the data (288 MIN5 buckets). */
export const WORKLOAD_PLOT_WINDOW_MS = DAY_MS;
/** ttlInSeconds of every generated metric, as Blueflood clients send it (2 days). */
export const WORKLOAD_TTL_SECONDS = 172_800;
/** Bound on one point's encoded size (JSON, with a unit and the longest metric name): sizes the file check below. */
export const WORKLOAD_POINT_BYTES_MAX = 200;

assert(WORKLOAD_TOTAL_POINTS_MAX <= WORKLOAD_SERIES_MAX * WORKLOAD_POINTS_MAX, 'the total limit binds below the product of the others');
assert(WORKLOAD_TOTAL_POINTS_MAX * WORKLOAD_POINT_BYTES_MAX < RECORDING_FILE_BYTES_MAX, 'the largest workload fits one recording file, so it never rotates');
assert(WORKLOAD_TOTAL_POINTS_MAX < 2 ** 32, 'point indices fit a Uint32Array');
assert(WORKLOAD_RATE_DEFAULT <= WORKLOAD_RATE_MAX && WORKLOAD_PLOTS_DEFAULT <= WORKLOAD_PLOTS_MAX, 'defaults within their limits');

/** The numeric options of a workload. */
export interface WorkloadShape {
  readonly series: number;
  readonly points: number;
  readonly intervalMs: number;
  readonly batchPoints: number;
  readonly seed: number;
  readonly endMs: number;
}

function checkRange(option: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new StrataError('CONFIG_INVALID', `${option} must be an integer from ${min} to ${max}, not ${value}`, { option, min, max, value });
  }
}

/** Throws CONFIG_INVALID naming the option when a workload's options break a limit, or its data would start before the epoch. */
export function checkWorkloadShape(shape: WorkloadShape): void {
  checkRange('series', shape.series, 1, WORKLOAD_SERIES_MAX);
  checkRange('points', shape.points, 1, WORKLOAD_POINTS_MAX);
  checkRange('intervalMs', shape.intervalMs, WORKLOAD_INTERVAL_MS_MIN, WORKLOAD_INTERVAL_MS_MAX);
  checkRange('batchPoints', shape.batchPoints, 1, WORKLOAD_BATCH_POINTS_MAX);
  checkRange('seed', shape.seed, 0, WORKLOAD_SEED_MAX);
  checkRange('endMs', shape.endMs, 0, WORKLOAD_END_MS_MAX);
  const total = shape.series * shape.points;
  if (total > WORKLOAD_TOTAL_POINTS_MAX) {
    throw new StrataError('CONFIG_INVALID', `series x points is ${total}, over the limit of ${WORKLOAD_TOTAL_POINTS_MAX} points`, { option: 'series', max: WORKLOAD_TOTAL_POINTS_MAX, value: total });
  }
  const t0Ms = chooseT0Ms(shape.endMs, shape.points, shape.intervalMs);
  if (t0Ms < 0) {
    throw new StrataError('CONFIG_INVALID', `the data would start before 1970 (t0 ${t0Ms}): raise endMs or lower points x intervalMs`, { option: 'endMs', value: shape.endMs, t0Ms });
  }
}
