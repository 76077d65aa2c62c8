// Tests the background maintenance: windows seal and roll up only after they close plus the grace period.
// The loop's interval is faked (vi.useFakeTimers) and time comes from the injected ManualClock, so
// each tick happens exactly when the test says; worker threads are awaited with rollupsSettled.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAINTENANCE_INTERVAL_MS, SEAL_QUIET_MS } from '../src/core/limits.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import { rollupsSettled } from '../src/store.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

let t: TestStore | undefined;
beforeEach(() => {
  // Only the maintenance interval is faked: piscina, SQLite and vitest keep their real timers.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(async () => {
  // Close first, so the store clears its interval through the fake clock that created it.
  await t?.cleanup();
  t = undefined;
  vi.useRealTimers();
});

/** Runs one maintenance pass (seal, pump, sweep) and waits for the rollup tasks it started. */
async function tick(store: TestStore): Promise<void> {
  vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
  await rollupsSettled(store.store);
}

const sixty = (metric: string, startMs: number) =>
  Array.from({ length: 60 }, (_, i) => ({ tenant: 'acme', metric, timestamp: startMs + i * MINUTE_MS, value: i }));

describe('background maintenance', () => {
  it('seals a window and rolls it up only once it has closed and the grace has passed', async () => {
    const graceMs = 10 * MINUTE_MS;
    t = await openTestStore({ background: true, workers: 1, graceMs });
    expect(vi.getTimerCount()).toBe(1);
    // T_NOON is on a 2-hour window boundary: this window is [T_NOON, T_NOON + 2 h).
    t.clock.set(T_NOON + HOUR_MS);
    await t.store.write(sixty('bg', T_NOON));
    t.clock.set(T_NOON + 2 * HOUR_MS + graceMs - 1);
    await tick(t);
    await tick(t);
    expect(t.store.stats().headPoints).toBe(60);
    expect(t.store.stats().rolledUpSources).toBe(0);
    t.clock.advance(1);
    await tick(t);
    expect(t.store.stats().headPoints).toBe(0);
    // The first pass rolls the 60 raw points into MIN5 only: coarser levels wait for later passes.
    expect(t.store.stats().rolledUpSources).toBe(60);
    expect(t.store.stats().rolledUpSources).toBeGreaterThanOrEqual(60);
    const r = await t.store.query({ tenant: 'acme', metric: 'bg', from: T_NOON, to: T_NOON + HOUR_MS, resolution: 'MIN60', select: ['average'] });
    expect(r.values).toEqual([{ timestamp: T_NOON, numPoints: 60, average: 29.5 }]);
  });

  it('climbs one rollup level per pass, finest first, until nothing is due', async () => {
    t = await openTestStore({ background: true, workers: 1, graceMs: 0 });
    t.clock.set(T_NOON + HOUR_MS);
    await t.store.write(sixty('levels', T_NOON));
    t.clock.set(T_NOON + 2 * HOUR_MS);
    // Each level's sources: 60 points, then 12 MIN5, 3 MIN20, 1 MIN60 and 1 MIN240 bucket.
    const rolled: number[] = [];
    for (let pass = 0; pass < 6; pass++) {
      await tick(t);
      rolled.push(t.store.stats().rolledUpSources);
    }
    expect(rolled).toEqual([60, 72, 75, 76, 77, 77]);
    expect(t.store.stats().rollupQueueDepth).toBe(0);
    expect(t.store.stats().rollupLagMs).toBe(0);
    const day = await t.store.query({ tenant: 'acme', metric: 'levels', from: T_NOON - 12 * HOUR_MS, to: T_NOON + 12 * HOUR_MS, resolution: 'MIN1440', select: ['max'] });
    expect(day.values).toEqual([{ timestamp: T_NOON - 12 * HOUR_MS, numPoints: 60, max: 59 }]);
  });

  it('waits for a due window to be quiet for SEAL_QUIET_MS before sealing it', async () => {
    t = await openTestStore({ background: true, workers: 0, graceMs: 0 });
    t.clock.set(T_NOON + 2 * HOUR_MS);
    // The window [T_NOON, T_NOON + 2 h) is already past its grace, but it was just written to.
    await t.store.write(sixty('quiet', T_NOON));
    await tick(t);
    expect(t.store.stats().headPoints).toBe(60);
    t.clock.advance(SEAL_QUIET_MS - 1);
    await tick(t);
    expect(t.store.stats().headPoints).toBe(60);
    t.clock.advance(1);
    await tick(t);
    expect(t.store.stats().headPoints).toBe(0);
    expect(t.store.stats().rolledUpSources).toBe(60);
  });

  it('drops an expired FULL partition on the pass that finds it past retention, keeping its rollups', async () => {
    t = await openTestStore({ background: true, workers: 1, graceMs: 0 });
    // Points in [T_NOON - 1 h, T_NOON): the FULL partition [T_NOON - 6 h, T_NOON) expires at T_NOON + 2 days.
    await t.store.write(sixty('old', T_NOON - HOUR_MS));
    const file = join(t.dir, 'partitions', 'FULL', `${T_NOON - 6 * HOUR_MS}.sqlite`);
    t.clock.set(T_NOON + 2 * DAY_MS - 1);
    await tick(t);
    expect(t.store.stats().headPoints).toBe(0);
    expect(existsSync(file)).toBe(true);
    t.clock.advance(1);
    await tick(t);
    expect(existsSync(file)).toBe(false);
    const q = { tenant: 'acme', metric: 'old', from: T_NOON - HOUR_MS, to: T_NOON, select: ['average'] };
    expect((await t.store.query({ ...q, resolution: 'FULL' })).values).toEqual([]);
    expect((await t.store.query({ ...q, resolution: 'MIN60' })).values).toEqual([{ timestamp: T_NOON - HOUR_MS, numPoints: 60, average: 29.5 }]);
  });

  it('stops its timer on close, and has none without background', async () => {
    t = await openTestStore({ background: true, workers: 0 });
    expect(vi.getTimerCount()).toBe(1);
    await t.store.close();
    expect(vi.getTimerCount()).toBe(0);
    await t.cleanup();
    t = await openTestStore({ background: false, workers: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rollupsSettled refuses a store that openStore did not make', async () => {
    await expect(rollupsSettled({} as TestStore['store'])).rejects.toThrow(TypeError);
  });
});
