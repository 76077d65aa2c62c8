// Owns the unit tests of the rollup pool on real worker threads: outcomes match inline runs, failures cross as values, the queue bound holds, close finishes work and refuses more.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { ROLLUP_QUEUE_MAX } from '../../src/core/limits.js';
import { DAY_MS, MINUTE_MS } from '../../src/core/time.js';
import { RollupPool } from '../../src/rollup/rollup-pool.js';
import { runRollupTask, type RollupOutcome, type RollupTask } from '../../src/rollup/rollup-task.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';
import { samplesOf } from '../storage/codec-fixtures.js';

/** A day boundary: a MIN5 chunk start. */
const D0 = Date.UTC(2024, 0, 8);

let dirs: string[];
let pools: RollupPool[];
beforeEach(() => {
  dirs = [];
  pools = [];
});
afterEach(async () => {
  for (const p of pools) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-pool-'));
  dirs.push(dir);
  return dir;
}

function pool(workers: number): RollupPool {
  const p = new RollupPool(workers);
  pools.push(p);
  return p;
}

/** A data directory holding 90 minutes of one series in FULL, and a task rolling them into MIN5. */
function seeded(): { dir: string; task: RollupTask } {
  const dir = tempDir();
  const parts = new PartitionSet(dir, 'normal');
  const n = 90;
  const samples = samplesOf(
    Array.from({ length: n }, (_, i) => D0 + i * MINUTE_MS),
    Array.from({ length: n }, (_, i) => i % 13),
  );
  parts.writeChunks('FULL', partitionStartOf('FULL', D0), [{ seriesId: 5, chunkStartMs: D0, data: encodeChunk(samples) }]);
  parts.close();
  return { dir, task: { dataDir: dir, durability: 'normal', sourceRes: 'FULL', targetRes: 'MIN5', targetStartMs: D0, series: [{ id: 5, sourceStartsMs: [D0] }] } };
}

function storedTarget(dir: string): Buffer | undefined {
  const parts = new PartitionSet(dir, 'normal');
  try {
    const bytes = parts.readChunk('MIN5', 5, D0);
    return bytes === undefined ? undefined : Buffer.from(bytes);
  } finally {
    parts.close();
  }
}

/** A task that touches no series: it only opens (creating) the target file of day `day`. */
function emptyTask(dir: string, day: number): RollupTask {
  return { dataDir: dir, durability: 'normal', sourceRes: 'FULL', targetRes: 'MIN5', targetStartMs: D0 + day * DAY_MS, series: [] };
}

describe('RollupPool', () => {
  it('runs tasks inline when given no workers, with the same bound on tasks at once', async () => {
    const p = pool(0);
    expect(p.capacity).toBe(1 + ROLLUP_QUEUE_MAX);
    const { dir, task } = seeded();
    expect(await p.run(task)).toEqual({ ok: true, seriesWritten: 1, sourcePoints: 90 });
    expect(p.inFlight).toBe(0);
    expect(storedTarget(dir)).toBeDefined();
  });

  it('runs a task on a worker thread with the same outcome and the same stored bytes as inline', async () => {
    const inline = seeded();
    const threaded = seeded();
    const expected = runRollupTask(inline.task);
    const p = pool(1);
    const running = p.run(threaded.task);
    expect(p.inFlight).toBe(1);
    expect(await running).toEqual(expected);
    expect(p.inFlight).toBe(0);
    expect(storedTarget(threaded.dir)?.equals(storedTarget(inline.dir)!)).toBe(true);
  });

  it('brings a failed task back as a value with its code and message, exactly as inline', async () => {
    const broken = (): RollupTask => {
      const { dir, task } = seeded();
      const parts = new PartitionSet(dir, 'normal');
      parts.writeChunks('MIN5', D0, [{ seriesId: 5, chunkStartMs: D0, data: Uint8Array.of(77) }]);
      parts.close();
      return task;
    };
    const inline = runRollupTask(broken());
    const threaded: RollupOutcome = await pool(1).run(broken());
    expect(threaded.ok).toBe(false);
    expect(threaded).toEqual(inline);
    expect(threaded).toMatchObject({ code: 'STORE_SCHEMA_UNSUPPORTED', message: expect.stringMatching(/version 77/) });
  });

  it('brings a data directory the worker cannot open back as a value, not a rejection', async () => {
    const notADir = join(tempDir(), 'not-a-directory');
    writeFileSync(notADir, 'x');
    const threaded = await pool(1).run({ ...emptyTask(notADir, 0), series: [{ id: 5, sourceStartsMs: [D0] }] });
    expect(threaded).toMatchObject({ ok: false, code: 'INTERNAL', message: expect.stringMatching(/ENOTDIR/) });
  });

  it.each([1, 2])('with %i worker(s) accepts threads + ROLLUP_QUEUE_MAX tasks at once, refuses the next with ROLLUP_QUEUE_FULL, and recovers', async (workers) => {
    const p = pool(workers);
    const dir = tempDir();
    const bound = workers + ROLLUP_QUEUE_MAX;
    expect(p.capacity).toBe(bound);
    const accepted = Array.from({ length: bound }, (_, day) => p.run(emptyTask(dir, day)));
    expect(p.inFlight).toBe(bound);
    expect(p.capacity).toBe(0);
    const refused = await p.run(emptyTask(dir, bound)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StrataError);
    expect((refused as StrataError).code).toBe('ROLLUP_QUEUE_FULL');
    expect((refused as StrataError).kind).toBe('unavailable');
    expect(p.inFlight).toBe(bound);
    // Piscina's own queue agrees with the bound: none of the accepted tasks was turned away.
    const outcomes = await Promise.all(accepted);
    expect(outcomes.every((o) => o.ok && o.seriesWritten === 0)).toBe(true);
    expect(p.inFlight).toBe(0);
    expect(p.capacity).toBe(bound);
    expect(await p.run(emptyTask(dir, bound))).toEqual({ ok: true, seriesWritten: 0, sourcePoints: 0 });
  });

  it.each([0, 1])('finishes every running and queued task before close resolves, and writes their targets (workers: %i)', async (workers) => {
    const p = pool(workers);
    const dir = tempDir();
    const days = [0, 1, 2, 3];
    // With one thread, one task runs and three wait in the queue when close is called.
    const runs = Promise.allSettled(days.map((day) => p.run(emptyTask(dir, day))));
    await p.close();
    expect(await runs).toEqual(days.map(() => ({ status: 'fulfilled', value: { ok: true, seriesWritten: 0, sourcePoints: 0 } })));
    expect(p.inFlight).toBe(0);
    const parts = new PartitionSet(dir, 'normal');
    try {
      expect(parts.starts('MIN5')).toEqual(days.map((day) => partitionStartOf('MIN5', D0 + day * DAY_MS)));
    } finally {
      parts.close();
    }
  });

  it.each([0, 1])('refuses a task after close with STORE_CLOSED, without handing it to piscina (workers: %i)', async (workers) => {
    const p = pool(workers);
    const dir = tempDir();
    expect(await p.run(emptyTask(dir, 0))).toMatchObject({ ok: true });
    await p.close();
    expect(p.capacity).toBe(0);
    const piscinaRun = vi.spyOn(Piscina.prototype, 'run');
    try {
      const refused = await p.run(emptyTask(dir, 1)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(StrataError);
      expect((refused as StrataError).code).toBe('STORE_CLOSED');
      // Piscina would start a new thread for it: a closed pool must not get that far.
      expect(piscinaRun).not.toHaveBeenCalled();
    } finally {
      piscinaRun.mockRestore();
    }
    expect(p.inFlight).toBe(0);
    // Nothing ran: the target file of day 1 was never created.
    const parts = new PartitionSet(dir, 'normal');
    try {
      expect(parts.starts('MIN5')).toEqual([partitionStartOf('MIN5', D0)]);
    } finally {
      parts.close();
    }
    // Closing twice is harmless.
    await p.close();
  });
});
