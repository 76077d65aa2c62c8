// Owns the bucket codec's round-trip properties: any valid bucket rows come back bit-exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketColumns } from '../../src/model/bucket.js';
import { decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { columnDifference } from './codec-fixtures.js';

const COLUMNS = ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const;

type Stats = readonly [number, number, number, number];

interface Row {
  readonly startMs: number;
  readonly numPoints: number;
  /** Numeric samples among numPoints; 0 means a bucket of strings only, with NaN stats. */
  readonly uncounted: number;
  readonly stats: Stats;
}

const anyFiniteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });
const decimalValue = fc
  .tuple(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 0, max: 6 }))
  .map(([k, d]) => k / 10 ** d);

function rowArbitrary(statValue: fc.Arbitrary<number>): fc.Arbitrary<Row> {
  return fc.record({
    startMs: fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
    numPoints: fc.integer({ min: 1, max: 2 ** 40 }),
    uncounted: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 40 })),
    stats: fc.tuple(statValue, statValue, statValue, statValue),
  });
}

function bucketsOf(rows: readonly Row[]): BucketColumns {
  const sorted = [...rows].sort((a, b) => a.startMs - b.startMs);
  const count = sorted.map((r) => Math.max(0, r.numPoints - r.uncounted));
  // Stats are NaN exactly when the bucket holds no numeric sample, as the model says.
  const stat = (k: number): Float64Array => Float64Array.from(sorted, (r, i) => (count[i] === 0 ? Number.NaN : r.stats[k]!));
  return {
    length: sorted.length,
    startsMs: Float64Array.from(sorted, (r) => r.startMs),
    numPoints: Float64Array.from(sorted, (r) => r.numPoints),
    count: Float64Array.from(count),
    mean: stat(0),
    m2: stat(1),
    min: stat(2),
    max: stat(3),
  };
}

function expectRoundTrip(buckets: BucketColumns): void {
  const decoded = decodeBuckets(encodeBuckets(buckets));
  expect(decoded.length).toBe(buckets.length);
  for (const name of COLUMNS) expect(columnDifference(decoded[name], buckets[name]), name).toBeNull();
}

describe('bucket codec properties', () => {
  it('round-trips any sorted unique starts, integer counts and finite or NaN stats', () => {
    fc.assert(
      fc.property(fc.uniqueArray(rowArbitrary(anyFiniteDouble), { selector: (r) => r.startMs, maxLength: 200 }), (rows) =>
        expectRoundTrip(bucketsOf(rows)),
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips decimal-friendly stats, count-0 buckets included', () => {
    fc.assert(
      fc.property(fc.uniqueArray(rowArbitrary(decimalValue), { selector: (r) => r.startMs, maxLength: 200 }), (rows) =>
        expectRoundTrip(bucketsOf(rows)),
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips regular starts with constant counts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.constantFrom(300_000, 1_200_000, 86_400_000),
        fc.array(fc.tuple(decimalValue, anyFiniteDouble), { maxLength: 300 }),
        (startMs, widthMs, stats) => {
          const length = stats.length;
          expectRoundTrip({
            length,
            startsMs: Float64Array.from(stats, (_, i) => startMs + i * widthMs),
            numPoints: new Float64Array(length).fill(10),
            count: new Float64Array(length).fill(10),
            mean: Float64Array.from(stats, (s) => s[1]),
            m2: Float64Array.from(stats, (s) => Math.abs(s[1])),
            min: Float64Array.from(stats, (s) => s[0]),
            max: Float64Array.from(stats, (s) => s[0] + 1),
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
