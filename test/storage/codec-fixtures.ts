// Owns what the storage codec tests share: seeded series generators and a bit-exact column comparison.
import { mulberry32 } from '../../src/workload/prng.js';
import type { SampleColumns } from '../../src/model/bucket.js';

/** Returns a seeded uint32 generator (the benchmarks' mulberry32), so every run sees the same series. */
export function seededUint32(seed: number): () => number {
  return mulberry32(seed);
}

/** Options for randomWalk. */
export interface WalkOptions {
  readonly length: number;
  readonly seed: number;
  /** Round each value to this many decimal places; full precision when absent. */
  readonly decimals?: number | undefined;
  readonly startMs?: number;
  readonly stepMs?: number;
}

/** A regular random walk from 100 with steps uniform in [-0.5, 0.5), the peer references' workload. */
export function randomWalk(options: WalkOptions): SampleColumns {
  const { length, seed, decimals, startMs = 1_700_000_000_000, stepMs = 30_000 } = options;
  const next = seededUint32(seed);
  const timestampsMs = new Float64Array(length);
  const values = new Float64Array(length);
  const scale = decimals === undefined ? 1 : 10 ** decimals;
  let v = 100;
  for (let i = 0; i < length; i++) {
    v += next() / 2 ** 32 - 0.5;
    timestampsMs[i] = startMs + i * stepMs;
    values[i] = decimals === undefined ? v : Math.round(v * scale) / scale;
  }
  return { length, timestampsMs, values, strings: null };
}

/** Numeric sample columns from plain arrays. */
export function samplesOf(timestampsMs: readonly number[], values: readonly number[]): SampleColumns {
  return {
    length: timestampsMs.length,
    timestampsMs: Float64Array.from(timestampsMs),
    values: Float64Array.from(values),
    strings: null,
  };
}

/**
 * Describes the first element where two columns differ under Object.is (which tells -0 from 0
 * and treats NaN as equal to itself), or returns null when they are identical. Returning a
 * description instead of a boolean makes a failing expectation say where and what.
 */
export function columnDifference(actual: ArrayLike<number>, expected: ArrayLike<number>): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) return `element ${i}: ${actual[i]}, expected ${expected[i]}`;
  }
  return null;
}
