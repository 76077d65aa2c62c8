// Owns how a workload's points arrive: the order they are sent in, how they are cut into batches, and when each batch arrives.
import { assert } from '../core/assert.js';
import { DEFAULT_GRACE_MS } from '../core/limits.js';
import { mulberry32, shuffleRange, UINT32_RANGE, uniformInt } from './prng.js';

/** Batches of one burst, sent at the same instant. */
export const BURST_LARGE_BATCHES = 3;
/** Small batches between two bursts, spread evenly over the rest of the cycle. */
export const BURST_SMALL_BATCHES = 30;
/** A small batch holds ceil(batchPoints / this) points. */
export const BURST_SMALL_DIVISOR = 10;
/** Percentage of points the 'late' kind delays. */
export const LATE_SHARE_PERCENT = 5;
/** Longest delay of a late point, in data time: the store's default grace, so a replayed late point is still accepted. */
export const LATE_DELAY_MS_MAX = DEFAULT_GRACE_MS;
/** Neighbouring batches the 'out-of-order' kind sends in a shuffled order. */
export const OUT_OF_ORDER_RUN_BATCHES = 4;
/** Mixed into the seed for the arrival draws, so they are not the same numbers as the value draws. */
export const ARRIVAL_SEED_SALT = 0x9e3779b9;

/** One request's worth of points: `order[start, end)`, arriving after `atPoints` points' worth of time at the replay rate. */
export interface ArrivalBatch {
  readonly start: number;
  readonly end: number;
  /** Arrival position in points: the batch arrives at floor(atPoints * 1000 / rate) ms. Never decreases from batch to batch. */
  readonly atPoints: number;
}

/** The order points are sent in (a permutation of the point indices), the batches cut from it, and a sentence saying how. */
export interface ArrivalPlan {
  readonly order: Uint32Array;
  readonly batches: readonly ArrivalBatch[];
  readonly description: string;
}

/** The grid an arrival plan works on: point i = k * series + s is series s at slot k. */
export interface ArrivalGrid {
  readonly series: number;
  readonly points: number;
  readonly intervalMs: number;
  readonly seed: number;
}

function identity(length: number): Uint32Array {
  const order = new Uint32Array(length);
  for (let i = 0; i < length; i++) order[i] = i;
  return order;
}

/** Consecutive batches of `batchPoints` (the last one shorter), each arriving when the points before it have been sent at the rate. */
function evenBatches(length: number, batchPoints: number): ArrivalBatch[] {
  const batches: ArrivalBatch[] = [];
  for (let start = 0; start < length; start += batchPoints) batches.push({ start, end: Math.min(start + batchPoints, length), atPoints: start });
  return batches;
}

/** The seeded generator of a plan's draws. */
function arrivalSource(seed: number): () => number {
  return mulberry32((seed ^ ARRIVAL_SEED_SALT) >>> 0);
}

/** Points in time-major order, in batches of `batchPoints`, evenly spaced. */
export function inOrderPlan(grid: ArrivalGrid, batchPoints: number): ArrivalPlan {
  const length = grid.series * grid.points;
  return { order: identity(length), batches: evenBatches(length, batchPoints), description: `points are sent in time-major order in batches of ${batchPoints}, evenly spaced at the replay rate` };
}

/** Points in time-major order, in cycles of a burst of large batches at one instant and a trickle of small ones. */
export function burstPlan(grid: ArrivalGrid, batchPoints: number): ArrivalPlan {
  const length = grid.series * grid.points;
  const small = Math.ceil(batchPoints / BURST_SMALL_DIVISOR);
  const cyclePoints = BURST_LARGE_BATCHES * batchPoints + BURST_SMALL_BATCHES * small;
  const batches: ArrivalBatch[] = [];
  let start = 0;
  for (let cycleAt = 0; start < length; cycleAt += cyclePoints) {
    for (let b = 0; b < BURST_LARGE_BATCHES && start < length; b++) {
      const end = Math.min(start + batchPoints, length);
      batches.push({ start, end, atPoints: cycleAt });
      start = end;
    }
    for (let j = 0; j < BURST_SMALL_BATCHES && start < length; j++) {
      const end = Math.min(start + small, length);
      batches.push({ start, end, atPoints: cycleAt + ((j + 1) * cyclePoints) / (BURST_SMALL_BATCHES + 1) });
      start = end;
    }
  }
  const description =
    `points are sent in time-major order in cycles of ${cyclePoints} points: a burst of ${BURST_LARGE_BATCHES} batches of ${batchPoints} ` +
    `arriving at the same instant, then ${BURST_SMALL_BATCHES} batches of ${small} spread evenly over the rest of the cycle, so the average is the replay rate`;
  return { order: identity(length), batches, description };
}

