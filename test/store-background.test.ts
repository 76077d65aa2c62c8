// Tests the background maintenance: windows seal and roll up only after they close plus the grace period.
import { afterEach, describe, expect, it } from 'vitest';
import { HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** Longer than one maintenance interval (1 s). */
const TICK_WAIT_MS = 1_300;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('background maintenance', () => {
  it('seals a window and rolls it up only once it has closed and the grace has passed', async () => {
    const graceMs = 10 * MINUTE_MS;
    t = await openTestStore({ background: true, workers: 1, graceMs });
    // T_NOON is on a 2-hour window boundary: this window is [T_NOON, T_NOON + 2 h).
    t.clock.set(T_NOON + HOUR_MS);
    await t.store.write(Array.from({ length: 60 }, (_, i) => ({ tenant: 'acme', metric: 'bg', timestamp: T_NOON + i * MINUTE_MS, value: i })));
    t.clock.set(T_NOON + 2 * HOUR_MS + graceMs - 1);
    await sleep(TICK_WAIT_MS);
    expect(t.store.stats().headPoints).toBe(60);
    t.clock.advance(1);
    await sleep(TICK_WAIT_MS * 2);
    expect(t.store.stats().headPoints).toBe(0);
    expect(t.store.stats().rolledUpSources).toBeGreaterThanOrEqual(60);
    const r = await t.store.query({ tenant: 'acme', metric: 'bg', from: T_NOON, to: T_NOON + HOUR_MS, resolution: 'MIN60', select: ['average'] });
    expect(r.values).toEqual([{ timestamp: T_NOON, numPoints: 60, average: 29.5 }]);
  });
});
