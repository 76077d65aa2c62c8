// Owns the unit tests of the chunk cache: decoding, hits, cached absence, invalidation, least-recently-used eviction at the byte bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/time.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';
import { CHUNK_CACHE_BYTES_MAX, ChunkCache, decodedBytes } from '../../src/query/chunk-cache.js';
import { encodeBuckets } from '../../src/storage/bucket-codec.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { columnDifference, samplesOf } from '../storage/codec-fixtures.js';

/** A day boundary: a FULL chunk start, and a MIN5 chunk and partition start. */
const D0 = Date.UTC(2024, 0, 10);
const FULL_CHUNK_MS = LAYOUT.FULL.chunkWidthMs;

let dir: string;
let parts: PartitionSet;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-cache-'));
  parts = new PartitionSet(dir, 'normal');
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` numeric samples one second apart from the chunk start, value i * scale. */
function run(chunkStartMs: number, n: number, scale = 1): SampleColumns {
  return samplesOf(
    Array.from({ length: n }, (_, i) => chunkStartMs + i * 1_000),
    Array.from({ length: n }, (_, i) => i * scale),
  );
}

function storeSamples(seriesId: number, chunkStartMs: number, samples: SampleColumns): void {
  parts.writeChunks('FULL', partitionStartOf('FULL', chunkStartMs), [{ seriesId, chunkStartMs, data: encodeChunk(samples) }]);
}

function storeBuckets(seriesId: number, chunkStartMs: number, buckets: BucketColumns): void {
  parts.writeChunks('MIN5', partitionStartOf('MIN5', chunkStartMs), [{ seriesId, chunkStartMs, data: encodeBuckets(buckets) }]);
}

describe('reading through the cache', () => {
  it('decodes a stored FULL chunk and hands out the same decoded columns while cached', () => {
    const stored = run(D0, 5, 1.5);
    storeSamples(1, D0, stored);
    const cache = new ChunkCache(parts);
    const first = cache.samples(1, D0);
    expect(first).not.toBeNull();
    expect(columnDifference(first!.timestampsMs, stored.timestampsMs)).toBeNull();
    expect(columnDifference(first!.values, stored.values)).toBeNull();
    expect(cache.samples(1, D0)).toBe(first);
  });

  it('decodes rollup chunks as buckets', () => {
    const buckets = bucketsFromSamples(run(D0, 600), LAYOUT.MIN5.bucketWidthMs);
    storeBuckets(2, D0, buckets);
    const cache = new ChunkCache(parts);
    const back = cache.buckets('MIN5', 2, D0);
    expect(back?.length).toBe(2);
    expect(columnDifference(back!.mean, buckets.mean)).toBeNull();
    expect(columnDifference(back!.count, buckets.count)).toBeNull();
    expect(cache.buckets('MIN5', 2, D0)).toBe(back);
  });

  it('keys entries by resolution, series and chunk start', () => {
    storeSamples(1, D0, run(D0, 3));
    storeSamples(1, D0 + FULL_CHUNK_MS, run(D0 + FULL_CHUNK_MS, 4));
    storeSamples(2, D0, run(D0, 5));
    const cache = new ChunkCache(parts);
    expect([cache.samples(1, D0)?.length, cache.samples(1, D0 + FULL_CHUNK_MS)?.length, cache.samples(2, D0)?.length]).toEqual([3, 4, 5]);
    expect(cache.buckets('MIN5', 1, D0)).toBeNull();
  });

  it('caches absence too, until the chunk is invalidated', () => {
    const cache = new ChunkCache(parts);
    expect(cache.samples(1, D0)).toBeNull();
    storeSamples(1, D0, run(D0, 3));
    // The cache never looks at the files again on its own: the writer must invalidate.
    expect(cache.samples(1, D0)).toBeNull();
    cache.invalidate('FULL', D0, [1]);
    expect(cache.samples(1, D0)?.length).toBe(3);
  });
});

describe('invalidation', () => {
  it('invalidate forgets only the named series at that resolution and start', () => {
    for (const id of [1, 2]) storeSamples(id, D0, run(D0, 3));
    storeSamples(1, D0 + FULL_CHUNK_MS, run(D0 + FULL_CHUNK_MS, 3));
    storeBuckets(1, D0, bucketsFromSamples(run(D0, 3), LAYOUT.MIN5.bucketWidthMs));
    const cache = new ChunkCache(parts);
    const a = cache.samples(1, D0);
    const b = cache.samples(2, D0);
    const later = cache.samples(1, D0 + FULL_CHUNK_MS);
    const rolled = cache.buckets('MIN5', 1, D0);
    storeSamples(1, D0, run(D0, 7));
    cache.invalidate('FULL', D0, [1, 99]);
    expect(cache.samples(1, D0)?.length).toBe(7);
    expect(cache.samples(1, D0)).not.toBe(a);
    expect(cache.samples(2, D0)).toBe(b);
    expect(cache.samples(1, D0 + FULL_CHUNK_MS)).toBe(later);
    expect(cache.buckets('MIN5', 1, D0)).toBe(rolled);
  });

  it('invalidateBefore forgets the chunks of one resolution that start before the bound', () => {
    const starts = [0, 1, 2].map((i) => D0 + i * FULL_CHUNK_MS);
    for (const s of starts) storeSamples(1, s, run(s, 2));
    storeBuckets(1, D0, bucketsFromSamples(run(D0, 2), LAYOUT.MIN5.bucketWidthMs));
    const cache = new ChunkCache(parts);
    const before = starts.map((s) => cache.samples(1, s));
    const rolled = cache.buckets('MIN5', 1, D0);
    cache.invalidateBefore('FULL', starts[2] as number);
    const after = starts.map((s) => cache.samples(1, s));
    expect(after.map((x, i) => x === before[i])).toEqual([false, false, true]);
    expect(after.map((x) => x?.length)).toEqual([2, 2, 2]);
    expect(cache.buckets('MIN5', 1, D0)).toBe(rolled);
  });
});

describe('the byte bound', () => {
  it('charges 8 bytes per number plus an overhead, and string samples by their length', () => {
    const overhead = decodedBytes(null);
    expect(overhead).toBeGreaterThan(0);
    expect(decodedBytes(run(D0, 10))).toBe(overhead + 10 * 2 * 8);
    const buckets = bucketsFromSamples(run(D0, 600), LAYOUT.MIN5.bucketWidthMs);
    expect(decodedBytes(buckets)).toBe(overhead + 2 * 7 * 8);
    const withStrings: SampleColumns = { ...run(D0, 1), strings: { length: 2, timestampsMs: Float64Array.of(D0 + 1, D0 + 2), values: ['up', 'x'.repeat(1024)] } };
    expect(decodedBytes(withStrings)).toBe(overhead + 16 + (8 + 4) + (8 + 2048));
  });

  it('evicts the least recently used chunks once the decoded bytes would pass the bound', () => {
    for (let id = 0; id < 4; id++) storeSamples(id, D0, run(D0, 100));
    const entry = decodedBytes(run(D0, 100));
    // Room for three entries, not four.
    const cache = new ChunkCache(parts, 3 * entry + 10);
    const first = [0, 1, 2].map((id) => cache.samples(id, D0));
    // Touch 0, so 1 is now the least recently used.
    expect(cache.samples(0, D0)).toBe(first[0]);
    cache.samples(3, D0);
    expect(cache.samples(0, D0)).toBe(first[0]);
    expect(cache.samples(2, D0)).toBe(first[2]);
    const again = cache.samples(1, D0);
    expect(again).not.toBe(first[1]);
    expect(again?.length).toBe(100);
  });

  it('frees the bytes of invalidated chunks for new ones', () => {
    for (let id = 0; id < 3; id++) storeSamples(id, D0, run(D0, 100));
    const cache = new ChunkCache(parts, 2 * decodedBytes(run(D0, 100)));
    const zero = cache.samples(0, D0);
    cache.samples(1, D0);
    cache.invalidate('FULL', D0, [1]);
    cache.samples(2, D0);
    // Without the freed bytes, reading 2 would have evicted 0.
    expect(cache.samples(0, D0)).toBe(zero);
  });

  it('keeps a chunk of exactly CHUNK_CACHE_BYTES_MAX by default, and serves a larger one without keeping it or evicting others', () => {
    const overhead = decodedBytes(null);
    const fits = (CHUNK_CACHE_BYTES_MAX - overhead) / 16;
    expect(Number.isInteger(fits)).toBe(true);
    const big = (start: number, n: number): SampleColumns => {
      const ts = new Float64Array(n);
      for (let i = 0; i < n; i++) ts[i] = start + i;
      return { length: n, timestampsMs: ts, values: new Float64Array(n), strings: null };
    };
    storeSamples(1, D0, big(D0, fits));
    storeSamples(2, D0, big(D0, fits + 1));
    storeSamples(3, D0, run(D0, 1));
    const cache = new ChunkCache(parts);
    // Identities compared as booleans: a failing toBe would diff millions of numbers.
    const kept = cache.samples(1, D0);
    expect(decodedBytes(kept)).toBe(CHUNK_CACHE_BYTES_MAX);
    expect(cache.samples(1, D0) === kept).toBe(true);
    const tooBig = cache.samples(2, D0);
    expect(tooBig?.length).toBe(fits + 1);
    expect(cache.samples(2, D0) === tooBig).toBe(false);
    expect(cache.samples(1, D0) === kept).toBe(true);
    // Any further chunk pushes the full-size one out.
    cache.samples(3, D0);
    expect(cache.samples(1, D0) === kept).toBe(false);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new ChunkCache(parts, 0)).toThrow(/positive integer/);
    expect(() => new ChunkCache(parts, 1.5)).toThrow(/positive integer/);
  });

  it('reads MIN5 chunks a day apart as separate entries', () => {
    for (const day of [0, 1]) storeBuckets(1, D0 + day * DAY_MS, bucketsFromSamples(run(D0 + day * DAY_MS, 1 + day), LAYOUT.MIN5.bucketWidthMs));
    const cache = new ChunkCache(parts);
    expect([cache.buckets('MIN5', 1, D0)?.numPoints[0], cache.buckets('MIN5', 1, D0 + DAY_MS)?.numPoints[0]]).toEqual([1, 2]);
  });
});