/**
 * Points in time-major order except that a seeded share arrives late: a late point of slot k with delay d
 * is sent right after the points of slot k + floor(d / interval) (the last slot at most), after that slot's
 * own points; the stream is then cut into even batches.
 */
export function latePlan(grid: ArrivalGrid, batchPoints: number): ArrivalPlan {
  const { series, points, intervalMs } = grid;
  const length = series * points;
  const next = arrivalSource(grid.seed);
  const lateBelow = (UINT32_RANGE * LATE_SHARE_PERCENT) / 100;
  const delayMinMs = Math.min(intervalMs, LATE_DELAY_MS_MAX);
  const isLate = new Uint8Array(length);
  const targetCounts = new Uint32Array(points + 1);
  const lateIndex: number[] = [];
  const lateTarget: number[] = [];
  for (let i = 0; i < length; i++) {
    if (next() >= lateBelow) continue;
    const delayMs = delayMinMs + uniformInt(next, LATE_DELAY_MS_MAX - delayMinMs + 1);
    const target = Math.min(points - 1, Math.floor(i / series) + Math.floor(delayMs / intervalMs));
    isLate[i] = 1;
    lateIndex.push(i);
    lateTarget.push(target);
    targetCounts[target + 1] = (targetCounts[target + 1] as number) + 1;
  }
  // A stable counting sort of the late points by the slot they follow, keeping index order within a slot.
  for (let k = 0; k < points; k++) targetCounts[k + 1] = (targetCounts[k + 1] as number) + (targetCounts[k] as number);
  const lateByTarget = new Uint32Array(lateIndex.length);
  const fill = targetCounts.slice(0, points);
  for (let j = 0; j < lateIndex.length; j++) {
    const target = lateTarget[j] as number;
    const slot = fill[target] as number;
    fill[target] = slot + 1;
    lateByTarget[slot] = lateIndex[j] as number;
  }
  const order = new Uint32Array(length);
  let at = 0;
  for (let k = 0; k < points; k++) {
    for (let i = k * series; i < (k + 1) * series; i++) if (isLate[i] === 0) order[at++] = i;
    for (let j = targetCounts[k] as number; j < (targetCounts[k + 1] as number); j++) order[at++] = lateByTarget[j] as number;
  }
  assert(at === length, 'every point is sent exactly once');
  const description =
    `${LATE_SHARE_PERCENT}% of points (mulberry32, seed ${grid.seed} xor 0x${ARRIVAL_SEED_SALT.toString(16)}) arrive late: each is sent after the points ` +
    `of the slot d later (d uniform from ${delayMinMs} to ${LATE_DELAY_MS_MAX} ms, within the store's default grace), the rest in time-major order, ` +
    `in batches of ${batchPoints} evenly spaced at the replay rate`;
  return { order, batches: evenBatches(length, batchPoints), description };
}

/** The in-order batches, taken in runs of neighbouring batches sent in a shuffled order, each batch's points shuffled. */
export function outOfOrderPlan(grid: ArrivalGrid, batchPoints: number): ArrivalPlan {
  const length = grid.series * grid.points;
  const next = arrivalSource(grid.seed);
  const inOrder = evenBatches(length, batchPoints);
  const order = new Uint32Array(length);
  const batches: ArrivalBatch[] = [];
  let at = 0;
  for (let run = 0; run < inOrder.length; run += OUT_OF_ORDER_RUN_BATCHES) {
    const runEnd = Math.min(run + OUT_OF_ORDER_RUN_BATCHES, inOrder.length);
    const sequence = new Uint32Array(runEnd - run).map((_, j) => run + j);
    shuffleRange(sequence, 0, sequence.length, next);
    for (const b of sequence) {
      const source = inOrder[b] as ArrivalBatch;
      const start = at;
      for (let i = source.start; i < source.end; i++) order[at++] = i;
      shuffleRange(order, start, at, next);
      batches.push({ start, end: at, atPoints: start });
    }
  }
  const description =
    `the time-major batches of ${batchPoints} points are taken in runs of ${OUT_OF_ORDER_RUN_BATCHES} neighbouring batches; each run's batches ` +
    `are sent in a shuffled order and each batch's points are shuffled (Fisher-Yates, mulberry32, seed ${grid.seed} xor 0x${ARRIVAL_SEED_SALT.toString(16)}), ` +
    'evenly spaced at the replay rate';
  return { order, batches, description };
}
