// Owns the standard benchmark workload: seeded series values in time-major order, and its 10,000-point batches.
import type { Point } from '../model/sample.js';
import { describeNabTiling, loadNabRecordings, nabValue } from './nab-recordings.js';
import { mulberry32, UINT32_RANGE } from './prng.js';

/** Value kinds: full-precision random walk, the same walk rounded to 2 decimals, or the NAB recordings. */
export type ValueKind = 'walk' | 'rounded' | 'nab';

/** Every value kind, in the order the benchmark runs them. */
export const VALUE_KINDS: readonly ValueKind[] = ['walk', 'rounded', 'nab'];

/** Series of the standard workload (issue 2, "Benchmarks"). */
export const STANDARD_SERIES = 1_000;
/** Points per series of the standard workload: 24 h at 30 s. */
export const STANDARD_POINTS = 2_880;
/** Spacing of the standard workload's points. */
export const STANDARD_INTERVAL_MS = 30_000;
/** Seed of the standard workload (the peers used 42). */
export const STANDARD_SEED = 42;
/** Points per write batch (the peers posted 10k lines per request). */
export const BATCH_POINTS = 10_000;
/** Tenant every benchmark point is written under. */
export const BENCH_TENANT = 'bench';

/** t0 lies on this boundary. */
const T0_ALIGN_MS = 5 * 60_000;
/** The last point is at least this long before `endMs` (and less than this plus T0_ALIGN_MS). */
const LAST_POINT_AGE_MIN_MS = 2 * 60_000;
/** Where every series' walk starts. */
const WALK_START = 100;
/** Rounding factor of the 'rounded' kind: 2 decimals. */
const ROUNDED_SCALE = 100;

/** What to generate. */
export interface WorkloadSpec {
  readonly series: number;
  readonly points: number;
  readonly seed: number;
  readonly kind: ValueKind;
  /** Reference "now", integer ms: the last point lands 2 to 7 minutes before it. */
  readonly endMs: number;
  readonly intervalMs: number;
  /** Folder of the NAB recordings for kind 'nab' (default: defaultNabDir()). */
  readonly nabDir?: string | undefined;
}

/** A generated workload as columns; point index i = k * series + s (time-major). */
export interface Workload {
  readonly spec: WorkloadSpec;
  /** First timestamp, on a 5-minute boundary. */
  readonly t0Ms: number;
  /** Exclusive end of the data: t0 + points * interval. */
  readonly dataEndMs: number;
  readonly length: number;
  readonly timestampsMs: Float64Array;
  readonly seriesIndex: Uint32Array;
  readonly values: Float64Array;
  /** One sentence on how the values were made. */
  readonly description: string;
}

/** A workload's columns without the spec that made them (what every generator of src/workload yields). */
export type WorkloadColumns = Omit<Workload, 'spec'>;

/** The standard spec for a kind, ending before `endMs`. */
export function standardSpec(kind: ValueKind, endMs: number): WorkloadSpec {
  return { series: STANDARD_SERIES, points: STANDARD_POINTS, seed: STANDARD_SEED, kind, endMs, intervalMs: STANDARD_INTERVAL_MS };
}

/** t0 on a 5-minute boundary such that the last point is 2 to 7 minutes before `endMs`. */
export function chooseT0Ms(endMs: number, points: number, intervalMs: number): number {
  const latest = endMs - LAST_POINT_AGE_MIN_MS - (points - 1) * intervalMs;
  return Math.floor(latest / T0_ALIGN_MS) * T0_ALIGN_MS;
}

/** Metric name of series `s`. */
export function metricName(s: number): string {
  return `bench.s${String(s).padStart(4, '0')}`;
}

