// Tests sealing in steps: a big window seals over several event-loop turns while writes and queries go on, exactly once, crash-safe.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SEAL_STEP_SERIES_MAX } from '../src/core/limits.js';
import { HOUR_MS } from '../src/core/time.js';
import { PointColumnsBuilder } from '../src/model/point-columns.js';
import type { Point } from '../src/model/sample.js';
import { openStore, sealsSettled, sealTurns } from '../src/store.js';
import type { Store } from '../src/store-types.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

/** The clock stands inside W1, so points of W0 and W1 are both accepted. */
const NOW = T_NOON + 3 * HOUR_MS;

/** FULL windows are 2 hours wide; T_NOON starts one. */
const W0 = T_NOON;
const W1 = T_NOON + 2 * HOUR_MS;
/** Enough series that sealing their window takes several steps. */
const BULK_SERIES = Math.floor(SEAL_STEP_SERIES_MAX * 2.5);

let t: TestStore | undefined;
const extraDirs: string[] = [];
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
  for (const dir of extraDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One point for each of BULK_SERIES series in window W0. */
async function writeBulk(store: Store): Promise<void> {
  const b = new PointColumnsBuilder();
  for (let s = 0; s < BULK_SERIES; s++) b.push('acme', `bulk${s}`, W0 + s, s, undefined);
  await store.writeColumns(b);
}

/** FULL samples of a probe metric over W0 and W1, as [timestamp, value] pairs. */
async function read(store: Store, metric: string): Promise<[number, number][]> {
  const r = await store.query({ tenant: 'acme', metric, from: W0, to: W1 + 2 * HOUR_MS, resolution: 'FULL', select: ['average'] });
  return r.values.map((v) => [v.timestamp, v.average as number]);
}

/** A metric's samples in the head's window W0, read through the store's internals (its partition is damaged, so queries fail). */
function headSamples(store: Store, metric: string): [number, number][] {
  const inside = store as unknown as {
    registry: { lookup(tenant: string, metric: string): number | undefined };
    reader: { head: { samples(id: number, w: number): { length: number; timestampsMs: Float64Array; values: Float64Array } | undefined } };
  };
  const s = inside.reader.head.samples(inside.registry.lookup('acme', metric) as number, W0);
  return s === undefined ? [] : Array.from(s.timestampsMs.subarray(0, s.length), (ts, i) => [ts, s.values[i] as number]);
}

/** The reference: last value written per (metric, timestamp). */
class Model {
  readonly points = new Map<string, Map<number, number>>();
  write(points: readonly Point[]): void {
    for (const p of points) {
      let m = this.points.get(p.metric);
      if (m === undefined) this.points.set(p.metric, (m = new Map()));
      m.set(p.timestamp, p.value as number);
    }
  }
  read(metric: string): [number, number][] {
    return [...(this.points.get(metric) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  }
}

describe('stepped seal', () => {
  it('seals a window of many series over several turns, yielding the event loop between them', async () => {
    t = await openTestStore({}, NOW);
    await writeBulk(t.store);
    const turnsBefore = sealTurns(t.store);
    let othersRan = 0;
    let sealedWhenOthersFirstRan: number | undefined;
    const other = (): void => {
      if (t === undefined) return;
      othersRan++;
      sealedWhenOthersFirstRan ??= t!.store.stats().headPoints;
      if (t!.store.stats().headPoints > 0) setImmediate(other);
    };
    setImmediate(other);
    const flushed = t.store.flush();
    // The first turn only froze the window: nothing is sealed yet, and the head still counts it.
    expect(t.store.stats().headPoints).toBe(BULK_SERIES);
    await flushed;
    expect(t.store.stats().headPoints).toBe(0);
    // At least one step per SEAL_STEP_SERIES_MAX series, each its own turn, with other callbacks between.
    expect(sealTurns(t.store) - turnsBefore).toBeGreaterThanOrEqual(Math.ceil(BULK_SERIES / SEAL_STEP_SERIES_MAX) + 1);
    expect(othersRan).toBeGreaterThanOrEqual(Math.ceil(BULK_SERIES / SEAL_STEP_SERIES_MAX));
    expect(sealedWhenOthersFirstRan).toBe(BULK_SERIES);
    expect(await read(t.store, 'bulk7')).toEqual([[W0 + 7, 7]]);
  });

  it('serves writes made during a seal (to its window and another) exactly once, before and after a reopen', async () => {
    t = await openTestStore({}, NOW);
    const model = new Model();
    const first: Point[] = [0, 1, 2].map((i) => ({ tenant: 'acme', metric: 'probe', timestamp: W0 + i * 1000, value: i }));
    await t.store.write(first);
    model.write(first);
    await writeBulk(t.store);
    const flushed = t.store.flush();
    await turn();
    await turn();
    // Mid-seal: overwrite a frozen point, add to the frozen window, and write the next window.
    const during: Point[] = [
      { tenant: 'acme', metric: 'probe', timestamp: W0 + 1000, value: 100 },
      { tenant: 'acme', metric: 'probe', timestamp: W0 + 5000, value: 5 },
      { tenant: 'acme', metric: 'probe', timestamp: W1 + 1000, value: 7 },
    ];
    expect(t.store.stats().headPoints).toBeGreaterThan(0);
    await t.store.write(during);
    model.write(during);
    expect(await read(t.store, 'probe')).toEqual(model.read('probe'));
    await flushed;
    expect(await read(t.store, 'probe')).toEqual(model.read('probe'));
    // The writes made during the seal are not covered by its marker: replay brings them back.
    await t.reopen();
    expect(await read(t.store, 'probe')).toEqual(model.read('probe'));
    expect(t.store.stats().headPoints).toBe(3);
    await t.store.flush();
    await t.reopen();
    expect(await read(t.store, 'probe')).toEqual(model.read('probe'));
    expect(t.store.stats().headPoints).toBe(0);
  });

  it('loses nothing when the process dies mid-seal (a copy of the data directory taken between steps)', async () => {
    t = await openTestStore({}, NOW);
    const model = new Model();
    const probe: Point[] = [0, 1, 2, 3].map((i) => ({ tenant: 'acme', metric: 'probe', timestamp: W0 + i * 1000, value: i * 10 }));
    await t.store.write(probe);
    model.write(probe);
    await writeBulk(t.store);
    const flushed = t.store.flush();
    await turn();
    await turn();
    expect(t.store.stats().headPoints).toBeGreaterThan(0);
    // Between turns every transaction is committed: the copy is what a kill -9 would leave.
    const copy = mkdtempSync(join(tmpdir(), 'strata-crash-'));
    extraDirs.push(copy);
    cpSync(t.dir, copy, { recursive: true, filter: (src) => !src.endsWith('LOCK') });
    await flushed;
    const revived = await openStore({ dir: copy, clock: t.clock, background: false, workers: 0 });
    try {
      expect(revived.stats().headPoints).toBe(probe.length + BULK_SERIES);
      expect(await read(revived, 'probe')).toEqual(model.read('probe'));
      expect(await read(revived, 'bulk2400')).toEqual([[W0 + 2400, 2400]]);
      await revived.flush();
      expect(await read(revived, 'probe')).toEqual(model.read('probe'));
      expect(await read(revived, 'bulk0')).toEqual([[W0, 0]]);
    } finally {
      await revived.close();
    }
  });

  it('puts the window back into the head when its partition is found damaged mid-seal', async () => {
    t = await openTestStore({}, NOW);
    const model = new Model();
    const probe: Point[] = [{ tenant: 'acme', metric: 'probe', timestamp: W0 + 1000, value: 1 }];
    await t.store.write(probe);
    model.write(probe);
    await writeBulk(t.store);
    const flushed = t.store.flush();
    await turn();
    await turn();
    const during: Point[] = [{ tenant: 'acme', metric: 'probe', timestamp: W0 + 1000, value: 2 }];
    await t.store.write(during);
    model.write(during);
    // What the partition set does when a read or write finds the file damaged.
    (t.store as unknown as { ledger: { damaged(d: object): void } }).ledger.damaged({ res: 'FULL', startMs: W0, reason: 'corrupt', detail: 'test' });
    await flushed;
    // The frozen points are back with the one written since (which won): nothing lost, nothing sealed.
    expect(t.store.stats().headPoints).toBe(BULK_SERIES + 2);
    expect(headSamples(t.store, 'probe')).toEqual(model.read('probe'));
    expect(headSamples(t.store, 'bulk2400')).toEqual([[W0 + 2400, 2400]]);
    // Nothing was marked sealed: every record replays.
    await t.reopen();
    expect(t.store.stats().headPoints).toBe(BULK_SERIES + 2);
    expect(headSamples(t.store, 'probe')).toEqual(model.read('probe'));
  });

  it('logs an error inside a step and keeps the window in the head (no unhandled error)', async () => {
    const errors: unknown[] = [];
    const logger = { info: () => {}, warn: () => {}, error: (obj: object) => void errors.push(obj) };
    t = await openTestStore({ logger }, NOW);
    await writeBulk(t.store);
    const catalog = (t.store as unknown as { catalog: { commitSealStep: (...args: unknown[]) => void } }).catalog;
    const real = catalog.commitSealStep.bind(catalog);
    let calls = 0;
    catalog.commitSealStep = (...args) => {
      if (++calls === 2) throw new Error('disk on fire');
      real(...args);
    };
    await t.store.flush();
    expect(errors).toHaveLength(1);
    expect(t.store.stats().headPoints).toBe(BULK_SERIES);
    expect(await read(t.store, 'bulk2400')).toEqual([[W0 + 2400, 2400]]);
    // The next seal merges with the chunks the first steps wrote and finishes.
    await t.store.flush();
    expect(t.store.stats().headPoints).toBe(0);
    await t.reopen();
    expect(t.store.stats().headPoints).toBe(0);
    expect(await read(t.store, 'bulk0')).toEqual([[W0, 0]]);
    expect(await read(t.store, 'bulk2400')).toEqual([[W0 + 2400, 2400]]);
  });

  it('answers every query during seals exactly as the model of all writes (property)', async () => {
    type Op = { kind: 'write'; points: [number, number, number][] } | { kind: 'seal' } | { kind: 'turn' } | { kind: 'query' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        points: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: -50, max: 50 })), { minLength: 1, maxLength: 6 }),
      }),
      fc.constant({ kind: 'seal' as const }),
      fc.constant({ kind: 'turn' as const }),
      fc.constant({ kind: 'query' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const run = await openTestStore({}, NOW);
        try {
          const model = new Model();
          await writeBulk(run.store);
          const pending: Promise<void>[] = [];
          const check = async (): Promise<void> => {
            for (const m of ['p0', 'p1', 'p2']) expect(await read(run.store, m)).toEqual(model.read(m));
          };
          for (const o of ops) {
            if (o.kind === 'write') {
              // Timestamps in W0 (the big window) and W1.
              const points = o.points.map(([s, k, v]) => ({ tenant: 'acme', metric: `p${s}`, timestamp: (k % 2 === 0 ? W0 : W1) + k * 1000, value: v }));
              await run.store.write(points);
              model.write(points);
            } else if (o.kind === 'seal') pending.push(run.store.flush());
            else if (o.kind === 'turn') await turn();
            else await check();
          }
          await check();
          await Promise.all(pending);
          await sealsSettled(run.store);
          await check();
          await run.reopen();
          await check();
        } finally {
          await run.cleanup();
        }
      }),
      { numRuns: 12 },
    );
  }, 60_000);
});
