// Tests the embeddable store end to end on every backend: writes, queries at every resolution, late data, retention, tenants; and the SQLite backend's files.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StrataError } from '../src/core/errors.js';
import { MAINTENANCE_INTERVAL_MS } from '../src/core/limits.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import { PointColumnsBuilder, type PointColumns } from '../src/model/point-columns.js';
import type { Point } from '../src/model/sample.js';
import { rollupsSettled, sealsSettled } from '../src/store.js';
import type { QueryResult, StoreOptions } from '../src/store-types.js';
import { STORE_BACKENDS, type BackendName } from './store-backends.js';
import { openTestStore, rawPartitionExpiredMs, T_NOON, type TestStore } from './store-harness.js';

let t: TestStore | undefined;
afterEach(async () => {
  // Close first, so a store with a background loop clears its interval through the fake clock that created it.
  await t?.cleanup();
  t = undefined;
  vi.useRealTimers();
});

function series(metric: string, startMs: number, count: number, stepMs: number, value: (i: number) => number | string, tenant = 'acme'): Point[] {
  return Array.from({ length: count }, (_, i) => ({ tenant, metric, timestamp: startMs + i * stepMs, value: value(i) }));
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<StrataError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  expect((error as StrataError).code).toBe(code);
  return error as StrataError;
}

/** Opens a test store on `backend`. */
function opener(backend: BackendName): (options?: Partial<StoreOptions>) => Promise<TestStore> {
  return (options = {}) => openTestStore(options, T_NOON, backend);
}

