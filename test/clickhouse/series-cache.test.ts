// Tests SeriesCache: a colliding series id refuses the batch and forgets all of it, and which series rows a write sends (new series, unit changes, rows no write had acknowledged).
import { describe, expect, it } from 'vitest';
import { SeriesCache } from '../../src/clickhouse/series-cache.js';
import { seriesIdBytes, seriesIdOf } from '../../src/clickhouse/series-id.js';
import { StrataError } from '../../src/core/errors.js';
import type { SeriesRow } from '../../src/storage/catalog.js';
import { thrownStrataError } from './clickhouse-fixture.js';

const TENANT = 'acme';
/** Metrics named clash.<group>.<anything> share the id 1000 + group; every other name keeps its real id. */
function collidingIdOf(tenant: string, metric: string): bigint {
  const m = /^clash\.(\d+)\./.exec(metric);
  return m === null ? seriesIdOf(tenant, metric) : 1000n + BigInt(m[1] as string);
}

function newCache(): SeriesCache {
  return new SeriesCache((id) => Number(id % 2n), collidingIdOf);
}

/** One batch as validation registers it: each [metric, unit] resolved, then the rows the write must send. */
function batch(cache: SeriesCache, series: readonly (readonly [string, string | undefined])[]): { ids: Uint32Array; rows: SeriesRow[] } {
  const ids = Uint32Array.from(series.map(([metric, unit]) => cache.registry.resolve(TENANT, metric, unit)));
  return { ids, rows: cache.rowsFor(ids, ids.length) };
}

/** The STORE_SERIES_ID_COLLISION error `run` throws (fails the test when it returns or throws anything else). */
function collision(run: () => unknown): StrataError {
  const error = thrownStrataError(run);
  expect(error.code).toBe('STORE_SERIES_ID_COLLISION');
  return error;
}

const sent = (rows: readonly SeriesRow[]) => rows.map((r) => [r.metric, r.unit]).sort();

describe('SeriesCache collisions', () => {
  it('refuses a new series whose id another known series has, forgetting every registration of its batch', () => {
    const cache = newCache();
    const first = batch(cache, [['clash.1.a', 'ms'], ['plain.a', undefined]]);
    cache.confirm(first.rows);
    const error = collision(() => batch(cache, [['plain.b', undefined], ['clash.1.b', undefined], ['plain.a', 's'], ['clash.1.a', 'h']]));
    expect(error.details).toMatchObject({ tenant: TENANT, metric: 'clash.1.b', seriesId: '1001' });
    expect(error.message).toContain('clash.1.a');
    expect(cache.registry.lookup(TENANT, 'clash.1.b')).toBeUndefined();
    expect(cache.registry.lookup(TENANT, 'plain.b')).toBeUndefined();
    // The refused batch's unit changes are undone too.
    expect(cache.registry.unitOf(TENANT, 'plain.a')).toBeNull();
    expect(cache.registry.unitOf(TENANT, 'clash.1.a')).toBe('ms');

    // The next batch without the colliding name goes through, with the series its predecessor lost.
    const next = batch(cache, [['plain.b', undefined], ['clash.1.a', undefined]]);
    expect(sent(next.rows)).toEqual([['plain.b', null]]);
    const id = cache.registry.lookup(TENANT, 'plain.b') as number;
    expect(id).toBeDefined();
    const placed = cache.placement(id);
    expect(placed.seriesId).toBe(seriesIdOf(TENANT, 'plain.b'));
    expect(placed.idBytes.equals(seriesIdBytes(placed.seriesId))).toBe(true);
    expect(placed.shard).toBe(Number(placed.seriesId % 2n));
    // The colliding name stays refused however often it comes back.
    collision(() => batch(cache, [['clash.1.b', undefined]]));
    expect(cache.registry.lookup(TENANT, 'clash.1.b')).toBeUndefined();
    expect(cache.placement(cache.registry.lookup(TENANT, 'clash.1.a') as number).seriesId).toBe(1001n);
  });

  it('refuses two new series of one batch that share an id, keeping neither', () => {
    const cache = newCache();
    const error = collision(() => batch(cache, [['clash.2.a', undefined], ['solo', undefined], ['clash.2.b', undefined]]));
    expect(error.details).toMatchObject({ metric: 'clash.2.b', seriesId: '1002' });
    for (const metric of ['clash.2.a', 'solo', 'clash.2.b']) expect(cache.registry.lookup(TENANT, metric)).toBeUndefined();
    // Either one alone is welcome, and the local ids the refused batch used are taken again.
    const next = batch(cache, [['clash.2.b', 'B'], ['solo', undefined]]);
    expect(sent(next.rows)).toEqual([['clash.2.b', 'B'], ['solo', null]]);
    expect(cache.placement(next.ids[0] as number).seriesId).toBe(1002n);
    expect(cache.placement(next.ids[1] as number).seriesId).toBe(seriesIdOf(TENANT, 'solo'));
  });
});

