// Owns the unit tests of the rollup scheduler on real files and pools: levels in order, one task per target chunk, the pool bound, back-off after failure, files being read, late data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { ROLLUP_QUEUE_MAX, ROLLUP_TASK_SERIES_MAX } from '../../src/core/limits.js';
import { alignDown, DAY_MS, MINUTE_MS } from '../../src/core/time.js';
import type { SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT, ROLLUP_RESOLUTIONS, type RollupResolution } from '../../src/model/resolution.js';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';
import { DueIndex } from '../../src/rollup/due-index.js';
import { RollupPool } from '../../src/rollup/rollup-pool.js';
import { RollupScheduler } from '../../src/rollup/scheduler.js';
import { decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { Catalog } from '../../src/storage/catalog.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { samplesOf } from '../storage/codec-fixtures.js';

/** A day boundary: a MIN5 chunk start, and a FULL window start. */
const D0 = Date.UTC(2024, 0, 8);
const NOW = D0 + 5 * DAY_MS;
/** RETRY_AFTER_FAILURE_MS of scheduler.ts: how long a failed target chunk is left alone. */
const RETRY_MS = 10_000;

interface Logged {
  readonly obj: Record<string, unknown>;
  readonly msg: string | undefined;
}

/** The scheduler wired to real storage, the way store.ts wires it, with what it reports recorded. */
interface Rig {
  readonly dir: string;
  readonly clock: ManualClock;
  readonly catalog: Catalog;
  readonly parts: PartitionSet;
  readonly due: DueIndex;
  readonly pool: RollupPool;
  readonly scheduler: RollupScheduler;
  readonly errors: Logged[];
  readonly written: [RollupResolution, number, number[]][];
  seq: number;
}

let rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs) {
    await r.scheduler.settle();
    await r.pool.close();
    r.parts.close();
    r.catalog.close();
    rmSync(r.dir, { recursive: true, force: true });
  }
  rigs = [];
});

function rig(workers: number): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'strata-scheduler-'));
  const clock = new ManualClock(NOW);
  const catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  const parts = new PartitionSet(dir, 'normal');
  const due = new DueIndex([], clock.now());
  const pool = new RollupPool(workers);
  const errors: Logged[] = [];
  const written: [RollupResolution, number, number[]][] = [];
  const scheduler = new RollupScheduler({
    pool,
    catalog,
    due,
    dataDir: dir,
    durability: 'normal',
    clock,
    logger: { info: () => {}, warn: () => {}, error: (obj, msg) => errors.push({ obj: obj as Record<string, unknown>, msg }) },
    onTargetWritten: (res, start, ids) => {
      parts.noteCreated(res, start);
      written.push([res, start, [...ids]]);
    },
  });
  const r: Rig = { dir, clock, catalog, parts, due, pool, scheduler, errors, written, seq: 0 };
  rigs.push(r);
  return r;
}

/** `n` samples every minute from `startMs`, value `value(i)`. */
function minutes(startMs: number, n: number, value: (i: number) => number = (i) => i): SampleColumns {
  return samplesOf(
    Array.from({ length: n }, (_, i) => startMs + i * MINUTE_MS),
    Array.from({ length: n }, (_, i) => value(i)),
  );
}

/** Seals samples of some series into a FULL window and records the rollups due, as the sealer does. */
function seal(r: Rig, windowStartMs: number, bySeries: ReadonlyMap<number, SampleColumns>): void {
  const writes = [...bySeries].map(([seriesId, s]) => ({ seriesId, chunkStartMs: windowStartMs, data: encodeChunk(s) }));
  r.parts.writeChunks('FULL', partitionStartOf('FULL', windowStartMs), writes);
  r.catalog.commitSeal(windowStartMs, ++r.seq, r.due.add('FULL', windowStartMs, [...bySeries.keys()], r.clock.now()));
}

/** The due rows on disk, read over a fresh connection (what a restart would load). */
function dueOnDisk(r: Rig): { sourceRes: string; sourceStartMs: number; seriesId: number }[] {
  const again = new Catalog(join(r.dir, 'catalog.sqlite'), 'normal');
  try {
    return again.loadDue().map(({ sourceRes, sourceStartMs, seriesId }) => ({ sourceRes, sourceStartMs, seriesId }));
  } finally {
    again.close();
  }
}

