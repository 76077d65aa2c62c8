// Owns the column form of a batch of points: what fast writers hand the store instead of one object per point.
import { StrataError } from '../core/errors.js';
import type { Point } from './sample.js';

/**
 * A batch of points as columns. Only the first `length` entries of each column count (a builder
 * reuses longer arrays). No object per point means no garbage per point: the form the HTTP
 * decoders and fast embedders write in.
 */
export interface PointColumns {
  readonly length: number;
  readonly tenants: readonly string[];
  readonly metrics: readonly string[];
  /** Integer milliseconds since the epoch. */
  readonly timestampsMs: Float64Array;
  /** Numeric values; NaN where the point holds a string (see `strings`). */
  readonly values: Float64Array;
  /** String values by point index; null when the batch has none. */
  readonly strings: ReadonlyMap<number, string> | null;
  /** Unit of each point (undefined where none is given); null when no point gives one. */
  readonly units: readonly (string | undefined)[] | null;
}

const INITIAL_CAPACITY = 1024;

/**
 * Throws INGEST_POINT_MALFORMED unless `columns` has the shape of PointColumns with every column
 * at least `length` long (the values inside are the validator's business).
 */
export function checkColumnsShape(columns: PointColumns): void {
  const c = columns as Partial<Record<keyof PointColumns, unknown>> | null;
  const length = c?.length;
  const fits = (column: unknown, isColumn: (x: unknown) => boolean): boolean => isColumn(column) && (column as { length: number }).length >= (length as number);
  const ok =
    typeof c === 'object' &&
    c !== null &&
    Number.isSafeInteger(length) &&
    (length as number) >= 0 &&
    fits(c.tenants, Array.isArray) &&
    fits(c.metrics, Array.isArray) &&
    fits(c.timestampsMs, (x) => x instanceof Float64Array) &&
    fits(c.values, (x) => x instanceof Float64Array) &&
    (c.strings === null || c.strings instanceof Map) &&
    (c.units === null || fits(c.units, Array.isArray));
  if (!ok) {
    throw new StrataError(
      'INGEST_POINT_MALFORMED',
      'writeColumns takes { length, tenants, metrics, timestampsMs: Float64Array, values: Float64Array, strings: Map | null, units: array | null }, each column at least length long',
    );
  }
}

/** Builds PointColumns point by point, reusing its arrays from batch to batch (call reset between). */
export class PointColumnsBuilder implements PointColumns {
  length = 0;
  readonly tenants: string[] = [];
  readonly metrics: string[] = [];
  timestampsMs = new Float64Array(INITIAL_CAPACITY);
  values = new Float64Array(INITIAL_CAPACITY);
  strings: Map<number, string> | null = null;
  units: (string | undefined)[] | null = null;

  /** Empties the builder for the next batch. */
  reset(): void {
    this.length = 0;
    this.strings = null;
    this.units = null;
  }

  /** Appends one point. */
  push(tenant: string, metric: string, timestampMs: number, value: number | string, unit: string | undefined): void {
    const n = this.add(tenant, metric, unit);
    this.timestampsMs[n] = timestampMs;
    if (typeof value === 'number') this.values[n] = value;
    else this.setText(n, value);
  }

  /**
   * Appends a point and returns its index; the caller stores its time and value there
   * (`timestampsMs[i]`, `values[i]` or setText). Hot decoders use this rather than push: a double
   * passed to a call that is not inlined is boxed, which is garbage per point.
   */
  add(tenant: string, metric: string, unit: string | undefined): number {
    const n = this.length;
    if (n === this.timestampsMs.length) this.grow();
    this.tenants[n] = tenant;
    this.metrics[n] = metric;
    if (unit !== undefined) (this.units ??= new Array<string | undefined>(n).fill(undefined))[n] = unit;
    else if (this.units !== null) this.units[n] = undefined;
    this.length = n + 1;
    return n;
  }

  /** Makes point i a string point. */
  setText(i: number, text: string): void {
    this.values[i] = NaN;
    (this.strings ??= new Map()).set(i, text);
  }

  private grow(): void {
    const timestamps = new Float64Array(this.timestampsMs.length * 2);
    timestamps.set(this.timestampsMs);
    this.timestampsMs = timestamps;
    const values = new Float64Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
  }
}

/** The points of a column batch as objects (for tests, tools and error reports; the write path never needs them). */
export function pointsOf(columns: PointColumns): Point[] {
  const points: Point[] = [];
  for (let i = 0; i < columns.length; i++) {
    const value = columns.strings?.get(i) ?? (columns.values[i] as number);
    const unit = columns.units?.[i];
    points.push({ tenant: columns.tenants[i] as string, metric: columns.metrics[i] as string, timestamp: columns.timestampsMs[i] as number, value, unit });
  }
  return points;
}
