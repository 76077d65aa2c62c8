// Owns the 'counter' value kind: monotonic integer counters with seeded increments and occasional resets to 0.
import { chooseT0Ms, timeMajorGrid, type WorkloadColumns } from './standard-workload.js';
import { mulberry32, UINT32_RANGE, uniformInt } from './prng.js';

/** One point in this many, on average, is a restart of its counter (the value drops to 0). */
export const COUNTER_RESET_ONE_IN = 5_000;
/** Counters start at a seeded integer below this (a counter that has been running a while). */
export const COUNTER_START_MAX = 1_000_000;
/** A series' largest increment per interval is a seeded integer from 1 to this (busy and quiet counters). */
export const COUNTER_INCREMENT_MAX = 1_000;
/** Unit every counter point carries in the ingest body. */
export const COUNTER_UNIT = 'count';

/** What to generate: the grid of the standard workload, values of counters. */
export interface CounterSpec {
  readonly series: number;
  readonly points: number;
  readonly seed: number;
  /** Reference "now", integer ms: the last point lands 2 to 7 minutes before it. */
  readonly endMs: number;
  readonly intervalMs: number;
}

/** The sentence a recording header carries for this kind. */
export function describeCounters(seed: number): string {
  return (
    `monotonic counters: each series starts at a uniform integer below ${COUNTER_START_MAX} and adds a uniform integer ` +
    `increment from 0 to its own maximum (uniform from 1 to ${COUNTER_INCREMENT_MAX}) per point, resetting to 0 ` +
    `(a restart) with probability 1/${COUNTER_RESET_ONE_IN} per point (mulberry32, seed ${seed}, drawn in time-major order), unit '${COUNTER_UNIT}'`
  );
}

/** Generates counter columns on the time-major grid. Deterministic for a given spec; values are safe integers. */
export function generateCounterWorkload(spec: CounterSpec): WorkloadColumns {
  const length = spec.series * spec.points;
  const t0Ms = chooseT0Ms(spec.endMs, spec.points, spec.intervalMs);
  const { timestampsMs, seriesIndex } = timeMajorGrid(spec.series, spec.points, t0Ms, spec.intervalMs);
  const values = new Float64Array(length);
  const next = mulberry32(spec.seed);
  // Per-series start and increment bound first, so a series' character does not depend on the point count.
  const current = new Float64Array(spec.series);
  const incrementMax = new Uint32Array(spec.series);
  for (let s = 0; s < spec.series; s++) {
    current[s] = uniformInt(next, COUNTER_START_MAX);
    incrementMax[s] = 1 + uniformInt(next, COUNTER_INCREMENT_MAX);
  }
  const resetBelow = UINT32_RANGE / COUNTER_RESET_ONE_IN;
  for (let k = 0, i = 0; k < spec.points; k++) {
    for (let s = 0; s < spec.series; s++, i++) {
      // The first point of a series is its start value; later points either restart or count up.
      if (k > 0) current[s] = next() < resetBelow ? 0 : (current[s] as number) + uniformInt(next, (incrementMax[s] as number) + 1);
      values[i] = current[s] as number;
    }
  }
  return { t0Ms, dataEndMs: t0Ms + spec.points * spec.intervalMs, length, timestampsMs, seriesIndex, values, description: describeCounters(spec.seed) };
}
