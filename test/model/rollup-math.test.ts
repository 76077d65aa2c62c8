// Unit tests of rollup/rollup-math: bucketing samples, merging buckets, slicing, concatenating and overlaying.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { MINUTE_MS } from '../../src/core/time.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { mergeStats, statsOfValues, type Stats } from '../../src/model/stats.js';
import {
  bucketsFromBuckets,
  bucketsFromSamples,
  concatBuckets,
  overlayBuckets,
  sliceBuckets,
} from '../../src/model/rollup-math.js';

const W5 = 5 * MINUTE_MS;
const W20 = 20 * MINUTE_MS;

function samples(numeric: readonly (readonly [number, number])[], strings: readonly (readonly [number, string])[] = []): SampleColumns {
  return {
    length: numeric.length,
    timestampsMs: Float64Array.from(numeric, ([t]) => t),
    values: Float64Array.from(numeric, ([, v]) => v),
    strings:
      strings.length === 0
        ? null
        : { length: strings.length, timestampsMs: Float64Array.from(strings, ([t]) => t), values: strings.map(([, s]) => s) },
  };
}

interface Row {
  start: number;
  numPoints: number;
  count: number;
  mean: number;
  m2: number;
  min: number;
  max: number;
}

function rows(b: BucketColumns): Row[] {
  return Array.from({ length: b.length }, (_, i) => ({
    start: b.startsMs[i] as number,
    numPoints: b.numPoints[i] as number,
    count: b.count[i] as number,
    mean: b.mean[i] as number,
    m2: b.m2[i] as number,
    min: b.min[i] as number,
    max: b.max[i] as number,
  }));
}

function fromRows(list: readonly Row[]): BucketColumns {
  const col = (key: keyof Row) => Float64Array.from(list, (r) => r[key]);
  return {
    length: list.length,
    startsMs: col('start'),
    numPoints: col('numPoints'),
    count: col('count'),
    mean: col('mean'),
    m2: col('m2'),
    min: col('min'),
    max: col('max'),
  };
}

const row = (start: number, numPoints = 1, value = start): Row => ({ start, numPoints, count: 1, mean: value, m2: 0, min: value, max: value });

describe('bucketsFromSamples', () => {
  it('returns no buckets for no samples', () => {
    expect(bucketsFromSamples(samples([]), W5).length).toBe(0);
  });

  it('groups samples into aligned half-open buckets with Welford stats', () => {
    const b = bucketsFromSamples(samples([[0, 2], [1_000, 4], [W5 - 1, 6], [W5, 10], [3 * W5 + 7, -1]]), W5);
    expect(rows(b)).toEqual([
      { start: 0, numPoints: 3, count: 3, mean: 4, m2: 8, min: 2, max: 6 },
      { start: W5, numPoints: 1, count: 1, mean: 10, m2: 0, min: 10, max: 10 },
      { start: 3 * W5, numPoints: 1, count: 1, mean: -1, m2: 0, min: -1, max: -1 },
    ]);
    expect(b.startsMs.length).toBe(3);
  });

  it('counts string samples in numPoints only; a strings-only bucket has NaN stats', () => {
    const b = rows(bucketsFromSamples(samples([[10, 1], [W5 + 10, 3]], [[20, 'up'], [2 * W5, 'down'], [2 * W5 + 5, 'up']]), W5));
    expect(b.map((r) => [r.start, r.numPoints, r.count])).toEqual([[0, 2, 1], [W5, 1, 1], [2 * W5, 2, 0]]);
    const stringsOnly = b[2] as Row;
    expect([stringsOnly.mean, stringsOnly.m2, stringsOnly.min, stringsOnly.max].every(Number.isNaN)).toBe(true);
  });

  it('aligns negative timestamps down', () => {
    expect(rows(bucketsFromSamples(samples([[-1, 5], [0, 6]]), W5)).map((r) => r.start)).toEqual([-W5, 0]);
  });

  it('rejects samples that do not ascend as a programmer error', () => {
    expect(() => bucketsFromSamples(samples([[2 * W5, 1], [0, 2]]), W5)).toThrow(AssertionFailure);
    expect(() => bucketsFromSamples(samples([[0, 1], [W5, 2], [10, 3]]), W5)).toThrow(AssertionFailure);
  });

  it('rejects a width that is not a positive integer', () => {
    expect(() => bucketsFromSamples(samples([[0, 1]]), 0)).toThrow(AssertionFailure);
    expect(() => bucketsFromSamples(samples([[0, 1]]), 1.5)).toThrow(AssertionFailure);
  });
});