describe.each(STORE_BACKENDS)('write and query (%s)', (backend) => {
  const open = opener(backend);
  it('serves raw points at FULL with numPoints 1 and the statistics of one value', async () => {
    t = await open();
    const start = T_NOON - HOUR_MS;
    expect(await t.store.write(series('cpu', start, 4, 30_000, (i) => i * 1.5))).toEqual({ accepted: 4, rejected: [] });
    const result = await t.store.query({ tenant: 'acme', metric: 'cpu', from: start, to: T_NOON, resolution: 'FULL', select: ['average', 'variance', 'min', 'max'] });
    expect(result.resolution).toBe('FULL');
    expect(result.values).toEqual([0, 1.5, 3, 4.5].map((v, i) => ({ timestamp: start + i * 30_000, numPoints: 1, average: v, variance: 0, min: v, max: v })));
  });

  it('returns the same buckets before the rollup runs (computed live), after (stored), and once the raw points are gone', async () => {
    t = await open({ workers: 1 });
    const start = T_NOON - DAY_MS;
    await t.store.write(series('temp', start, 2880, 30_000, (i) => Math.sin(i / 50) * 10 + (i % 7)));
    const select = ['average', 'variance', 'min', 'max'];
    const asked = { tenant: 'acme', metric: 'temp', from: start, to: T_NOON, select };
    const rollups = (): Promise<QueryResult[]> => Promise.all(['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'].map((resolution) => t!.store.query({ ...asked, resolution })));
    const live = await rollups();
    await t.store.flush();
    expect(t.store.stats().headPoints).toBe(0);
    const stored = await rollups();
    // T_NOON is not a day boundary: the 24 h range touches two MIN1440 buckets.
    expect(stored.map((r) => r.values.length)).toEqual([288, 72, 24, 6, 2]);
    for (let i = 0; i < live.length; i++) expect(stored[i]?.values).toEqual(live[i]?.values);
    expect(stored[4]?.values.map((v) => v.numPoints)).toEqual([1440, 1440]);
    // Every raw partition of the range wholly expired and dropped: the stored rollups alone answer, the same.
    t.clock.set(rawPartitionExpiredMs(t, T_NOON - 30_000));
    await t.store.flush();
    expect(await t.partitionCount('FULL')).toBe(0);
    const kept = await rollups();
    for (let i = 0; i < live.length; i++) expect(kept[i]?.values).toEqual(live[i]?.values);
  });

  it('keeps the last value written for the same series and timestamp, across seals', async () => {
    t = await open();
    const at = T_NOON - 3 * HOUR_MS;
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: at, value: 1 }]);
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: at, value: 2 }]);
    const q = { tenant: 'acme', metric: 'm', from: at, to: at + 1, resolution: 'FULL' };
    expect((await t.store.query(q)).values).toEqual([{ timestamp: at, numPoints: 1, average: 2 }]);
    await t.store.flush();
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: at, value: 3 }]);
    expect((await t.store.query(q)).values).toEqual([{ timestamp: at, numPoints: 1, average: 3 }]);
    await t.store.flush();
    expect((await t.store.query(q)).values).toEqual([{ timestamp: at, numPoints: 1, average: 3 }]);
    expect((await t.store.query({ ...q, to: at + 5 * MINUTE_MS, resolution: 'MIN5' })).values).toEqual([{ timestamp: at, numPoints: 1, average: 3 }]);
  });

  it('keeps the last of several points of one series and timestamp in one batch, strings too', async () => {
    t = await open();
    const at = T_NOON - 2 * HOUR_MS;
    const result = await t.store.write([
      { tenant: 'acme', metric: 'dup', timestamp: at, value: 1 },
      { tenant: 'acme', metric: 'other', timestamp: at, value: 9 },
      { tenant: 'acme', metric: 'dup', timestamp: at, value: 'down' },
      { tenant: 'acme', metric: 'dup', timestamp: at + 30_000, value: 4 },
      { tenant: 'acme', metric: 'dup', timestamp: at, value: 2 },
    ]);
    expect(result).toEqual({ accepted: 5, rejected: [] });
    const q = { tenant: 'acme', metric: 'dup', from: at, to: at + MINUTE_MS, resolution: 'FULL' };
    expect((await t.store.query(q)).values).toEqual([
      { timestamp: at, numPoints: 1, average: 2 },
      { timestamp: at + 30_000, numPoints: 1, average: 4 },
    ]);
    await t.store.write([
      { tenant: 'acme', metric: 'dup', timestamp: at + 30_000, value: 5 },
      { tenant: 'acme', metric: 'dup', timestamp: at + 30_000, value: 'up' },
    ]);
    expect((await t.store.query(q)).values).toEqual([
      { timestamp: at, numPoints: 1, average: 2 },
      { timestamp: at + 30_000, numPoints: 1, average: null, value: 'up' },
    ]);
    expect((await t.store.query({ ...q, to: at + 5 * MINUTE_MS, resolution: 'MIN5' })).values).toEqual([{ timestamp: at, numPoints: 2, average: 2 }]);
  });

  it('re-rolls a bucket and its coarser parents when a late point lands in it', async () => {
    t = await open({ workers: 1 });
    const start = T_NOON - DAY_MS;
    await t.store.write(series('late', start, 100, 60_000, () => 10));
    await t.store.flush();
    const q = { tenant: 'acme', metric: 'late', from: start, to: T_NOON, select: ['average', 'max'] };
    const day = start - (start % DAY_MS);
    expect((await t.store.query({ ...q, resolution: 'MIN1440' })).values).toEqual([{ timestamp: day, numPoints: 100, average: 10, max: 10 }]);
    await t.store.write([{ tenant: 'acme', metric: 'late', timestamp: start + 30_000, value: 111 }]);
    const expected = [{ timestamp: day, numPoints: 101, average: 11, max: 111 }];
    expect((await t.store.query({ ...q, resolution: 'MIN1440' })).values).toEqual(expected);
    await t.store.flush();
    expect((await t.store.query({ ...q, resolution: 'MIN1440' })).values).toEqual(expected);
    expect((await t.store.query({ ...q, resolution: 'MIN5', to: start + 5 * MINUTE_MS })).values).toEqual([{ timestamp: start, numPoints: 6, average: (5 * 10 + 111) / 6, max: 111 }]);
  });

  it('stores string values at FULL and counts them in numPoints without averaging them', async () => {
    t = await open();
    const start = T_NOON - HOUR_MS;
    await t.store.write([
      { tenant: 'acme', metric: 's', timestamp: start, value: 4 },
      { tenant: 'acme', metric: 's', timestamp: start + 30_000, value: 'up' },
      { tenant: 'acme', metric: 's', timestamp: start + 60_000, value: 8 },
    ]);
    const full = await t.store.query({ tenant: 'acme', metric: 's', from: start, to: T_NOON, resolution: 'FULL' });
    expect(full.values).toEqual([
      { timestamp: start, numPoints: 1, average: 4 },
      { timestamp: start + 30_000, numPoints: 1, average: null, value: 'up' },
      { timestamp: start + 60_000, numPoints: 1, average: 8 },
    ]);
    await t.store.flush();
    const min5 = await t.store.query({ tenant: 'acme', metric: 's', from: start, to: start + 5 * MINUTE_MS, resolution: 'MIN5' });
    expect(min5.values).toEqual([{ timestamp: start, numPoints: 3, average: 6 }]);
  });

  it('records the unit and lists metrics by glob, sorted and paged', async () => {
    t = await open();
    const at = T_NOON - MINUTE_MS;
    const names = ['web.cpu', 'web.mem', 'db.cpu', 'web.disk'];
    await t.store.write(names.map((metric) => ({ tenant: 'acme', metric, timestamp: at, value: 1, unit: 'percent' })));
    await t.store.write([{ tenant: 'other', metric: 'web.secret', timestamp: at, value: 1 }]);
    expect(await t.store.listMetrics('acme', { glob: 'web.*', limit: 2 })).toEqual({
      metrics: [
        { name: 'web.cpu', unit: 'percent' },
        { name: 'web.disk', unit: 'percent' },
      ],
      nextAfter: 'web.disk',
    });
    expect(await t.store.listMetrics('acme', { glob: 'web.*', after: 'web.disk' })).toEqual({ metrics: [{ name: 'web.mem', unit: 'percent' }], nextAfter: null });
    expect((await t.store.listMetrics('acme', { glob: '?b.cpu' })).metrics.map((m) => m.name)).toEqual(['db.cpu']);
    expect((await t.store.listMetrics('nobody')).metrics).toEqual([]);
    expect((await t.store.query({ tenant: 'acme', metric: 'web.cpu', from: at, to: T_NOON, resolution: 'FULL' })).unit).toBe('percent');
    await expect(t.store.listMetrics('acme', { limit: 0 })).rejects.toThrow(StrataError);
  });

  it('keeps tenants apart: another tenant’s metric is neither listed nor served, and one name under two tenants is two series', async () => {
    t = await open();
    const at = T_NOON - 3 * MINUTE_MS;
    await t.store.write([
      { tenant: 'acme', metric: 'secret', timestamp: at, value: 1, unit: 'ms' },
      { tenant: 'acme', metric: 'shared', timestamp: at, value: 2, unit: 'ms' },
      { tenant: 'globex', metric: 'shared', timestamp: at, value: 3, unit: 's' },
      { tenant: 'globex', metric: 'shared', timestamp: at + 30_000, value: 4, unit: 's' },
    ]);
    const check = async (): Promise<void> => {
      expect(await t!.store.listMetrics('acme')).toEqual({ metrics: [{ name: 'secret', unit: 'ms' }, { name: 'shared', unit: 'ms' }], nextAfter: null });
      expect(await t!.store.listMetrics('globex')).toEqual({ metrics: [{ name: 'shared', unit: 's' }], nextAfter: null });
      expect((await t!.store.listMetrics('globex', { glob: 'secret' })).metrics).toEqual([]);
      const q = { from: at, to: T_NOON, select: ['average', 'max'] };
      for (const resolution of ['FULL', 'MIN5']) {
        expect(await t!.store.query({ ...q, tenant: 'globex', metric: 'secret', resolution })).toEqual({ resolution, unit: null, values: [] });
      }
      expect(await t!.store.query({ ...q, tenant: 'acme', metric: 'shared', resolution: 'FULL' })).toEqual({ resolution: 'FULL', unit: 'ms', values: [{ timestamp: at, numPoints: 1, average: 2, max: 2 }] });
      expect(await t!.store.query({ ...q, tenant: 'globex', metric: 'shared', resolution: 'FULL' })).toEqual({
        resolution: 'FULL',
        unit: 's',
        values: [
          { timestamp: at, numPoints: 1, average: 3, max: 3 },
          { timestamp: at + 30_000, numPoints: 1, average: 4, max: 4 },
        ],
      });
      expect((await t!.store.query({ ...q, tenant: 'acme', metric: 'shared', resolution: 'MIN5' })).values).toEqual([{ timestamp: T_NOON - 5 * MINUTE_MS, numPoints: 1, average: 2, max: 2 }]);
      expect((await t!.store.query({ ...q, tenant: 'globex', metric: 'shared', resolution: 'MIN5' })).values).toEqual([{ timestamp: T_NOON - 5 * MINUTE_MS, numPoints: 2, average: 3.5, max: 4 }]);
    };
    await check();
    await t.store.flush();
    await check();
    await t.reopen();
    await check();
  });
});

