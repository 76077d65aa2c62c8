// Owns the scratch form of one OTLP data point, of any kind, as a decoder reads it before the mapping.
import { SERIES_LABELS_MAX } from './protocol-limits.js';

/**
 * One data point as a decoder reads it, of any kind; reused from point to point. Only the first
 * `attributeCount` (`boundCount`, ...) entries of each list count.
 */
export class OtlpPoint {
  /** Attribute keys as sent, and their values as label values ('' for an empty AnyValue). */
  readonly keys: string[] = [];
  readonly values: string[] = [];
  /** Attributes sent; those past SERIES_LABELS_MAX + 1 are counted but not kept (the point is refused anyway). */
  attributeCount = 0;
  /** time_unix_nano as whole milliseconds, floored; 0 when unset. */
  timeMs = 0;
  flags = 0;
  /** A NumberDataPoint's as_double or as_int; hasValue is false when it sent neither. */
  value = 0;
  hasValue = false;
  /** The count and sum of a histogram, exponential histogram or summary; hasSum false when the optional sum is absent. */
  count = 0;
  sum = 0;
  hasSum = false;
  readonly bounds: number[] = [];
  boundCount = 0;
  readonly bucketCounts: number[] = [];
  bucketCount = 0;
  readonly quantiles: number[] = [];
  readonly quantileValues: number[] = [];
  quantileCount = 0;

  /** Forgets the previous point. */
  reset(): void {
    this.attributeCount = 0;
    this.timeMs = 0;
    this.flags = 0;
    this.value = 0;
    this.hasValue = false;
    this.count = 0;
    this.sum = 0;
    this.hasSum = false;
    this.boundCount = 0;
    this.bucketCount = 0;
    this.quantileCount = 0;
  }

  /** Adds one attribute (key as sent, value already a label value). */
  addAttribute(key: string, value: string): void {
    const n = this.attributeCount++;
    if (n > SERIES_LABELS_MAX) return;
    this.keys[n] = key;
    this.values[n] = value;
  }

  /** Adds one explicit bucket bound, in the order sent. */
  addBound(bound: number): void {
    this.bounds[this.boundCount++] = bound;
  }

  /** Adds one bucket's count, in the order sent. */
  addBucketCount(count: number): void {
    this.bucketCounts[this.bucketCount++] = count;
  }

  /** Adds one summary quantile and its value. */
  addQuantile(quantile: number, value: number): void {
    this.quantiles[this.quantileCount] = quantile;
    this.quantileValues[this.quantileCount++] = value;
  }
}