describe('RollupScheduler', () => {
  it.each([0, 1])('drains a sealed window through every level in order, finest first (workers: %i)', async (workers) => {
    const r = rig(workers);
    const raw = minutes(D0, 90, (i) => (i * 7) % 11);
    seal(r, D0, new Map([[3, raw]]));
    await r.scheduler.drain();
    expect(r.written.map(([res]) => res)).toEqual([...ROLLUP_RESOLUTIONS]);
    expect(r.written.map(([res, start]) => start === alignDown(D0, LAYOUT[res].chunkWidthMs))).toEqual([true, true, true, true, true]);
    expect(r.written.every(([, , ids]) => ids.length === 1 && ids[0] === 3)).toBe(true);
    // Sources rolled: 90 points, then 18 MIN5, 5 MIN20, 2 MIN60 and 1 MIN240 bucket.
    expect(r.scheduler.sourcePointsRolled).toBe(90 + 18 + 5 + 2 + 1);
    expect(r.due.isEmpty()).toBe(true);
    expect(dueOnDisk(r)).toEqual([]);
    expect(r.scheduler.active).toBe(0);
    const day = alignDown(D0, LAYOUT.MIN1440.chunkWidthMs);
    const top = decodeBuckets(r.parts.readChunk('MIN1440', 3, day)!);
    const expected = bucketsFromSamples(raw, DAY_MS);
    expect([top.length, top.numPoints[0], top.min[0], top.max[0]]).toEqual([1, 90, expected.min[0], expected.max[0]]);
    expect(top.mean[0]).toBeCloseTo(expected.mean[0] as number, 12);
    expect(r.errors).toEqual([]);
  });

  it('starts one level per pump: the next level is due only once the finer task finished', async () => {
    const r = rig(0);
    seal(r, D0, new Map([[1, minutes(D0, 10)]]));
    const levels: string[] = [];
    for (let i = 0; i < 6; i++) {
      const started = r.scheduler.pump();
      await r.scheduler.settle();
      levels.push(`${started}:${r.written.at(-1)?.[0] ?? '-'}`);
    }
    expect(levels).toEqual(['1:MIN5', '1:MIN20', '1:MIN60', '1:MIN240', '1:MIN1440', '0:MIN1440']);
    // MIN1440 has no coarser level: nothing is left due.
    expect(r.due.isEmpty()).toBe(true);
  });

  it('marks the next level due at the clock time the task finished', async () => {
    const r = rig(1);
    seal(r, D0, new Map([[1, minutes(D0, 10)]]));
    r.scheduler.pump();
    r.clock.advance(4_321);
    await r.scheduler.settle();
    expect([...r.due.windowsOf('MIN5', 1)]).toEqual([D0]);
    expect(r.due.oldestAddedMs()).toBe(NOW + 4_321);
  });

  it('runs at most one task per target chunk at a time, even when its series need two tasks', async () => {
    const r = rig(0);
    const n = ROLLUP_TASK_SERIES_MAX + 1;
    seal(r, D0, new Map(Array.from({ length: n }, (_, id) => [id, minutes(D0, 2)] as const)));
    expect(r.due.groups()).toHaveLength(2);
    expect(r.scheduler.pump()).toBe(1);
    expect(r.scheduler.active).toBe(1);
    // Still in flight (its bookkeeping settles asynchronously): the second group must wait.
    expect(r.scheduler.pump()).toBe(0);
    await r.scheduler.settle();
    expect(r.scheduler.active).toBe(0);
    expect(r.written.map(([res, , ids]) => [res, ids.length])).toEqual([['MIN5', ROLLUP_TASK_SERIES_MAX]]);
    expect(r.scheduler.pump()).toBe(1);
    await r.scheduler.settle();
    expect(r.written.map(([res, , ids]) => [res, ids.length])).toEqual([
      ['MIN5', ROLLUP_TASK_SERIES_MAX],
      ['MIN5', 1],
    ]);
    expect([...r.due.windowsOf('FULL', 0)]).toEqual([]);
  });

  it("never starts more tasks than the pool's bound, and starts the rest once room frees up", async () => {
    const r = rig(1);
    const bound = 1 + ROLLUP_QUEUE_MAX;
    // One due window on each of bound + 1 days: as many MIN5 target chunks, so as many tasks. No
    // FULL chunk is written: a task without source data still runs (and writes an empty target).
    for (let day = 0; day <= bound; day++) r.catalog.commitSeal(D0 - day * DAY_MS, ++r.seq, r.due.add('FULL', D0 - day * DAY_MS, [1], NOW));
    expect(r.scheduler.pump()).toBe(bound);
    expect(r.scheduler.active).toBe(bound);
    expect(r.pool.capacity).toBe(0);
    expect(r.scheduler.pump()).toBe(0);
    await r.scheduler.settle();
    expect(r.written).toHaveLength(bound);
    // The FULL level still has the one window left, so it goes before any MIN5 work.
    expect(r.scheduler.pump()).toBe(1);
    await r.scheduler.settle();
    expect(r.written.map(([res]) => res)).toEqual(Array.from({ length: bound + 1 }, () => 'MIN5'));
    expect(new Set(r.written.map(([, start]) => start)).size).toBe(bound + 1);
    expect([...r.due.windowsOf('FULL', 1)]).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  it('protects the source partition files of running tasks from the sweeper, and only those', async () => {
    const r = rig(1);
    seal(r, D0, new Map([[1, minutes(D0, 3)]]));
    const file = partitionStartOf('FULL', D0);
    expect(r.scheduler.isReading('FULL', file)).toBe(false);
    r.scheduler.pump();
    expect(r.scheduler.isReading('FULL', file)).toBe(true);
    expect(r.scheduler.isReading('FULL', file + LAYOUT.FULL.partitionWidthMs)).toBe(false);
    expect(r.scheduler.isReading('MIN5', D0)).toBe(false);
    await r.scheduler.settle();
    expect(r.scheduler.isReading('FULL', file)).toBe(false);
  });

  it('keeps a window re-marked while its task ran due, and rolls the late data up next', async () => {
    const r = rig(1);
    seal(r, D0, new Map([[1, minutes(D0, 10, () => 1)]]));
    expect(r.scheduler.pump()).toBe(1);
    // A late point is sealed into the same window while the worker reads it.
    seal(r, D0, new Map([[1, minutes(D0, 10, (i) => (i === 0 ? 91 : 1))]]));
    await r.scheduler.settle();
    expect([...r.due.windowsOf('FULL', 1)]).toEqual([D0]);
    expect(dueOnDisk(r)).toContainEqual({ sourceRes: 'FULL', sourceStartMs: D0, seriesId: 1 });
    await r.scheduler.drain();
    const min5 = decodeBuckets(r.parts.readChunk('MIN5', 1, D0)!);
    expect(min5.mean[0]).toBe(19);
    expect(r.due.isEmpty()).toBe(true);
  });

  describe('after a failed task', () => {
    /** Two days due; day 1's MIN5 target chunk is damaged, so its task fails. */
    function failing(): Rig {
      const r = rig(0);
      seal(r, D0, new Map([[1, minutes(D0, 4)]]));
      seal(r, D0 + DAY_MS, new Map([[1, minutes(D0 + DAY_MS, 4)]]));
      r.parts.writeChunks('MIN5', D0 + DAY_MS, [{ seriesId: 1, chunkStartMs: D0 + DAY_MS, data: Uint8Array.of(99) }]);
      return r;
    }

    it('logs the failure with its code and task, and leaves its work due on disk', async () => {
      const r = failing();
      expect(r.scheduler.pump()).toBe(2);
      await r.scheduler.settle();
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0]?.obj).toEqual({ code: 'STORE_SCHEMA_UNSUPPORTED', task: `MIN5:${D0 + DAY_MS}` });
      expect(r.errors[0]?.msg).toMatch(/^rollup task failed: .*version 99/);
      expect([...r.due.windowsOf('FULL', 1)]).toEqual([D0 + DAY_MS]);
      expect(dueOnDisk(r)).toContainEqual({ sourceRes: 'FULL', sourceStartMs: D0 + DAY_MS, seriesId: 1 });
      expect(dueOnDisk(r)).not.toContainEqual({ sourceRes: 'FULL', sourceStartMs: D0, seriesId: 1 });
      expect(r.scheduler.active).toBe(0);
      expect(r.scheduler.isReading('FULL', partitionStartOf('FULL', D0 + DAY_MS))).toBe(false);
    });

    it('backs off that target chunk for RETRY_AFTER_FAILURE_MS without holding back coarser levels', async () => {
      const r = failing();
      r.scheduler.pump();
      await r.scheduler.settle();
      // The failing FULL task is skipped; day 0's MIN5 -> MIN20 task goes ahead.
      expect(r.scheduler.pump()).toBe(1);
      await r.scheduler.settle();
      expect(r.written.at(-1)?.[0]).toBe('MIN20');
      expect(r.errors).toHaveLength(1);
      r.clock.advance(RETRY_MS - 1);
      r.scheduler.pump();
      await r.scheduler.settle();
      expect(r.errors).toHaveLength(1);
      r.clock.advance(1);
      r.scheduler.pump();
      await r.scheduler.settle();
      expect(r.errors).toHaveLength(2);
      expect(r.errors[1]?.obj).toEqual({ code: 'STORE_SCHEMA_UNSUPPORTED', task: `MIN5:${D0 + DAY_MS}` });
    });

    it('gives failed work one more try in drain and returns instead of spinning, then finishes once repaired', async () => {
      const r = failing();
      r.scheduler.pump();
      await r.scheduler.settle();
      await r.scheduler.drain();
      expect(r.errors).toHaveLength(2);
      expect([...r.due.windowsOf('FULL', 1)]).toEqual([D0 + DAY_MS]);
      expect([...r.due.windowsOf('MIN5', 1)]).toEqual([]);
      // Repair the damaged chunk: the next drain rolls day 1 all the way up.
      r.parts.writeChunks('MIN5', D0 + DAY_MS, [{ seriesId: 1, chunkStartMs: D0 + DAY_MS, data: encodeBuckets(bucketsFromSamples(minutes(D0 + DAY_MS, 0), 1)) }]);
      await r.scheduler.drain();
      expect(r.errors).toHaveLength(2);
      expect(r.due.isEmpty()).toBe(true);
      expect(dueOnDisk(r)).toEqual([]);
      expect(decodeBuckets(r.parts.readChunk('MIN5', 1, D0 + DAY_MS)!).numPoints[0]).toBe(4);
    });
  });
});
