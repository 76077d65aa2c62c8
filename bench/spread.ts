// Owns summarising repeated runs: the median and the min–max of one number across runs.

/** One number over repeated runs. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: readonly number[];
}

/** Median (mean of the middle two for an even count), min and max of `values`. */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: NaN, min: NaN, max: NaN, runs: [] };
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[n - 1] as number, runs: [...values] };
}

/** Median of one field over runs. */
export function medianOf<T>(runs: readonly T[], field: (run: T) => number): number {
  return spreadOf(runs.map(field)).median;
}
