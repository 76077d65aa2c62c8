// Owns turning samples or buckets into the values a query returns, with the selected statistics.
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import type { QueryValue, SelectStat } from '../store-types.js';

/** What to include: numPoints always, the rest by selection. */
interface Selection {
  readonly average: boolean;
  readonly variance: boolean;
  readonly min: boolean;
  readonly max: boolean;
}

function selection(select: readonly SelectStat[]): Selection {
  return { average: select.includes('average'), variance: select.includes('variance'), min: select.includes('min'), max: select.includes('max') };
}

/**
 * Raw points as values: numPoints 1, average = min = max = the value, variance 0 (as Blueflood
 * serialises raw points). A string point carries `value` and null statistics.
 */
export function valuesFromSamples(samples: SampleColumns, select: readonly SelectStat[]): QueryValue[] {
  const sel = selection(select);
  const out: QueryValue[] = [];
  const strings = samples.strings;
  let j = 0;
  const pushString = (k: number): void => {
    const t = (strings as NonNullable<typeof strings>).timestampsMs[k] as number;
    const v: Record<string, unknown> = { timestamp: t, numPoints: 1 };
    if (sel.average) v.average = null;
    if (sel.variance) v.variance = null;
    if (sel.min) v.min = null;
    if (sel.max) v.max = null;
    v.value = (strings as NonNullable<typeof strings>).values[k];
    out.push(v as unknown as QueryValue);
  };
  for (let i = 0; i < samples.length; i++) {
    const t = samples.timestampsMs[i] as number;
    while (strings !== null && j < strings.length && (strings.timestampsMs[j] as number) < t) pushString(j++);
    const x = samples.values[i] as number;
    const v: Record<string, number> = { timestamp: t, numPoints: 1 };
    if (sel.average) v.average = x;
    if (sel.variance) v.variance = 0;
    if (sel.min) v.min = x;
    if (sel.max) v.max = x;
    out.push(v as unknown as QueryValue);
  }
  while (strings !== null && j < strings.length) pushString(j++);
  return out;
}

function stat(count: number, x: number): number | null {
  return count > 0 ? x : null;
}

/** Buckets as values (the reader has read only the served buckets: the planner's readFrom on). */
export function valuesFromBuckets(b: BucketColumns, select: readonly SelectStat[]): QueryValue[] {
  const sel = selection(select);
  const out: QueryValue[] = [];
  for (let i = 0; i < b.length; i++) {
    const t = b.startsMs[i] as number;
    const count = b.count[i] as number;
    const v: Record<string, number | null> = { timestamp: t, numPoints: b.numPoints[i] as number };
    if (sel.average) v.average = stat(count, b.mean[i] as number);
    if (sel.variance) v.variance = stat(count, (b.m2[i] as number) / count);
    if (sel.min) v.min = stat(count, b.min[i] as number);
    if (sel.max) v.max = stat(count, b.max[i] as number);
    out.push(v as unknown as QueryValue);
  }
  return out;
}