describe('bucketsFromBuckets', () => {
  it('sums numPoints and merges stats exactly as folding mergeStats', () => {
    const values = [[1, 2, 3], [10, 11], [-5], [7, 7, 8, 100]];
    const children: Stats[] = values.map((v) => statsOfValues(Float64Array.from(v), 0, v.length));
    const child = fromRows(children.map((s, i) => ({ start: i * W5, numPoints: s.count + 1, ...s })));
    const [parent] = rows(bucketsFromBuckets(child, W20));
    const folded = children.reduce(mergeStats);
    expect(parent).toEqual({ start: 0, numPoints: 14, ...folded });
  });

  it('lets a strings-only child add points without touching the stats', () => {
    const child = fromRows([
      { start: 0, numPoints: 2, count: 0, mean: NaN, m2: NaN, min: NaN, max: NaN },
      { start: W5, numPoints: 1, count: 1, mean: 3, m2: 0, min: 3, max: 3 },
      { start: W20, numPoints: 4, count: 0, mean: NaN, m2: NaN, min: NaN, max: NaN },
    ]);
    const [first, second] = rows(bucketsFromBuckets(child, W20));
    expect(first).toEqual({ start: 0, numPoints: 3, count: 1, mean: 3, m2: 0, min: 3, max: 3 });
    expect(second?.numPoints).toBe(4);
    expect(second?.count).toBe(0);
    expect(second?.mean).toBeNaN();
  });

  it('returns no buckets for no children', () => {
    expect(bucketsFromBuckets(fromRows([]), W20).length).toBe(0);
  });
});

describe('sliceBuckets', () => {
  const b = fromRows([row(0), row(W5), row(2 * W5), row(3 * W5)]);

  it('keeps the buckets whose start is in [from, to)', () => {
    expect(rows(sliceBuckets(b, W5, 3 * W5)).map((r) => r.start)).toEqual([W5, 2 * W5]);
    expect(rows(sliceBuckets(b, 1, 2 * W5 + 1)).map((r) => r.start)).toEqual([W5, 2 * W5]);
  });

  it('is empty for an empty or inverted range', () => {
    expect(sliceBuckets(b, W5, W5).length).toBe(0);
    expect(sliceBuckets(b, 3 * W5, W5).length).toBe(0);
  });
});

describe('concatBuckets', () => {
  it('joins ascending parts and skips empty ones', () => {
    const joined = concatBuckets([fromRows([row(0)]), fromRows([]), fromRows([row(W5), row(2 * W5)])]);
    expect(rows(joined).map((r) => r.start)).toEqual([0, W5, 2 * W5]);
  });

  it('refuses overlapping parts', () => {
    expect(() => concatBuckets([fromRows([row(W5)]), fromRows([row(W5)])])).toThrow(AssertionFailure);
  });
});

describe('overlayBuckets', () => {
  const base = fromRows([row(0, 1, 1), row(W5, 1, 1), row(2 * W5, 1, 1), row(3 * W5, 1, 1)]);

  it('replaces the base inside the range with the overlay inside it', () => {
    const overlay = fromRows([row(W5, 5, 9), row(2 * W5 + W5, 7, 9)]);
    const result = rows(overlayBuckets(base, overlay, W5, 3 * W5));
    expect(result.map((r) => [r.start, r.numPoints, r.mean])).toEqual([
      [0, 1, 1],
      [W5, 5, 9],
      [3 * W5, 1, 1],
    ]);
  });

  it('removes stale buckets when the fresh ones are gone, and ignores overlay outside the range', () => {
    const overlay = fromRows([row(0, 9, 9), row(3 * W5, 9, 9)]);
    expect(rows(overlayBuckets(base, overlay, W5, 3 * W5)).map((r) => [r.start, r.mean])).toEqual([
      [0, 1],
      [3 * W5, 1],
    ]);
  });

  it('adds buckets the base lacks', () => {
    const overlay = fromRows([row(4 * W5, 2, 9)]);
    expect(rows(overlayBuckets(base, overlay, 4 * W5, 5 * W5)).map((r) => r.start)).toEqual([0, W5, 2 * W5, 3 * W5, 4 * W5]);
  });
});
