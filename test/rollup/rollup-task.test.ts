// Owns the unit tests of one rollup task run against real partition files: buckets from samples and from buckets, overlaying changed windows, vanished sources, idempotence, errors as values (with their own codes, even when the data directory cannot be opened).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../../src/core/time.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { bucketsFromBuckets, bucketsFromSamples } from '../../src/model/rollup-math.js';
import { runRollupTask, type RollupTask } from '../../src/rollup/rollup-task.js';
import { decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { columnDifference, samplesOf } from '../storage/codec-fixtures.js';

/** A day boundary, so also a MIN5 chunk start; FULL windows are 2 hours from here. */
const D0 = Date.UTC(2024, 0, 8);
const W = LAYOUT.FULL.chunkWidthMs;
const MIN5 = LAYOUT.MIN5.bucketWidthMs;

let dir: string;
let parts: PartitionSet;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-task-'));
  parts = new PartitionSet(dir, 'normal');
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` samples every minute from `startMs`, value `value(i)`. */
function minutes(startMs: number, n: number, value: (i: number) => number): SampleColumns {
  return samplesOf(
    Array.from({ length: n }, (_, i) => startMs + i * MINUTE_MS),
    Array.from({ length: n }, (_, i) => value(i)),
  );
}

function sealFull(seriesId: number, windowStartMs: number, samples: SampleColumns): void {
  parts.writeChunks('FULL', partitionStartOf('FULL', windowStartMs), [{ seriesId, chunkStartMs: windowStartMs, data: encodeChunk(samples) }]);
}

function task(more: Partial<RollupTask> & Pick<RollupTask, 'series'>): RollupTask {
  return { dataDir: dir, durability: 'normal', sourceRes: 'FULL', targetRes: 'MIN5', targetStartMs: D0, ...more };
}

function targetOf(seriesId: number, res: 'MIN5' | 'MIN20' = 'MIN5', startMs = D0): BucketColumns | undefined {
  const bytes = parts.readChunk(res, seriesId, startMs);
  return bytes === undefined ? undefined : decodeBuckets(bytes);
}

/** Columns of two bucket sets that differ, or null when all seven are bit-identical. */
function bucketDifference(a: BucketColumns, b: BucketColumns): string | null {
  for (const c of ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const) {
    const d = columnDifference(a[c].subarray(0, a.length), b[c].subarray(0, b.length));
    if (d !== null) return `${c}: ${d}`;
  }
  return null;
}

describe('runRollupTask', () => {
  it('rolls FULL samples into MIN5 buckets for every series of the task, counting string samples as points', () => {
    const a = minutes(D0, 30, (i) => i);
    const b: SampleColumns = { ...minutes(D0 + W, 7, () => 2), strings: { length: 1, timestampsMs: Float64Array.of(D0 + W + 30), values: ['up'] } };
    sealFull(1, D0, a);
    sealFull(2, D0 + W, b);
    const outcome = runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0] }, { id: 2, sourceStartsMs: [D0 + W] }] }));
    expect(outcome).toEqual({ ok: true, seriesWritten: 2, sourcePoints: 30 + 8 });
    // The task wrote through its own connection: this set learns of the file when told, or on first read.
    expect(parts.starts('MIN5')).toEqual([]);
    expect(bucketDifference(targetOf(1)!, bucketsFromSamples(a, MIN5))).toBeNull();
    expect(bucketDifference(targetOf(2)!, bucketsFromSamples(b, MIN5))).toBeNull();
    // Minutes 0..4 and the string at +30 ms share the first bucket: 6 points, 5 of them numbers.
    expect([targetOf(2)!.numPoints[0], targetOf(2)!.count[0]]).toEqual([6, 5]);
    expect(parts.starts('MIN5')).toEqual([D0]);
  });

  it('rolls MIN5 buckets into MIN20 exactly as the bucket math merges them', () => {
    const raw = minutes(D0, 24 * 60, (i) => Math.sin(i / 10) * 50);
    const min5 = bucketsFromSamples(raw, MIN5);
    parts.writeChunks('MIN5', D0, [{ seriesId: 4, chunkStartMs: D0, data: encodeBuckets(min5) }]);
    const target = partitionStartOf('MIN20', D0);
    const outcome = runRollupTask(task({ sourceRes: 'MIN5', targetRes: 'MIN20', targetStartMs: target, series: [{ id: 4, sourceStartsMs: [D0] }] }));
    expect(outcome).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 288 });
    expect(bucketDifference(targetOf(4, 'MIN20', target)!, bucketsFromBuckets(min5, LAYOUT.MIN20.bucketWidthMs))).toBeNull();
  });

  it('replaces only the buckets of the source windows named, keeping the rest of the target chunk', () => {
    const first = minutes(D0, 60, () => 1);
    const second = minutes(D0 + W, 60, () => 2);
    sealFull(1, D0, first);
    sealFull(1, D0 + W, second);
    runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0, D0 + W] }] }));
    // Both windows change on disk, but only the second is named as changed.
    sealFull(1, D0, minutes(D0, 60, () => 10));
    sealFull(1, D0 + W, minutes(D0 + W, 90, () => 20));
    expect(runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0 + W] }] }))).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 90 });
    const b = targetOf(1)!;
    expect(b.length).toBe(12 + 18);
    expect(Array.from(b.mean.subarray(0, 12)).every((m) => m === 1)).toBe(true);
    expect(Array.from(b.mean.subarray(12)).every((m) => m === 20)).toBe(true);
  });

  it('leaves target buckets alone when their source chunk is gone: rollups outlive their sources', () => {
    sealFull(1, D0, minutes(D0, 60, () => 5));
    runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0] }] }));
    const before = targetOf(1)!;
    parts.drop('FULL', partitionStartOf('FULL', D0));
    expect(runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0] }] }))).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 0 });
    expect(bucketDifference(targetOf(1)!, before)).toBeNull();
  });

  it('writes an empty target chunk for a series with no source data at all', () => {
    expect(runRollupTask(task({ series: [{ id: 9, sourceStartsMs: [D0] }] }))).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 0 });
    expect(targetOf(9)?.length).toBe(0);
  });

  it('is idempotent: running the same task again stores the same bytes', () => {
    sealFull(1, D0, minutes(D0, 100, (i) => i * 0.1));
    sealFull(1, D0 + 5 * W, minutes(D0 + 5 * W, 33, (i) => -i));
    const t = task({ series: [{ id: 1, sourceStartsMs: [D0, D0 + 5 * W] }] });
    runRollupTask(t);
    const once = parts.readChunk('MIN5', 1, D0)!;
    expect(runRollupTask(t)).toEqual(runRollupTask(t));
    expect(Buffer.from(parts.readChunk('MIN5', 1, D0)!).equals(Buffer.from(once))).toBe(true);
  });

  it('returns a failure as a value and writes nothing when any series fails', () => {
    sealFull(1, D0, minutes(D0, 10, () => 1));
    sealFull(2, D0, minutes(D0, 10, () => 2));
    // Series 2's target chunk is damaged: an unknown format version.
    parts.writeChunks('MIN5', D0, [{ seriesId: 2, chunkStartMs: D0, data: Uint8Array.of(99, 0, 0) }]);
    const outcome = runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0] }, { id: 2, sourceStartsMs: [D0] }] }));
    expect(outcome.ok).toBe(false);
    expect(outcome).toMatchObject({ ok: false, code: 'STORE_SCHEMA_UNSUPPORTED' });
    expect(!outcome.ok && outcome.message).toMatch(/bucket format version 99/);
    // The series before the damaged one was not written either: one transaction or nothing.
    expect(targetOf(1)).toBeUndefined();
  });

  it('returns a data directory it cannot open as a failure value instead of throwing', () => {
    // A regular file where the data directory should be: PartitionSet cannot create partitions/ under it.
    const notADir = join(dir, 'not-a-directory');
    writeFileSync(notADir, 'x');
    let outcome: ReturnType<typeof runRollupTask> | undefined;
    expect(() => {
      outcome = runRollupTask(task({ dataDir: notADir, series: [{ id: 1, sourceStartsMs: [D0] }] }));
    }).not.toThrow();
    expect(outcome).toMatchObject({ ok: false, code: 'INTERNAL', message: expect.stringMatching(/ENOTDIR/) });
  });

  it("reports a StrataError's own code, not INTERNAL (a target file of a newer schema)", () => {
    sealFull(1, D0, minutes(D0, 10, () => 1));
    const newer = openDatabase(parts.pathOf('MIN5', partitionStartOf('MIN5', D0)), { file: 'partition', durability: 'normal' });
    newer.pragma(`user_version = ${(newer.pragma('user_version', { simple: true }) as number) + 1}`);
    newer.close();
    const outcome = runRollupTask(task({ series: [{ id: 1, sourceStartsMs: [D0] }] }));
    expect(outcome).toMatchObject({ ok: false, code: 'STORE_SCHEMA_UNSUPPORTED', message: expect.stringMatching(/schema version/) });
  });

  it('covers windows a day apart only through their own target chunk', () => {
    sealFull(1, D0 + DAY_MS, minutes(D0 + DAY_MS, 10, () => 3));
    const outcome = runRollupTask(task({ targetStartMs: D0 + DAY_MS, series: [{ id: 1, sourceStartsMs: [D0 + DAY_MS] }] }));
    expect(outcome).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 10 });
    expect(targetOf(1, 'MIN5', D0 + DAY_MS)?.length).toBe(2);
    expect(targetOf(1, 'MIN5', D0)).toBeUndefined();
  });
});
