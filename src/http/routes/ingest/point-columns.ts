// Owns points as columns: how a decode thread hands a batch back (typed arrays and small dictionaries) and how it becomes points again.
import type { Point } from '../../../model/sample.js';
import type { PointSink } from './fast-fields.js';

/** A batch of points as transferable columns; names, units and tenants are dictionary-coded. */
export interface PointColumns {
  readonly count: number;
  readonly timestamps: Float64Array;
  /** Numeric values; NaN where the value is a string (see texts). */
  readonly values: Float64Array;
  /** [point index, string value] of the points whose value is a string (rare). */
  readonly texts: [number, string][];
  readonly names: string[];
  readonly nameIndex: Uint32Array;
  readonly units: string[];
  /** Index into units, -1 for no unit. */
  readonly unitIndex: Int32Array;
  readonly tenants: string[];
  readonly tenantIndex: Uint32Array;
}

/** First capacity of the column arrays; they double as needed. */
const INITIAL_CAPACITY = 1_024;

function dictionaryIndex(dictionary: Map<string, number>, list: string[], key: string): number {
  let index = dictionary.get(key);
  if (index === undefined) {
    index = list.length;
    list.push(key);
    dictionary.set(key, index);
  }
  return index;
}

/** Collects points into columns (inside a decode thread). */
export class ColumnSink implements PointSink {
  private count = 0;
  private timestamps = new Float64Array(INITIAL_CAPACITY);
  private values = new Float64Array(INITIAL_CAPACITY);
  private nameIndex = new Uint32Array(INITIAL_CAPACITY);
  private unitIndex = new Int32Array(INITIAL_CAPACITY);
  private tenantIndex = new Uint32Array(INITIAL_CAPACITY);
  private readonly texts: [number, string][] = [];
  private readonly names: string[] = [];
  private readonly units: string[] = [];
  private readonly tenants: string[] = [];
  private readonly nameIds = new Map<string, number>();
  private readonly unitIds = new Map<string, number>();
  private readonly tenantIds = new Map<string, number>();

  constructor(capacity: number = INITIAL_CAPACITY) {
    if (capacity !== INITIAL_CAPACITY) this.grow(capacity);
  }

  private grow(capacity: number): void {
    const copy = <T extends Float64Array | Uint32Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old.subarray(0, this.count) as never);
      return next;
    };
    this.timestamps = copy(this.timestamps, (n) => new Float64Array(n));
    this.values = copy(this.values, (n) => new Float64Array(n));
    this.nameIndex = copy(this.nameIndex, (n) => new Uint32Array(n));
    this.unitIndex = copy(this.unitIndex, (n) => new Int32Array(n));
    this.tenantIndex = copy(this.tenantIndex, (n) => new Uint32Array(n));
  }

  add(tenant: string, metric: string, timestamp: number, value: number | string, unit: string | undefined): void {
    const i = this.count;
    if (i === this.timestamps.length) this.grow(i * 2);
    this.timestamps[i] = timestamp;
    if (typeof value === 'number') this.values[i] = value;
    else {
      this.values[i] = NaN;
      this.texts.push([i, value]);
    }
    this.nameIndex[i] = dictionaryIndex(this.nameIds, this.names, metric);
    this.unitIndex[i] = unit === undefined ? -1 : dictionaryIndex(this.unitIds, this.units, unit);
    this.tenantIndex[i] = dictionaryIndex(this.tenantIds, this.tenants, tenant);
    this.count = i + 1;
  }

  /** The columns, trimmed to the points added. */
  columns(): PointColumns {
    const n = this.count;
    return {
      count: n,
      timestamps: this.timestamps.slice(0, n),
      values: this.values.slice(0, n),
      texts: this.texts,
      names: this.names,
      nameIndex: this.nameIndex.slice(0, n),
      units: this.units,
      unitIndex: this.unitIndex.slice(0, n),
      tenants: this.tenants,
      tenantIndex: this.tenantIndex.slice(0, n),
    };
  }
}

/** The typed arrays of columns, to transfer rather than copy. */
export function transferList(columns: PointColumns): ArrayBuffer[] {
  return [columns.timestamps, columns.values, columns.nameIndex, columns.unitIndex, columns.tenantIndex].map((a) => a.buffer as ArrayBuffer);
}

/** The points of columns, in order. */
export function pointsOf(columns: PointColumns): Point[] {
  const { count, timestamps, values, names, nameIndex, units, unitIndex, tenants, tenantIndex } = columns;
  const points: Point[] = new Array<Point>(count);
  for (let i = 0; i < count; i++) {
    const u = unitIndex[i] as number;
    points[i] = {
      tenant: tenants[tenantIndex[i] as number] as string,
      metric: names[nameIndex[i] as number] as string,
      timestamp: timestamps[i] as number,
      value: values[i] as number,
      unit: u < 0 ? undefined : units[u],
    };
  }
  for (const [i, text] of columns.texts) (points[i] as { value: number | string }).value = text;
  return points;
}
