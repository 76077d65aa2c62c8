// Owns the columnar shapes shared by the codecs, the rollup math and the reader: samples and buckets.

/**
 * Samples of one series, sorted by timestamp, one sample per timestamp. Numeric samples and string
 * samples are kept apart; a timestamp appears in at most one of the two.
 */
export interface SampleColumns {
  readonly length: number;
  /** Integer ms, strictly ascending. */
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
  /** String samples, strictly ascending by time; null when the series has none in this span. */
  readonly strings: StringColumns | null;
}

/** String samples of one series. */
export interface StringColumns {
  readonly length: number;
  readonly timestampsMs: Float64Array;
  readonly values: readonly string[];
}

/**
 * Rollup buckets of one series, ascending by start, only buckets with numPoints > 0.
 * `numPoints` counts every sample (strings too); `count` counts numeric samples, over which
 * mean, m2 (sum of squared deviations: variance = m2 / count), min and max are computed.
 * When count is 0, mean, m2, min and max are NaN.
 */
export interface BucketColumns {
  readonly length: number;
  readonly startsMs: Float64Array;
  readonly numPoints: Float64Array;
  readonly count: Float64Array;
  readonly mean: Float64Array;
  readonly m2: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
}