describe.each(STORE_BACKENDS)('bad input (%s)', (backend) => {
  const open = opener(backend);
  it('rejects bad points one by one with a reason each and keeps the good ones', async () => {
    t = await open();
    const now = T_NOON;
    const result = await t.store.write([
      { tenant: 'acme', metric: 'ok', timestamp: now - 1000, value: 1 },
      { tenant: 'acme', metric: 'nan', timestamp: now - 1000, value: Number.NaN },
      { tenant: 'acme', metric: 'old', timestamp: now - 3 * DAY_MS, value: 1 },
      { tenant: 'acme', metric: 'future', timestamp: now + 11 * MINUTE_MS, value: 1 },
      { tenant: 'acme', metric: 'secs', timestamp: Math.floor(now / 1000), value: 1 },
      { tenant: 'acme', metric: 'frac', timestamp: now - 0.5, value: 1 },
      { tenant: 'acme', metric: '', timestamp: now, value: 1 },
      { tenant: 'acme', metric: 'x'.repeat(256), timestamp: now, value: 1 },
    ]);
    expect(result.accepted).toBe(1);
    expect(result.rejected.map((r) => [r.index, r.code, r.field])).toEqual([
      [1, 'INGEST_VALUE_NOT_FINITE', 'value'],
      [2, 'INGEST_TIMESTAMP_TOO_OLD', 'timestamp'],
      [3, 'INGEST_TIMESTAMP_IN_FUTURE', 'timestamp'],
      [4, 'INGEST_TIMESTAMP_TOO_OLD', 'timestamp'],
      [5, 'INGEST_TIMESTAMP_INVALID', 'timestamp'],
      [6, 'INGEST_METRIC_NAME_EMPTY', 'metric'],
      [7, 'INGEST_METRIC_NAME_TOO_LONG', 'metric'],
    ]);
    expect(result.rejected[3]?.message).toMatch(/looks like seconds/);
    expect((await t.store.listMetrics('acme')).metrics.map((m) => m.name)).toEqual(['ok']);
  });

  it('writes columns exactly as it writes the same points as objects, rejections included', async () => {
    t = await open();
    const start = T_NOON - 2 * HOUR_MS;
    const points: Point[] = [
      ...series('cpu', start, 50, 30_000, (i) => (i % 9 === 0 ? `s${i}` : i * 0.25)),
      { tenant: 'acme', metric: 'mem', timestamp: start, value: Infinity, unit: 'bytes' },
      { tenant: 'acme', metric: 'mem', timestamp: start + 1, value: 7, unit: 'bytes' },
      { tenant: 'bad tenant', metric: 'cpu', timestamp: start, value: 1 },
      { tenant: 'acme', metric: 'cpu', timestamp: 1, value: 1 },
    ];
    const columns = new PointColumnsBuilder();
    for (const p of points) columns.push(p.tenant, p.metric, p.timestamp, p.value, p.unit);
    const viaColumns = await t.store.writeColumns(columns);
    const other = await open();
    try {
      expect(await other.store.write(points)).toEqual(viaColumns);
      expect(viaColumns.accepted).toBe(51);
      expect(viaColumns.rejected.map((r) => [r.index, r.code])).toEqual([
        [50, 'INGEST_VALUE_NOT_FINITE'],
        [52, 'INGEST_TENANT_INVALID'],
        [53, 'INGEST_TIMESTAMP_TOO_OLD'],
      ]);
      for (const metric of ['cpu', 'mem']) {
        const asked = { tenant: 'acme', metric, from: start - 1, to: T_NOON, resolution: 'FULL' };
        expect(await t.store.query(asked)).toEqual(await other.store.query(asked));
      }
      expect(await t.store.listMetrics('acme')).toEqual(await other.store.listMetrics('acme'));
    } finally {
      await other.cleanup();
    }
  });

  it('refuses columns of the wrong shape before reading them', async () => {
    t = await open();
    const good = new PointColumnsBuilder();
    good.push('acme', 'cpu', T_NOON - 1000, 1, undefined);
    const bad: unknown[] = [null, { ...good, length: 2 }, { ...good, timestampsMs: [T_NOON] }, { ...good, length: -1 }, { ...good, metrics: 'cpu' }, { ...good, strings: {} }];
    for (const columns of bad) await expectCode(t.store.writeColumns(columns as PointColumns), 'INGEST_POINT_MALFORMED');
    expect(t.store.stats().pointsAccepted).toBe(0);
    expect(await t.store.writeColumns(good)).toEqual({ accepted: 1, rejected: [] });
  });

  it('applies nothing of an atomic batch with a bad point', async () => {
    t = await open();
    const error = await expectCode(
      t.store.write(
        [
          { tenant: 'acme', metric: 'a', timestamp: T_NOON, value: 1 },
          { tenant: 'acme', metric: 'b', timestamp: T_NOON, value: Infinity },
        ],
        { atomic: true },
      ),
      'INGEST_POINTS_REJECTED',
    );
    expect(error.details.rejected).toHaveLength(1);
    expect((await t.store.listMetrics('acme')).metrics).toEqual([]);
    expect(t.store.stats().headPoints).toBe(0);
  });

  it('keeps a series’ unit when an atomic batch that changed it (twice) is rejected', async () => {
    t = await open();
    await t.store.write([{ tenant: 'acme', metric: 'lat', timestamp: T_NOON - 2000, value: 1, unit: 'ms' }]);
    await expectCode(
      t.store.write(
        [
          { tenant: 'acme', metric: 'lat', timestamp: T_NOON - 1000, value: 2, unit: 's' },
          { tenant: 'acme', metric: 'lat', timestamp: T_NOON - 500, value: 3, unit: 'min' },
          { tenant: 'acme', metric: 'lat', timestamp: T_NOON, value: Infinity },
        ],
        { atomic: true },
      ),
      'INGEST_POINTS_REJECTED',
    );
    expect((await t.store.listMetrics('acme')).metrics).toEqual([{ name: 'lat', unit: 'ms' }]);
    await t.store.write([{ tenant: 'acme', metric: 'lat', timestamp: T_NOON, value: 4, unit: 'us' }]);
    expect((await t.store.listMetrics('acme')).metrics).toEqual([{ name: 'lat', unit: 'us' }]);
  });

  it('refuses a batch over the batch limit', async () => {
    t = await open();
    const big = series('big', T_NOON - DAY_MS, 100_001, 1, () => 1);
    await expectCode(t.store.write(big), 'INGEST_BATCH_TOO_LARGE');
    expect(t.store.stats().headPoints).toBe(0);
  });

  it('validates queries: neither points nor resolution, from >= to, bad resolution, over the cap', async () => {
    t = await open();
    const q = { tenant: 'acme', metric: 'm', from: T_NOON - DAY_MS, to: T_NOON };
    await expectCode(t.store.query(q), 'QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    await expectCode(t.store.query({ ...q, from: T_NOON, resolution: 'FULL' }), 'QUERY_RANGE_INVALID');
    await expectCode(t.store.query({ ...q, resolution: 'MIN7' }), 'QUERY_RESOLUTION_INVALID');
    await expectCode(t.store.query({ ...q, resolution: 'MIN5', select: ['median'] }), 'QUERY_SELECT_INVALID');
    const over = await expectCode(t.store.query({ ...q, resolution: 'FULL' }), 'QUERY_POINTS_OVER_LIMIT');
    expect(over.message).toMatch(/2880/);
    expect(over.message).toMatch(/12 h/);
  });
});

describe.each(STORE_BACKENDS)('retention (%s)', (backend) => {
  const open = opener(backend);
  it('never serves expired points, and drops a wholly expired raw partition while the rollups serve the same', async () => {
    t = await open();
    const start = T_NOON - 2 * HOUR_MS;
    await t.store.write(series('r', start, 240, 30_000, (i) => i));
    await t.store.flush();
    expect(await t.partitionCount('FULL')).toBe(1);
    const range = { tenant: 'acme', metric: 'r', from: start, to: start + 2 * HOUR_MS };
    const select = ['average', 'variance', 'min', 'max'];
    // When the first half hour is 2 days old it has expired at FULL; its partition stays (the rest of it has not expired).
    t.clock.advance(2 * DAY_MS - 90 * MINUTE_MS);
    await t.store.flush();
    expect(await t.partitionCount('FULL')).toBe(1);
    const half = await t.store.query({ ...range, resolution: 'FULL' });
    expect(half.values[0]?.timestamp).toBe(start + 30 * MINUTE_MS);
    expect(half.values).toHaveLength(180);
    // Rollups outlive FULL: MIN5 still has all 24 buckets.
    const min5 = await t.store.query({ ...range, resolution: 'MIN5', select });
    expect(min5.values).toHaveLength(24);
    const min60 = await t.store.query({ ...range, resolution: 'MIN60', select });
    expect(min60.values.map((v) => v.numPoints)).toEqual([120, 120]);
    // Once the whole raw partition has expired a flush drops it; the rollups still serve, unchanged.
    t.clock.set(rawPartitionExpiredMs(t, start + 2 * HOUR_MS - 30_000));
    await t.store.flush();
    expect(await t.partitionCount('FULL')).toBe(0);
    // SQLite: no sidecar of the dropped file (-wal, -shm) stays behind either.
    if (t.backend === 'sqlite') expect(readdirSync(join(t.dir, 'partitions', 'FULL'))).toEqual([]);
    expect((await t.store.query({ ...range, resolution: 'FULL' })).values).toEqual([]);
    expect(await t.store.query({ ...range, resolution: 'MIN5', select })).toEqual(min5);
    expect(await t.store.query({ ...range, resolution: 'MIN60', select })).toEqual(min60);
  });

  it('coarsens a points query whose range reaches past a resolution’s retention (documented choice)', async () => {
    t = await open();
    const start = T_NOON - 3 * HOUR_MS;
    await t.store.write(series('p', start, 360, 30_000, () => 5));
    const q = { tenant: 'acme', metric: 'p', from: start, to: start + 3 * HOUR_MS, points: 360 };
    expect((await t.store.query(q)).resolution).toBe('FULL');
    t.clock.advance(2 * DAY_MS);
    const later = await t.store.query(q);
    expect(later.resolution).toBe('MIN5');
    expect(later.values).toHaveLength(36);
    expect(t.store.plan(q).reason).toMatch(/retention|keeps/i);
  });

  it('honours an injected retention table', async () => {
    t = await open({ retention: { FULL: HOUR_MS } });
    const result = await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON - 2 * HOUR_MS, value: 1 }]);
    expect(result.rejected[0]?.code).toBe('INGEST_TIMESTAMP_TOO_OLD');
  });
});