/** The time-major grid every generator shares: point i = k * series + s is series s at t0 + k * interval. */
export function timeMajorGrid(series: number, points: number, t0Ms: number, intervalMs: number): { timestampsMs: Float64Array; seriesIndex: Uint32Array } {
  const length = series * points;
  const timestampsMs = new Float64Array(length);
  const seriesIndex = new Uint32Array(length);
  for (let k = 0, i = 0; k < points; k++) {
    const t = t0Ms + k * intervalMs;
    for (let s = 0; s < series; s++, i++) {
      timestampsMs[i] = t;
      seriesIndex[i] = s;
    }
  }
  return { timestampsMs, seriesIndex };
}

function fillWalk(spec: WorkloadSpec, values: Float64Array): void {
  const next = mulberry32(spec.seed);
  const current = new Float64Array(spec.series).fill(WALK_START);
  // Steps are drawn in time-major order, one per point; u/2^32 - 0.5 leaves ~17 trailing zero mantissa bits.
  for (let k = 0, i = 0; k < spec.points; k++) {
    for (let s = 0; s < spec.series; s++, i++) {
      const v = (current[s] as number) + (next() / UINT32_RANGE - 0.5);
      current[s] = v;
      values[i] = spec.kind === 'rounded' ? Math.round(v * ROUNDED_SCALE) / ROUNDED_SCALE : v;
    }
  }
}

function describe(spec: WorkloadSpec, nabText: string | undefined): string {
  const walk = `random walk from ${WALK_START}, step uint32/2^32 - 0.5 (mulberry32, seed ${spec.seed}, drawn in time-major order)`;
  if (spec.kind === 'walk') return `${walk}, full precision`;
  if (spec.kind === 'rounded') return `${walk}, rounded to 2 decimals (Math.round(v*100)/100)`;
  return nabText ?? 'NAB';
}

/** Generates the workload's columns. Deterministic for a given spec. */
export function generateWorkload(spec: WorkloadSpec): Workload {
  const length = spec.series * spec.points;
  const t0Ms = chooseT0Ms(spec.endMs, spec.points, spec.intervalMs);
  const { timestampsMs, seriesIndex } = timeMajorGrid(spec.series, spec.points, t0Ms, spec.intervalMs);
  const values = new Float64Array(length);
  let nabText: string | undefined;
  if (spec.kind === 'nab') {
    const recordings = loadNabRecordings(spec.nabDir);
    nabText = describeNabTiling(recordings);
    for (let k = 0, i = 0; k < spec.points; k++) {
      for (let s = 0; s < spec.series; s++, i++) values[i] = nabValue(recordings, s, k);
    }
  } else {
    fillWalk(spec, values);
  }
  return {
    spec,
    t0Ms,
    dataEndMs: t0Ms + spec.points * spec.intervalMs,
    length,
    timestampsMs,
    seriesIndex,
    values,
    description: describe(spec, nabText),
  };
}

/** Metric names of every series, built once so batches share the strings. */
export function metricNames(series: number): string[] {
  return Array.from({ length: series }, (_, s) => metricName(s));
}

/** Number of batches the workload cuts into. */
export function batchCount(workload: Workload, batchPoints: number = BATCH_POINTS): number {
  return Math.ceil(workload.length / batchPoints);
}

/** Batch `index` of the workload as Point objects, in time-major order. */
export function batchAt(workload: Workload, index: number, names: readonly string[], batchPoints: number = BATCH_POINTS): Point[] {
  const start = index * batchPoints;
  const end = Math.min(start + batchPoints, workload.length);
  const batch: Point[] = new Array<Point>(end - start);
  for (let i = start; i < end; i++) {
    batch[i - start] = {
      tenant: BENCH_TENANT,
      metric: names[workload.seriesIndex[i] as number] as string,
      timestamp: workload.timestampsMs[i] as number,
      value: workload.values[i] as number,
    };
  }
  return batch;
}

/** Cuts the whole workload into batches of Point objects (built before any clock starts). */
export function toBatches(workload: Workload, batchPoints: number = BATCH_POINTS): Point[][] {
  const names = metricNames(workload.spec.series);
  return Array.from({ length: batchCount(workload, batchPoints) }, (_, b) => batchAt(workload, b, names, batchPoints));
}