describe('SeriesCache rows to send', () => {
  it('sends new series and unit changes; after confirm() a series is not sent again unless its unit changes', () => {
    const cache = newCache();
    const first = batch(cache, [['cpu', 'percent'], ['mem', undefined], ['cpu', undefined]]);
    expect(sent(first.rows)).toEqual([['cpu', 'percent'], ['mem', null]]);
    cache.confirm(first.rows);
    expect(batch(cache, [['cpu', undefined], ['mem', undefined], ['cpu', 'percent']]).rows).toEqual([]);
    const changed = batch(cache, [['mem', 'bytes'], ['cpu', undefined]]);
    expect(sent(changed.rows)).toEqual([['mem', 'bytes']]);
    cache.confirm(changed.rows);
    expect(batch(cache, [['mem', undefined], ['cpu', undefined]]).rows).toEqual([]);
    // A unit changed twice in one batch is sent once, as it ends.
    const twice = batch(cache, [['cpu', 'ratio'], ['cpu', 'permille']]);
    expect(sent(twice.rows)).toEqual([['cpu', 'permille']]);
  });

  it('sends a new series again with every write of it until one write that carried it is acknowledged', () => {
    const cache = newCache();
    const failed = batch(cache, [['disk', 'bytes']]);
    expect(sent(failed.rows)).toEqual([['disk', 'bytes']]);
    // No confirm: the write failed. A batch without the series sends nothing for it…
    expect(batch(cache, [['other', undefined]]).rows.map((r) => r.metric)).toEqual(['other']);
    // …and the next batch with it sends it again, as it is now.
    const again = batch(cache, [['disk', undefined]]);
    expect(sent(again.rows)).toEqual([['disk', 'bytes']]);
    expect(sent(batch(cache, [['disk', undefined]]).rows)).toEqual([['disk', 'bytes']]);
    cache.confirm(again.rows);
    expect(batch(cache, [['disk', undefined]]).rows).toEqual([]);
  });

  it('sends a unit change again until a write that carried it is acknowledged', () => {
    const cache = newCache();
    const first = batch(cache, [['latency', 'ms']]);
    cache.confirm(first.rows);
    const change = batch(cache, [['latency', 's']]);
    expect(sent(change.rows)).toEqual([['latency', 's']]);
    // No confirm: the write that carried the change failed, so its shard still holds 'ms'.
    // The next write of the series must carry the change, or ClickHouse keeps 'ms' while this process believes 's'.
    expect(sent(batch(cache, [['latency', undefined]]).rows)).toEqual([['latency', 's']]);
  });

  it('places every series of a batch on shardOf(its id), and refuses to place an id never registered', () => {
    const shards = 3;
    const cache = new SeriesCache((id) => Number(id % BigInt(shards)));
    const metrics = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const { ids } = batch(
      cache,
      metrics.map((m) => [m, undefined] as const),
    );
    ids.forEach((id, i) => {
      const p = cache.placement(id);
      expect(p.seriesId).toBe(seriesIdOf(TENANT, metrics[i] as string));
      expect(p.shard).toBe(Number(p.seriesId % 3n));
    });
    expect(() => cache.placement(10_000)).toThrow(StrataError);
  });
});