describe.each(STORE_BACKENDS)('durability and lifecycle (%s)', (backend) => {
  const open = opener(backend);
  it('serves every acknowledged point after a reopen, sealed or not', async () => {
    t = await open();
    const start = T_NOON - 5 * HOUR_MS;
    await t.store.write(series('d', start, 300, 60_000, (i) => i));
    await t.store.flush();
    await t.store.write(series('d', start + 300 * 60_000, 10, 1000, (i) => 1000 + i));
    await t.store.write([{ tenant: 'acme', metric: 'd', timestamp: start, value: -1 }]);
    const store = await t.reopen();
    const a = await store.query({ tenant: 'acme', metric: 'd', from: start, to: start + 6 * HOUR_MS, resolution: 'MIN60', select: ['min', 'max'] });
    expect(a.values.map((v) => v.numPoints)).toEqual([60, 60, 60, 60, 60, 10]);
    expect(a.values[0]).toMatchObject({ min: -1, max: 59 });
    expect(a.values[5]).toMatchObject({ min: 1000, max: 1009 });
    await store.flush();
    const b = await store.query({ tenant: 'acme', metric: 'd', from: start, to: start + 6 * HOUR_MS, resolution: 'MIN60', select: ['min', 'max'] });
    expect(b.values).toEqual(a.values);
  });

  it('refuses writes, queries and listings after close with STORE_CLOSED; a second close is harmless', async () => {
    t = await open();
    await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON, value: 1 }]);
    await t.store.close();
    await t.store.close();
    await expectCode(t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON, value: 2 }]), 'STORE_CLOSED');
    await expectCode(t.store.query({ tenant: 'acme', metric: 'm', from: T_NOON, to: T_NOON + 1, resolution: 'FULL' }), 'STORE_CLOSED');
    await expectCode(t.store.listMetrics('acme'), 'STORE_CLOSED');
    const store = await t.reopen();
    expect((await store.query({ tenant: 'acme', metric: 'm', from: T_NOON, to: T_NOON + 1, resolution: 'FULL' })).values).toEqual([{ timestamp: T_NOON, numPoints: 1, average: 1 }]);
  });
});

