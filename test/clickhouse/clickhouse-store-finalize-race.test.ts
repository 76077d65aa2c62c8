// Tests that finalizing a day never races a write: a write in flight keeps its day open, and a write older than the finalized watermark is refused.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { StrataError } from '../../src/core/errors.js';
import { CLICKHOUSE_FINALIZE_GRACE_MS } from '../../src/core/limits.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { openTestStore, T_NOON, type TestStore } from '../store-harness.js';

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

describe('finalization and writes on ClickHouse', () => {
  it('keeps the day of a write still in flight open until the write is acknowledged', async () => {
    // A minute before midnight: the point below is 30 s inside the FULL retention, and its day
    // closes (with the grace) a little over ten minutes later.
    const startMs = Date.UTC(2026, 10, 22, 23, 59);
    t = await openTestStore({}, startMs, 'clickhouse');
    const at = startMs - 2 * DAY_MS + 30_000;
    const day = at - (at % DAY_MS);
    const writing = t.store.write([{ tenant: 'acme', metric: 'late', timestamp: at, value: 7 }]);
    // While the write is in flight the clock passes the day's close and the grace; flush finalizes what it may.
    t.clock.advance(CLICKHOUSE_FINALIZE_GRACE_MS + 2 * MINUTE_MS);
    const flushing = t.store.flush();
    expect(await writing).toEqual({ accepted: 1, rejected: [] });
    await flushing;
    // Past the raw partition's own grace too, so the day is finalized and its raw points dropped.
    t.clock.advance(HOUR_MS);
    await t.store.flush();
    expect(await t.partitionCount('FULL')).toBe(0);
    const q = { tenant: 'acme', metric: 'late', from: day, to: day + DAY_MS, resolution: 'MIN1440', select: ['average'] };
    expect((await t.store.query(q)).values).toEqual([{ timestamp: day, numPoints: 1, average: 7 }]);
    const bucket = at - (at % (5 * MINUTE_MS));
    expect((await t.store.query({ ...q, from: bucket, to: at + 1, resolution: 'MIN5' })).values).toEqual([{ timestamp: bucket, numPoints: 1, average: 7 }]);
  });

  it('refuses a point older than the finalized watermark from a store whose clock lags', async () => {
    t = await openTestStore({}, T_NOON, 'clickhouse');
    const old = T_NOON - 2 * DAY_MS + HOUR_MS;
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: old, value: 1 }]);
    t.clock.advance(DAY_MS);
    await t.store.flush();
    // The day of `old` is finalized; a store whose clock is a day behind would still accept it.
    const lagging = await t.reopen({ clock: new ManualClock(T_NOON) });
    expect(lagging.timestampBounds().oldestMs).toBeGreaterThan(old);
    const result = await lagging.write([{ tenant: 'acme', metric: 'm', timestamp: old + MINUTE_MS, value: 2 }]);
    expect(result.accepted).toBe(0);
    expect(result.rejected.map((r) => r.code)).toEqual(['INGEST_TIMESTAMP_TOO_OLD']);
  });

  it('refuses a store whose FULL retention differs from the one the database was created with', async () => {
    t = await openTestStore({}, T_NOON, 'clickhouse');
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON - HOUR_MS, value: 1 }]);
    const error = await t.reopen({ retention: { FULL: 5 * DAY_MS } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('STORE_OPTIONS_INVALID');
    expect((error as StrataError).details).toMatchObject({ option: 'retention.FULL', recorded: 2 * DAY_MS, given: 5 * DAY_MS });
    // The same retention opens it again, data intact.
    const again = await t.reopen();
    expect((await again.query({ tenant: 'acme', metric: 'm', from: T_NOON - HOUR_MS, to: T_NOON, resolution: 'FULL' })).values).toHaveLength(1);
  });
});
