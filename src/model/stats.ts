// Owns Stats, the summary of numeric values kept per bucket, and its exact, order-free merge.

/**
 * Summary of a set of numeric values. `m2` is the sum of squared deviations from the mean, so the
 * population variance is m2 / count. Keeping m2 (not the variance) makes merging exact and cheap.
 * When count is 0, mean, m2, min and max are NaN.
 */
export interface Stats {
  readonly count: number;
  readonly mean: number;
  readonly m2: number;
  readonly min: number;
  readonly max: number;
}

/** Stats of no values: the identity of mergeStats. */
export const EMPTY_STATS: Stats = Object.freeze({ count: 0, mean: NaN, m2: NaN, min: NaN, max: NaN });

/**
 * Stats of values[start, end) with Welford's update, which stays accurate when the values sit far
 * from zero (the naive sum of squares cancels catastrophically there).
 */
export function statsOfValues(values: Float64Array, start: number, end: number): Stats {
  if (end <= start) return EMPTY_STATS;
  let count = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = start; i < end; i++) {
    const x = values[i] as number;
    count++;
    const delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { count, mean, m2, min, max };
}

/**
 * Stats of the union of two disjoint value sets (Chan, Golub and LeVeque's pairwise update).
 * Associative and commutative up to rounding; count, min and max are exact.
 */
export function mergeStats(a: Stats, b: Stats): Stats {
  if (a.count === 0) return b;
  if (b.count === 0) return a;
  const count = a.count + b.count;
  const delta = b.mean - a.mean;
  return {
    count,
    mean: a.mean + (delta * b.count) / count,
    m2: a.m2 + b.m2 + (delta * delta * a.count * b.count) / count,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
  };
}

/** Population variance (m2 / count); NaN when there are no values. */
export function varianceOf(stats: Stats): number {
  return stats.count === 0 ? NaN : stats.m2 / stats.count;
}
