// Owns the unit tests of the series reader: sealed chunks merged with the head, stored buckets where current, live buckets where stale, ranges.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { Head } from '../../src/ingest/head.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';
import { ChunkCache } from '../../src/query/chunk-cache.js';
import { readBuckets, readSamples, type HeadView, type ReaderSources } from '../../src/query/series-reader.js';
import { DueIndex } from '../../src/rollup/due-index.js';
import { encodeBuckets } from '../../src/storage/bucket-codec.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { samplesOf } from '../storage/codec-fixtures.js';
import { batchOf, type TestPoint } from '../storage/wal-fixtures.js';

/** A day boundary: FULL windows every 2 h from here, one MIN5 chunk per day. */
const D0 = Date.UTC(2024, 0, 8);
const W = LAYOUT.FULL.chunkWidthMs;
const MIN5 = LAYOUT.MIN5.bucketWidthMs;
const NOW = D0 + 3 * DAY_MS;

let dir: string;
let parts: PartitionSet;
let head: Head;
let due: DueIndex;
let src: ReaderSources;
let seq = 0;

/** The head as the reader sees it, adapted as store.ts does. */
function headView(h: Head): HeadView {
  return {
    windowsOf: (id) => [...h.windows].filter(([, w]) => w.series.has(id)).map(([start]) => start),
    samples: (id, w) => h.windows.get(w)?.series.get(id)?.samples(),
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-reader-'));
  parts = new PartitionSet(dir, 'normal');
  head = new Head();
  due = new DueIndex([], NOW);
  src = { cache: new ChunkCache(parts), head: headView(head), due };
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Seals samples of one series into the FULL chunk of `windowStartMs` (replacing what was there). */
function seal(seriesId: number, windowStartMs: number, samples: SampleColumns): void {
  parts.writeChunks('FULL', partitionStartOf('FULL', windowStartMs), [{ seriesId, chunkStartMs: windowStartMs, data: encodeChunk(samples) }]);
  src.cache.invalidate('FULL', windowStartMs, [seriesId]);
}

/** Stores rollup buckets of one series in the MIN5 chunk of `dayStartMs`. */
function storeMin5(seriesId: number, dayStartMs: number, buckets: BucketColumns): void {
  parts.writeChunks('MIN5', dayStartMs, [{ seriesId, chunkStartMs: dayStartMs, data: encodeBuckets(buckets) }]);
  src.cache.invalidate('MIN5', dayStartMs, [seriesId]);
}

function write(points: TestPoint[]): void {
  head.apply(batchOf(points), ++seq, NOW);
}

/** `n` points of one series every `stepMs` from `startMs`, value `value(i)`. */
function every(startMs: number, n: number, stepMs: number, value: (i: number) => number): SampleColumns {
  return samplesOf(
    Array.from({ length: n }, (_, i) => startMs + i * stepMs),
    Array.from({ length: n }, (_, i) => value(i)),
  );
}

const pairs = (s: SampleColumns): [number, number][] => Array.from(s.timestampsMs.subarray(0, s.length), (t, i) => [t, s.values[i] as number]);
const rows = (b: BucketColumns, ...cols: (keyof Omit<BucketColumns, 'length'>)[]): number[][] =>
  Array.from({ length: b.length }, (_, i) => [b.startsMs[i] as number, ...cols.map((c) => b[c][i] as number)]);

describe('readSamples', () => {
  it('returns the sealed samples in [from, to) across chunks, ascending', () => {
    seal(1, D0, every(D0, 4, 30 * MINUTE_MS, (i) => i));
    seal(1, D0 + W, every(D0 + W, 4, 30 * MINUTE_MS, (i) => 10 + i));
    const all = readSamples(src, 1, D0, D0 + 2 * W);
    expect(pairs(all).map(([, v]) => v)).toEqual([0, 1, 2, 3, 10, 11, 12, 13]);
    // Half-open: a point at `to` is out, one at `from` is in.
    const some = readSamples(src, 1, D0 + HOUR_MS, D0 + W + HOUR_MS);
    expect(pairs(some)).toEqual([
      [D0 + HOUR_MS, 2],
      [D0 + 90 * MINUTE_MS, 3],
      [D0 + W, 10],
      [D0 + W + 30 * MINUTE_MS, 11],
    ]);
  });

  it('returns nothing for a series or range without points', () => {
    seal(1, D0, every(D0, 2, MINUTE_MS, (i) => i));
    expect(readSamples(src, 2, D0, D0 + W).length).toBe(0);
    expect(readSamples(src, 1, D0 + W, D0 + 3 * W).length).toBe(0);
    expect(readSamples(src, 1, D0 + 2 * MINUTE_MS, D0 + W).length).toBe(0);
  });

  it('merges head samples over sealed ones: the head wins a shared timestamp, and head-only windows count', () => {
    seal(1, D0, every(D0, 3, MINUTE_MS, (i) => i));
    write([
      { id: 1, t: D0 + MINUTE_MS, v: 100 },
      { id: 1, t: D0 + 10 * MINUTE_MS, v: 110 },
      { id: 1, t: D0 + W + 5, v: 200 },
      { id: 2, t: D0 + 2 * MINUTE_MS, v: -1 },
    ]);
    expect(pairs(readSamples(src, 1, D0, D0 + 2 * W))).toEqual([
      [D0, 0],
      [D0 + MINUTE_MS, 100],
      [D0 + 2 * MINUTE_MS, 2],
      [D0 + 10 * MINUTE_MS, 110],
      [D0 + W + 5, 200],
    ]);
    expect(pairs(readSamples(src, 2, D0, D0 + W))).toEqual([[D0 + 2 * MINUTE_MS, -1]]);
  });

  it('carries string samples through, by time', () => {
    write([
      { id: 1, t: D0, v: 1 },
      { id: 1, t: D0 + 1_000, v: 'down' },
      { id: 1, t: D0 + 2_000, v: 3 },
    ]);
    const s = readSamples(src, 1, D0, D0 + W);
    expect(pairs(s)).toEqual([
      [D0, 1],
      [D0 + 2_000, 3],
    ]);
    expect(s.strings?.values).toEqual(['down']);
    expect(Array.from(s.strings!.timestampsMs)).toEqual([D0 + 1_000]);
  });
});

describe('readBuckets', () => {
  it('serves stored buckets where nothing finer changed (it does not recompute them)', () => {
    seal(1, D0, every(D0, 12, MINUTE_MS, () => 1));
    // Deliberately not what the raw points say: only a read of the stored chunk returns 99.
    storeMin5(1, D0, bucketsFromSamples(every(D0, 12, MINUTE_MS, () => 99), MIN5));
    expect(rows(readBuckets(src, 'MIN5', 1, D0, D0 + HOUR_MS), 'numPoints', 'mean')).toEqual([
      [D0, 5, 99],
      [D0 + MIN5, 5, 99],
      [D0 + 2 * MIN5, 2, 99],
    ]);
  });

  it('recomputes from FULL exactly the buckets of a FULL window that is due, keeping stored ones elsewhere', () => {
    const stale = every(D0, 6 * 60, MINUTE_MS, () => 99);
    storeMin5(1, D0, bucketsFromSamples(stale, MIN5));
    // Window [D0 + W, D0 + 2W) changed: its raw points are now 1s.
    seal(1, D0 + W, every(D0 + W, 120, MINUTE_MS, () => 1));
    due.add('FULL', D0 + W, [1], NOW);
    const b = readBuckets(src, 'MIN5', 1, D0, D0 + 6 * HOUR_MS);
    expect(b.length).toBe(72);
    const means = Array.from(b.mean);
    expect(means.slice(0, 24).every((m) => m === 99)).toBe(true);
    expect(means.slice(24, 48).every((m) => m === 1)).toBe(true);
    expect(means.slice(48).every((m) => m === 99)).toBe(true);
    // Another series' due work changes nothing for this one.
    due.consume(due.groups()[0]!.rows);
    due.add('FULL', D0 + W, [2], NOW);
    expect(Array.from(readBuckets(src, 'MIN5', 1, D0, D0 + 6 * HOUR_MS).mean).every((m) => m === 99)).toBe(true);
  });

  it('treats windows in the head as stale, combining sealed and head points', () => {
    seal(1, D0, every(D0, 10, MINUTE_MS, () => 2));
    storeMin5(1, D0, bucketsFromSamples(every(D0, 10, MINUTE_MS, () => 2), MIN5));
    write([{ id: 1, t: D0 + 3 * MINUTE_MS, v: 12 }]);
    expect(rows(readBuckets(src, 'MIN5', 1, D0, D0 + HOUR_MS), 'numPoints', 'mean', 'max')).toEqual([
      [D0, 5, 4, 12],
      [D0 + MIN5, 5, 2, 2],
    ]);
  });

  it('computes coarse buckets live through every level below when nothing is rolled up yet', () => {
    const raw = every(D0, 24 * 60, MINUTE_MS, (i) => (i % 17) - 3);
    for (let w = 0; w < 12; w++) seal(1, D0 + w * W, every(D0 + w * W, 120, MINUTE_MS, (i) => ((w * 120 + i) % 17) - 3));
    for (let w = 0; w < 12; w++) due.add('FULL', D0 + w * W, [1], NOW);
    const expected = bucketsFromSamples(raw, LAYOUT.MIN240.bucketWidthMs);
    const got = readBuckets(src, 'MIN240', 1, D0, D0 + DAY_MS);
    expect(rows(got, 'numPoints', 'count', 'min', 'max')).toEqual(rows(expected, 'numPoints', 'count', 'min', 'max'));
    for (let i = 0; i < got.length; i++) {
      expect(got.mean[i]).toBeCloseTo(expected.mean[i] as number, 9);
      expect(got.m2[i]).toBeCloseTo(expected.m2[i] as number, 6);
    }
    // Stored MIN5..MIN60 chunks do not exist: all of it came from the FULL chunks.
    expect(parts.starts('MIN5')).toEqual([]);
  });

  it('returns only buckets starting in [from, to), even when the chunk holds more', () => {
    storeMin5(1, D0, bucketsFromSamples(every(D0, 24, 5 * MINUTE_MS, (i) => i), MIN5));
    const b = readBuckets(src, 'MIN5', 1, D0 + HOUR_MS, D0 + HOUR_MS + 3 * MIN5);
    expect(rows(b, 'mean')).toEqual([
      [D0 + HOUR_MS, 12],
      [D0 + HOUR_MS + MIN5, 13],
      [D0 + HOUR_MS + 2 * MIN5, 14],
    ]);
  });

  it('stitches buckets of consecutive chunks in order', () => {
    for (const day of [0, 1]) storeMin5(1, D0 + day * DAY_MS, bucketsFromSamples(every(D0 + day * DAY_MS + DAY_MS - MIN5, 1, 1, () => day), MIN5));
    const b = readBuckets(src, 'MIN5', 1, D0, D0 + 2 * DAY_MS);
    expect(rows(b, 'mean')).toEqual([
      [D0 + DAY_MS - MIN5, 0],
      [D0 + 2 * DAY_MS - MIN5, 1],
    ]);
  });

  it('returns no buckets for a series without data', () => {
    expect(readBuckets(src, 'MIN60', 7, D0, D0 + DAY_MS).length).toBe(0);
  });
});
