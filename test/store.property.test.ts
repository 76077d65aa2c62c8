// Property, on every backend: whatever the order of writes, seals and rollups, every resolution serves the rollup of the last-written points.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import type { SampleColumns } from '../src/model/bucket.js';
import { LAYOUT, ROLLUP_RESOLUTIONS } from '../src/model/resolution.js';
import { bucketsFromSamples } from '../src/model/rollup-math.js';
import type { QueryValue } from '../src/store-types.js';
import { STORE_BACKENDS } from './store-backends.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

/** Means and variances are merged in a different order live and stored; they agree this closely. */
const RELATIVE_EPSILON = 1e-9;
const SPAN_MS = 40 * HOUR_MS;
/** Past the default FULL retention (2 days), the raw partitions' ends (a day at most) and the ClickHouse finalization grace. */
const RAW_EXPIRED_AFTER_MS = 4 * DAY_MS;

type Op = { kind: 'write'; points: { offsetMs: number; value: number }[] } | { kind: 'flush' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), points: fc.array(fc.record({ offsetMs: fc.integer({ min: 0, max: SPAN_MS / 1000 - 1 }).map((s) => s * 1000), value: fc.double({ min: -1e6, max: 1e6, noNaN: true }) }), { minLength: 1, maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
);

function close(a: number | null | undefined, b: number | null | undefined, scale: number): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return a === b;
  return Math.abs(a - b) <= RELATIVE_EPSILON * Math.max(1, Math.abs(a), Math.abs(b), scale);
}

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

describe.each(STORE_BACKENDS)('store (%s)', (backend) => {
  it('serves, at every resolution, exactly the rollup of the last value written per timestamp', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        // A failed run (fast-check then shrinks) leaves its store open: close and delete it first.
        await t?.cleanup();
        t = await openTestStore({}, T_NOON, backend);
        const start = T_NOON - SPAN_MS;
        const truth = new Map<number, number>();
        for (const op of ops) {
          if (op.kind === 'flush') {
            await t.store.flush();
            continue;
          }
          const points = op.points.map((p) => ({ tenant: 'acme', metric: 'm', timestamp: start + p.offsetMs, value: p.value }));
          expect((await t.store.write(points)).accepted).toBe(points.length);
          for (const p of points) truth.set(p.timestamp, p.value);
        }
        const times = [...truth.keys()].sort((a, b) => a - b);
        const samples: SampleColumns = { length: times.length, timestampsMs: Float64Array.from(times), values: Float64Array.from(times.map((x) => truth.get(x) as number)), strings: null };
        const scale = Math.max(...samples.values.map(Math.abs));
        for (const round of ['before flush', 'after flush', 'after the raw points expired']) {
          // The last round moves the clock past the FULL retention (and the ClickHouse backend's
          // finalization grace), so every bucket is served from stored rollups alone.
          if (round === 'after the raw points expired') {
            t.clock.advance(RAW_EXPIRED_AFTER_MS);
            await t.store.flush();
          }
          for (const res of ROLLUP_RESOLUTIONS) {
            const width = LAYOUT[res].bucketWidthMs;
            const from = start - (start % width);
            const to = T_NOON;
            const expected = bucketsFromSamples(samples, width);
            const got: readonly QueryValue[] = (await t.store.query({ tenant: 'acme', metric: 'm', from, to, resolution: res, select: ['average', 'variance', 'min', 'max'] })).values;
            expect(got.map((v) => v.timestamp), `${res} ${round}`).toEqual(Array.from(expected.startsMs));
            got.forEach((v, i) => {
              expect(v.numPoints).toBe(expected.numPoints[i]);
              expect(v.min).toBe(expected.min[i]);
              expect(v.max).toBe(expected.max[i]);
              expect(close(v.average, expected.mean[i], scale), `average ${res} ${round}`).toBe(true);
              expect(close(v.variance, (expected.m2[i] as number) / (expected.count[i] as number), scale * scale), `variance ${res} ${round}`).toBe(true);
            });
          }
          if (round === 'after the raw points expired') {
            expect(await t.partitionCount('FULL'), 'raw partitions once expired').toBe(0);
            continue;
          }
          const full = await t.store.query({ tenant: 'acme', metric: 'm', from: T_NOON - 12 * HOUR_MS, to: T_NOON, resolution: 'FULL' });
          expect(full.values.map((v) => [v.timestamp, v.average])).toEqual(times.filter((x) => x >= T_NOON - 12 * HOUR_MS).map((x) => [x, truth.get(x)]));
          await t.store.flush();
        }
        await t.cleanup();
        t = undefined;
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('keeps every point when writes arrive out of order across many windows', async () => {
    t = await openTestStore({}, T_NOON, backend);
    const start = T_NOON - 10 * HOUR_MS;
    const offsets = Array.from({ length: 600 }, (_, i) => i * MINUTE_MS).reverse();
    for (let i = 0; i < offsets.length; i += 50) {
      await t.store.write(offsets.slice(i, i + 50).map((o) => ({ tenant: 'acme', metric: 'rev', timestamp: start + o, value: o / MINUTE_MS })));
      if (i % 200 === 0) await t.store.flush();
    }
    const r = await t.store.query({ tenant: 'acme', metric: 'rev', from: start, to: T_NOON, resolution: 'MIN60', select: ['min', 'max'] });
    expect(r.values.map((v) => [v.numPoints, v.min, v.max])).toEqual(Array.from({ length: 10 }, (_, h) => [60, h * 60, h * 60 + 59]));
  });
});