describe('durability and lifecycle (SQLite files)', () => {
  it('keeps rollups of an expired window intact when a WAL record that touched it is replayed after a restart', async () => {
    // One record holds a point of an old window W and of the current window V. W is sealed and
    // rolled up, then W's FULL file expires while V (and so the record) is still unsealed.
    // The maintenance interval is faked (as in store-background.test.ts): each pass runs when the test says,
    // and the test waits for the seal and rollup it started instead of sleeping past a real 1 s tick.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const tick = async (): Promise<void> => {
      vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
      await sealsSettled(t!.store);
      await rollupsSettled(t!.store);
    };
    t = await openTestStore({ background: true, workers: 0, graceMs: DAY_MS });
    const old = T_NOON - 47 * HOUR_MS;
    await t.store.write([
      { tenant: 'acme', metric: 'x', timestamp: old, value: 1 },
      { tenant: 'acme', metric: 'x', timestamp: T_NOON - MINUTE_MS, value: 5 },
    ]);
    await t.store.write([{ tenant: 'acme', metric: 'x', timestamp: old + 60_000, value: 3 }]);
    t.clock.advance(3_000);
    await tick();
    await tick();
    // W was sealed and rolled up by the background passes; V (and so the first record) stays in the head.
    expect(t.store.stats().headPoints).toBe(1);
    expect(t.store.stats().rolledUpSources).toBeGreaterThanOrEqual(2);
    const q = { tenant: 'acme', metric: 'x', from: old, to: old + 5 * MINUTE_MS, resolution: 'MIN5', select: ['average'] };
    const before = (await t.store.query(q)).values;
    expect(before).toEqual([{ timestamp: old, numPoints: 2, average: 2 }]);
    t.clock.set(T_NOON + 6 * HOUR_MS + MINUTE_MS);
    await tick();
    expect(t.store.stats().headPoints).toBe(1);
    expect(readdirSync(join(t.dir, 'partitions', 'FULL')).filter((f) => f.endsWith('.sqlite'))).toHaveLength(0);
    const store = await t.reopen({ background: false });
    await store.flush();
    expect((await store.query(q)).values).toEqual(before);
  });

  it('refuses a second store on the same directory, even in the same process', async () => {
    t = await openTestStore();
    const { openStore } = await import('../src/store.js');
    await expectCode(openStore({ dir: t.dir, background: false, workers: 0 }), 'STORE_LOCKED');
    expect((await t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON, value: 1 }])).accepted).toBe(1);
  });

  it('refuses calls after close with STORE_CLOSED and frees the directory lock', async () => {
    t = await openTestStore();
    await t.store.close();
    await expectCode(t.store.write([{ tenant: 'acme', metric: 'm', timestamp: T_NOON, value: 1 }]), 'STORE_CLOSED');
    expect(existsSync(join(t.dir, 'LOCK'))).toBe(false);
  });
});
