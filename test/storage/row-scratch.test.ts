// Owns the tests of the encoders' shared writer and scratch: a row's bytes never depend on the rows encoded before it, and are never overwritten by the next.
import { describe, expect, it } from 'vitest';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';
import type { SampleColumns } from '../../src/model/bucket.js';
import { decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import { SHARED_ROW_VALUES_MAX } from '../../src/storage/row-scratch.js';
import { columnDifference, randomWalk } from './codec-fixtures.js';

/** A 2-decimal walk with a string sample, a -0, a NaN and an artefact: every path of the encoder. */
function oddChunk(length: number, seed: number): SampleColumns {
  const walk = randomWalk({ length, seed, decimals: 2 });
  walk.values[3 % length] = -0;
  walk.values[5 % length] = Number.NaN;
  walk.values[7 % length] = 0.1 + 0.2;
  return { ...walk, strings: { length: 1, timestampsMs: Float64Array.of(walk.timestampsMs[0]! + 1), values: ['status: degraded'] } };
}

describe('row scratch shared by the encoders', () => {
  it('encodes a chunk to the same bytes whatever was encoded before, and leaves earlier results alone', () => {
    const small = randomWalk({ length: 240, seed: 1, decimals: 2 });
    const first = encodeChunk(small);
    const firstCopy = Uint8Array.from(first);
    // Longer and different rows in between: full precision, odd values, the compact effort, and
    // a row past the shared size that gets its own writer.
    encodeChunk(randomWalk({ length: 3000, seed: 2 }));
    encodeChunk(oddChunk(700, 3), 'compact');
    const huge = randomWalk({ length: SHARED_ROW_VALUES_MAX + 1, seed: 4, decimals: 1 });
    const hugeBytes = encodeChunk(huge);
    expect(columnDifference(decodeChunk(hugeBytes).values, huge.values)).toBeNull();
    expect(Array.from(first)).toEqual(Array.from(firstCopy));
    expect(Array.from(encodeChunk(small))).toEqual(Array.from(firstCopy));
  });

  it('encodes a bucket row to the same bytes whatever was encoded before', () => {
    const buckets = bucketsFromSamples(randomWalk({ length: 2880, seed: 5, decimals: 2 }), 300_000);
    const first = Uint8Array.from(encodeBuckets(buckets));
    encodeChunk(oddChunk(2880, 6));
    encodeBuckets(bucketsFromSamples(randomWalk({ length: 5000, seed: 7 }), 60_000), 'compact');
    encodeBuckets(bucketsFromSamples(oddChunk(20, 8), 30_000));
    const again = encodeBuckets(buckets);
    expect(Array.from(again)).toEqual(Array.from(first));
    expect(columnDifference(decodeBuckets(again).mean, buckets.mean)).toBeNull();
  });

  it('round-trips chunks encoded back to back through one shared writer', () => {
    const rows = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? oddChunk(50 + i * 37, i) : randomWalk({ length: 1 + i * 91, seed: i, decimals: i % 2 === 0 ? undefined : 3 })));
    const encoded = rows.map((row, i) => encodeChunk(row, i % 4 === 0 ? 'compact' : 'fast'));
    rows.forEach((row, i) => {
      const decoded = decodeChunk(encoded[i]!);
      expect(columnDifference(decoded.values, row.values)).toBeNull();
      expect(columnDifference(decoded.timestampsMs, row.timestampsMs)).toBeNull();
      expect(decoded.strings?.values ?? null).toEqual(row.strings?.values ?? null);
    });
  });
});
