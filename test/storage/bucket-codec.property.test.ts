// Owns the bucket codec's round-trip properties: any valid bucket rows come back bit-exact, with either effort, no larger than XOR would make them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketColumns } from '../../src/model/bucket.js';
import { BitWriter } from '../../src/storage/bit-stream.js';
import { BUCKET_FORMAT_VERSION, bucketEncodingOf, decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import type { EncodeEffort } from '../../src/storage/entropy-stage.js';
import { writePackedInts } from '../../src/storage/int-column.js';
import { writeTimestamps } from '../../src/storage/timestamp-column.js';
import { writeVarUint } from '../../src/storage/varint.js';
import { writeXorFloats } from '../../src/storage/xor-column.js';
import { columnDifference } from './codec-fixtures.js';
import { adversarialDouble, bitsDifference, COLUMN_LENGTH_MAX, floatColumn } from './float-arbitraries.js';

const COLUMNS = ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const;
const STATS = ['mean', 'm2', 'min', 'max'] as const;
/** What each stat's chosen encoding may cost over Gorilla XOR alone: its scheme byte and the byte rounding. */
const XOR_SLACK_BYTES_PER_COLUMN = 2;
/** The frame's version and flags bytes. */
const FRAME_BYTES = 2;

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

function expectDecodesTo(bytes: Uint8Array, buckets: BucketColumns): void {
  const decoded = decodeBuckets(bytes);
  expect(decoded.length).toBe(buckets.length);
  for (const name of COLUMNS) {
    expect(columnDifference(decoded[name], buckets[name].subarray(0, buckets.length)), name).toBeNull();
    expect(bitsDifference(decoded[name], buckets[name].subarray(0, buckets.length)), name).toBeNull();
  }
}

/**
 * Encodes with both efforts and checks: each decodes bit-exactly and reports format 2; 'fast'
 * never compresses; 'compact' is never larger, and uses brotli exactly when that made it smaller
 * (else it is the same bytes). Returns the two encodings.
 */
function expectRoundTrip(buckets: BucketColumns): Record<EncodeEffort, Uint8Array> {
  const fast = encodeBuckets(buckets, 'fast');
  const compact = encodeBuckets(buckets, 'compact');
  expect(Array.from(encodeBuckets(buckets))).toEqual(Array.from(fast));
  for (const bytes of [fast, compact]) {
    expectDecodesTo(bytes, buckets);
    expect(bytes[0]).toBe(BUCKET_FORMAT_VERSION);
  }
  const fastEncoding = bucketEncodingOf(fast);
  const compactEncoding = bucketEncodingOf(compact);
  expect(fastEncoding.format).toBe(2);
  expect(fastEncoding.entropy).toBe('none');
  expect(compactEncoding.format).toBe(2);
  expect(compactEncoding.stats).toHaveLength(4);
  expect(compact.length).toBeLessThanOrEqual(fast.length);
  if (compactEncoding.entropy === 'none') {
    expect(Array.from(compact)).toEqual(Array.from(fast));
  } else {
    expect(compact.length).toBeLessThan(fast.length);
  }
  for (const scheme of fastEncoding.stats) {
    expect(scheme === undefined).toBe(buckets.length === 0);
    expect(scheme).not.toBe('decimal');
  }
  return { fast, compact };
}

/** Bytes of a format-2 bucket row whose four stats are stored as Gorilla XOR alone. */
function xorOnlyRowBytes(buckets: BucketColumns): number {
  const length = buckets.length;
  const uncounted = Float64Array.from(buckets.numPoints, (n, i) => n - buckets.count[i]!);
  const writer = new BitWriter(64);
  writeVarUint(writer, length);
  writeTimestamps(writer, buckets.startsMs, length);
  writePackedInts(writer, buckets.numPoints, length);
  writePackedInts(writer, uncounted, length);
  for (const stat of STATS) writeXorFloats(writer, buckets[stat], length);
  return FRAME_BYTES + writer.finish().length;
}

/** Regular 5-minute buckets of ten numeric points each; shorter stats columns repeat up to the longest. */
function regularRow(stats: Readonly<Record<(typeof STATS)[number], readonly number[]>>): BucketColumns {
  const length = Math.max(stats.mean.length, stats.m2.length, stats.min.length, stats.max.length);
  const take = (column: readonly number[]): Float64Array => Float64Array.from({ length }, (_, i) => column[i % column.length]!);
  return {
    length,
    startsMs: Float64Array.from({ length }, (_, i) => 1_700_000_000_000 + i * 300_000),
    numPoints: new Float64Array(length).fill(10),
    count: new Float64Array(length).fill(10),
    mean: take(stats.mean),
    m2: take(stats.m2),
    min: take(stats.min),
    max: take(stats.max),
  };
}

const statsColumns = fc.record({ mean: floatColumn, m2: floatColumn, min: floatColumn, max: floatColumn });

describe('bucket codec properties', () => {
  it('round-trips any sorted unique starts, integer counts and finite or NaN stats', () => {
    fc.assert(
      fc.property(fc.uniqueArray(rowArbitrary(anyFiniteDouble), { selector: (r) => r.startMs, maxLength: 200, size: 'max' }), (rows) => {
        expectRoundTrip(bucketsOf(rows));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips decimal-friendly stats, count-0 buckets included', () => {
    fc.assert(
      fc.property(fc.uniqueArray(rowArbitrary(decimalValue), { selector: (r) => r.startMs, maxLength: 200, size: 'max' }), (rows) => {
        expectRoundTrip(bucketsOf(rows));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips regular starts with constant counts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.constantFrom(300_000, 1_200_000, 86_400_000),
        fc.array(fc.tuple(decimalValue, anyFiniteDouble), { maxLength: 300, size: 'max' }),
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

  it('round-trips 1 to 3000 buckets of adversarial stats with either effort', () => {
    fc.assert(
      fc.property(statsColumns, (stats) => {
        expectRoundTrip(regularRow(stats));
      }),
      { numRuns: 100 },
    );
  });

  it('round-trips adversarial stats in any bucket, count 0 or not, at irregular starts', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(rowArbitrary(adversarialDouble), { selector: (r) => r.startMs, minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
        (rows) => {
          const buckets = bucketsOf(rows);
          // The model makes a count-0 bucket's stats NaN; the codec must carry any doubles anywhere.
          const sorted = [...rows].sort((a, b) => a.startMs - b.startMs);
          STATS.forEach((name, k) => buckets[name].set(sorted.map((r) => r.stats[k]!)));
          expectRoundTrip(buckets);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is never larger than the same row with XOR stats by more than 2 bytes a stat', () => {
    fc.assert(
      fc.property(statsColumns, (stats) => {
        const buckets = regularRow(stats);
        const { fast, compact } = expectRoundTrip(buckets);
        const xorBytes = xorOnlyRowBytes(buckets);
        expect(fast.length).toBeLessThanOrEqual(xorBytes + STATS.length * XOR_SLACK_BYTES_PER_COLUMN);
        expect(compact.length).toBeLessThanOrEqual(xorBytes + STATS.length * XOR_SLACK_BYTES_PER_COLUMN);
      }),
      { numRuns: 100 },
    );
  });
});
