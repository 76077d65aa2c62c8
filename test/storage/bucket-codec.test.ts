// Owns example-based tests of the bucket codec: round trips of rollup rows and their encoded sizes.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';
import type { BucketColumns } from '../../src/model/bucket.js';
import { BUCKET_FORMAT_VERSION, decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { columnDifference, randomWalk } from './codec-fixtures.js';

const COLUMNS = ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const;

function roundTrip(buckets: BucketColumns): Uint8Array {
  const bytes = encodeBuckets(buckets);
  const decoded = decodeBuckets(bytes);
  expect(decoded.length).toBe(buckets.length);
  for (const name of COLUMNS) expect(columnDifference(decoded[name], buckets[name]), name).toBeNull();
  return bytes;
}

function bucketsOf(rows: ReadonlyArray<readonly [number, number, number, number, number, number, number]>): BucketColumns {
  const column = (k: number): Float64Array => Float64Array.from(rows, (row) => row[k]!);
  return {
    length: rows.length,
    startsMs: column(0),
    numPoints: column(1),
    count: column(2),
    mean: column(3),
    m2: column(4),
    min: column(5),
    max: column(6),
  };
}

/** 5-minute buckets of a 30 s 2-decimal walk, ten points each, stats computed the plain way. */
function rollupOfWalk(bucketCount: number, seed: number): BucketColumns {
  const samples = randomWalk({ length: bucketCount * 10, seed, decimals: 2 });
  const rows: Array<[number, number, number, number, number, number, number]> = [];
  for (let b = 0; b < bucketCount; b++) {
    const slice = samples.values.subarray(b * 10, b * 10 + 10);
    let sum = 0;
    for (const v of slice) sum += v;
    const mean = sum / 10;
    let m2 = 0;
    for (const v of slice) m2 += (v - mean) ** 2;
    rows.push([samples.timestampsMs[b * 10]!, 10, 10, mean, m2, Math.min(...slice), Math.max(...slice)]);
  }
  return bucketsOf(rows);
}

describe('encodeBuckets / decodeBuckets', () => {
  it('round-trips no buckets in three bytes: version 2, no flags, a zero count', () => {
    expect(BUCKET_FORMAT_VERSION).toBe(2);
    expect(Array.from(roundTrip(bucketsOf([])))).toEqual([BUCKET_FORMAT_VERSION, 0, 0]);
  });

  it('round-trips one bucket', () => {
    roundTrip(bucketsOf([[1_700_000_100_000, 3, 3, 1.5, 0.5, 1, 2]]));
  });

  it('round-trips count-0 buckets with NaN stats among numeric ones', () => {
    const { NaN: nan } = Number;
    roundTrip(
      bucketsOf([
        [0, 2, 0, nan, nan, nan, nan],
        [300_000, 10, 10, 1.25, 0.5, 1, 1.5],
        [600_000, 4, 3, -0, 0, -0, 0],
        [900_000, 1, 0, nan, nan, nan, nan],
      ]),
    );
    roundTrip(bucketsOf([[0, 1, 0, Number.NaN, Number.NaN, Number.NaN, Number.NaN]]));
  });

  it('spends almost nothing on regular starts, constant numPoints and full counts', () => {
    const zeros = new Float64Array(288);
    const flat = { ...rollupOfWalk(288, 5), mean: zeros, m2: zeros, min: zeros, max: zeros };
    expect(roundTrip(flat).length / 288).toBeLessThan(0.25);
  });

  it('stores min and max of decimal data as decimals', () => {
    const zeros = new Float64Array(288);
    // Min and max move by up to a few units between buckets: about 10 bits each as scaled
    // integers, where XOR of 2-decimal doubles costs 50 or more.
    const bytes = roundTrip({ ...rollupOfWalk(288, 5), mean: zeros, m2: zeros });
    expect(bytes.length / 288).toBeLessThan(3);
  });

  it('round-trips a day of 5-minute rollups of a 2-decimal walk in under 20 bytes a bucket', () => {
    const bytes = roundTrip(rollupOfWalk(288, 9));
    expect(bytes.length / 288).toBeLessThan(20);
  });

  it('round-trips irregular starts and varying counts', () => {
    roundTrip(
      bucketsOf([
        [-(2 ** 52), 1, 1, 5, 0, 5, 5],
        [-86_400_000, 1_000_000, 999_999, 1e-300, 1e300, -1e308, 1e308],
        [0, 7, 2, 0.1, 0.2, 0.3, 0.4],
        [60_000, 2 ** 40, 2 ** 40, 3, 4, 5, 6],
        [2 ** 52, 5, 0, Number.NaN, Number.NaN, Number.NaN, Number.NaN],
      ]),
    );
  });

  it('rejects an unknown format version with a coded error', () => {
    const bytes = encodeBuckets(bucketsOf([[0, 1, 1, 1, 0, 1, 1]]));
    bytes[0] = BUCKET_FORMAT_VERSION + 1;
    expect(() => decodeBuckets(bytes)).toThrow(StrataError);
    expect(() => decodeBuckets(bytes)).toThrow(/version/);
  });

  it('detects a truncated row', () => {
    const bytes = encodeBuckets(rollupOfWalk(100, 2));
    expect(() => decodeBuckets(bytes.subarray(0, bytes.length >>> 1))).toThrow(AssertionFailure);
  });

  it('refuses counts that are not integers', () => {
    expect(() => encodeBuckets(bucketsOf([[0, 1.5, 1, 1, 0, 1, 1]]))).toThrow(AssertionFailure);
    expect(() => encodeBuckets(bucketsOf([[0, 2, 0.5, 1, 0, 1, 1]]))).toThrow(AssertionFailure);
  });
});
