// Tests ShardSet against the run's 2-shard cluster: the schema on every shard, the URL order check, schema versions, idempotent reopening, recreated Distributed tables, and that each series lives on the shard Distributed(…, series) picks.
import { describe, expect, inject, it } from 'vitest';
import { distributedTables, CLICKHOUSE_SCHEMA_VERSION, MIGRATIONS } from '../../src/clickhouse/schema.js';
import { seriesIdOf } from '../../src/clickhouse/series-id.js';
import { ManualClock } from '../../src/core/clock.js';
import { StrataError } from '../../src/core/errors.js';
import { MINUTE_MS } from '../../src/core/time.js';
import type { Point } from '../../src/model/sample.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { clickhouseStatement } from '../support/clickhouse-cluster.js';
import { clickhouseDatabases } from './clickhouse-fixture.js';

const TENANT = 'acme';
const T_NOON = Date.UTC(2026, 10, 22, 12);
const { urls, cluster } = inject('clickhouse');
const TWO_POW_63 = 2n ** 63n;

const databases = clickhouseDatabases('strata_h7');

async function open(database: string, options: { urls?: readonly string[]; cluster?: string; clock?: ManualClock } = {}): Promise<Store> {
  const store = await openStore({
    backend: { kind: 'clickhouse', urls: options.urls ?? urls, cluster: options.cluster ?? cluster, database },
    clock: options.clock ?? new ManualClock(T_NOON),
    background: false,
  });
  return databases.track(store);
}

async function openError(database: string, options: { urls?: readonly string[]; cluster?: string; clock?: ManualClock }): Promise<StrataError> {
  const error = await open(database, options).then(
    () => new Error('expected the open to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

/** The refusal of URLs that are not the cluster's shards in order: a bad backend.urls, naming a shard. */
function expectWrongOrder(error: StrataError): void {
  expect(error.code, error.message).toBe('STORE_OPTIONS_INVALID');
  expect(error.details.option).toBe('backend.urls');
  expect(error.details.shard).toBeDefined();
  expect(error.message).toMatch(/shard/);
}

/** A statement's answer as JSON rows. */
async function rows<T>(url: string, sql: string): Promise<T[]> {
  const text = await clickhouseStatement(url, `${sql} FORMAT JSONEachRow`);
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** The series ids (decimal) in a table of one shard. */
async function seriesOn(url: string, table: string): Promise<string[]> {
  const found = await rows<{ s: string }>(url, `SELECT DISTINCT toString(series) AS s FROM ${table} ORDER BY s`);
  return found.map((r) => r.s);
}

/** Metric names covering both shards and both halves of the UInt64 range (the top bit set or not). */
function coveringMetrics(perKind: number): string[] {
  const out: string[] = [];
  const want = new Map<string, number>();
  for (let n = 0; out.length < 4 * perKind; n++) {
    const metric = `cover.${n}`;
    const id = seriesIdOf(TENANT, metric);
    const kind = `${id % 2n}/${id >= TWO_POW_63}`;
    if ((want.get(kind) ?? 0) >= perKind) continue;
    want.set(kind, (want.get(kind) ?? 0) + 1);
    out.push(metric);
  }
  return out;
}

const sortedIds = (metrics: readonly string[]) => metrics.map((m) => seriesIdOf(TENANT, m).toString()).sort();

describe('ShardSet.open', () => {
  it('creates every table on both shards: the local ones, the Distributed ones on this cluster, the version and each shard index', async () => {
    const database = databases.fresh();
    await open(database);
    const locals = ['points_local', 'series_local', 'state_local', 'schema_version', 'rollup_min5_local', 'rollup_min20_local', 'rollup_min60_local', 'rollup_min240_local', 'rollup_min1440_local'];
    const distributed = distributedTables();
    expect(distributed.map(([name]) => name).sort()).toEqual(['points', 'rollup_min1440', 'rollup_min20', 'rollup_min240', 'rollup_min5', 'rollup_min60', 'series']);
    for (const [index, url] of urls.entries()) {
      const tables = await rows<{ name: string; engine: string; engine_full: string }>(url, `SELECT name, engine, engine_full FROM system.tables WHERE database = '${database}' ORDER BY name`);
      expect(tables.map((t) => t.name).sort()).toEqual([...locals, ...distributed.map(([name]) => name)].sort());
      for (const [name, local] of distributed) {
        const table = tables.find((t) => t.name === name);
        expect(table?.engine).toBe('Distributed');
        expect(table?.engine_full).toBe(`Distributed('${cluster}', '${database}', '${local}', series)`);
      }
      expect(await rows(url, `SELECT version FROM ${database}.schema_version`)).toEqual([{ version: CLICKHOUSE_SCHEMA_VERSION }]);
      expect(await rows(url, `SELECT argMax(value, ver) AS v FROM ${database}.state_local WHERE key = 'shard_index'`)).toEqual([{ v: String(index) }]);
    }
    expect(MIGRATIONS.at(-1)?.[0]).toBe(CLICKHOUSE_SCHEMA_VERSION);
  });

  it('puts each series on shard seriesIdOf % 2, where an insert through the Distributed table puts it too', async () => {
    const database = databases.fresh();
    const store = await open(database);
    const metrics = coveringMetrics(3);
    const points: Point[] = metrics.map((metric, i) => ({ tenant: TENANT, metric, timestamp: T_NOON - MINUTE_MS, value: i }));
    expect(await store.write(points)).toEqual({ accepted: points.length, rejected: [] });
    const onShard = (s: number) => metrics.filter((m) => seriesIdOf(TENANT, m) % 2n === BigInt(s));
    for (const [s, url] of urls.entries()) {
      expect(await seriesOn(url, `${database}.points_local`)).toEqual(sortedIds(onShard(s)));
      expect(await seriesOn(url, `${database}.series_local`)).toEqual(sortedIds(onShard(s)));
    }

    // Through the Distributed table, entered on either shard, each series' row lands where the store wrote it.
    for (const [entry, url] of urls.entries()) {
      const ts = T_NOON - (10 + entry) * MINUTE_MS;
      const values = metrics.map((m, i) => `(${seriesIdOf(TENANT, m)}, ${ts}, 0, ${100 * (entry + 1) + i}, '')`).join(', ');
      await clickhouseStatement(`${url}/?insert_distributed_sync=1`, `INSERT INTO ${database}.points VALUES ${values}`);
    }
    for (const [s, url] of urls.entries()) expect(await seriesOn(url, `${database}.points_local`)).toEqual(sortedIds(onShard(s)));
    // And the store reads them back from the shard it computes.
    for (const [i, metric] of metrics.entries()) {
      const answer = await store.query({ tenant: TENANT, metric, from: T_NOON - 20 * MINUTE_MS, to: T_NOON, resolution: 'FULL' });
      expect(answer.values.map((v) => [v.timestamp, v.average])).toEqual([
        [T_NOON - 11 * MINUTE_MS, 200 + i],
        [T_NOON - 10 * MINUTE_MS, 100 + i],
        [T_NOON - MINUTE_MS, i],
      ]);
    }
  });

  it('reopens an existing database as it is: no second schema version, every point still there', async () => {
    const database = databases.fresh();
    const clock = new ManualClock(T_NOON);
    const first = await open(database, { clock });
    const points: Point[] = coveringMetrics(1).map((metric, i) => ({ tenant: TENANT, metric, timestamp: T_NOON - 5 * MINUTE_MS, value: i + 0.5, unit: 'ms' }));
    await first.write(points);
    const request = (metric: string) => ({ tenant: TENANT, metric, from: T_NOON - 10 * MINUTE_MS, to: T_NOON, resolution: 'FULL' });
    const before = await Promise.all(points.map((p) => first.query(request(p.metric))));
    await first.close();
    clock.advance(MINUTE_MS);
    const second = await open(database, { clock });
    const third = await open(database, { clock });
    expect(await Promise.all(points.map((p) => second.query(request(p.metric))))).toEqual(before);
    expect(await Promise.all(points.map((p) => third.query(request(p.metric))))).toEqual(before);
    expect(before.every((b) => b.unit === 'ms' && b.values.length === 1)).toBe(true);
    for (const url of urls) expect(await rows(url, `SELECT count() AS n FROM ${database}.schema_version`)).toEqual([{ n: '1' }]);
    expect((await second.listMetrics(TENANT)).metrics).toHaveLength(points.length);
  });

  it('refuses the URLs in the wrong order, naming the shard, on a used database and on a fresh one', async () => {
    const database = databases.fresh();
    const clock = new ManualClock(T_NOON);
    const store = await open(database, { clock });
    await store.write(coveringMetrics(1).map((metric) => ({ tenant: TENANT, metric, timestamp: T_NOON - MINUTE_MS, value: 1 })));
    await store.close();
    clock.advance(1);
    const error = await openError(database, { urls: [...urls].reverse(), clock });
    expectWrongOrder(error);
    expectWrongOrder(await openError(databases.fresh(), { urls: [...urls].reverse() }));
    // Given in the right order (a millisecond later), the database opens with its data.
    clock.advance(1);
    const again = await open(database, { clock });
    expect((await again.listMetrics(TENANT)).metrics).toHaveLength(4);
  });

  it('opens in the right order after a refused first open in the wrong order by a process whose clock is ahead', async () => {
    const database = databases.fresh();
    // A misconfigured process (URLs reversed) on a host whose clock is 5 ms ahead is refused…
    expect((await openError(database, { urls: [...urls].reverse(), clock: new ManualClock(T_NOON + 5) })).code).toBe('STORE_OPTIONS_INVALID');
    // …and leaves nothing behind that refuses the right order afterwards: neither shard indexes newer
    // than the ones this open records, nor positions recorded for good by an open that was refused.
    const store = await open(database, { clock: new ManualClock(T_NOON) });
    expect((await store.listMetrics(TENANT)).metrics).toEqual([]);
  });

  it('refuses the URLs in the wrong order from a process whose clock is behind the last good open', async () => {
    const database = databases.fresh();
    const good = await open(database, { clock: new ManualClock(T_NOON + 5) });
    await good.close();
    // The reversed open records its indexes with lower versions than the good open's, so the check,
    // reading the newest index of each shard, finds the good order and lets the wrong one through:
    // that store would write every series to the other shard than Distributed reads it from.
    expectWrongOrder(await openError(database, { urls: [...urls].reverse(), clock: new ManualClock(T_NOON) }));
  });

  it('refuses fewer URLs than the cluster has shards, and more', async () => {
    const fewer = await openError(databases.fresh(), { urls: [urls[0] as string] });
    expect(fewer.code).toBe('STORE_OPTIONS_INVALID');
    expect(fewer.details).toMatchObject({ option: 'backend.urls', cluster, clusterShards: 2, urls: 1 });
    const more = await openError(databases.fresh(), { urls, cluster: 'strata1' });
    expect(more.code).toBe('STORE_OPTIONS_INVALID');
    expect(more.details).toMatchObject({ option: 'backend.urls', cluster: 'strata1', clusterShards: 1, urls: 2 });
  });

  it('refuses a URL that is not the shard of the cluster (strata1 is shard 0 only) as a bad option, on a fresh database', async () => {
    // Shard 0 holds no such database: the check's remote() read fails there with code 279, which
    // is not a shard being down (every shard answers) and not the URL the error would name.
    const error = await openError(databases.fresh(), { urls: [urls[1] as string], cluster: 'strata1' });
    expect(error.code, error.message).toBe('STORE_OPTIONS_INVALID');
    expectWrongOrder(error);
  });

  it('refuses a URL that is not the shard of the cluster, also where that shard recorded the same index in an earlier open', async () => {
    const database = databases.fresh();
    const store = await open(database);
    await store.close();
    // Both shards now hold the database; shard 0 recorded index 0. The cluster strata1 is shard 0
    // only, so urls[1] is not its shard, whatever index urls[1] records now.
    expectWrongOrder(await openError(database, { urls: [urls[1] as string], cluster: 'strata1' }));
  });

  it('refuses a shard whose schema version is above CLICKHOUSE_SCHEMA_VERSION, naming it', async () => {
    const database = databases.fresh();
    const future = CLICKHOUSE_SCHEMA_VERSION + 1;
    await clickhouseStatement(urls[1] as string, `CREATE DATABASE ${database}`);
    await clickhouseStatement(urls[1] as string, `CREATE TABLE ${database}.schema_version (version UInt32, applied_ms UInt64) ENGINE = TinyLog`);
    await clickhouseStatement(urls[1] as string, `INSERT INTO ${database}.schema_version VALUES (1, 0), (${future}, 0)`);
    const error = await openError(database, {});
    expect(error.code).toBe('STORE_SCHEMA_UNSUPPORTED');
    expect(error.details).toMatchObject({ shard: urls[1], version: future });
    // The newer shard is left as it was: no table of this build's schema was created on it.
    const tables = await rows<{ name: string }>(urls[1] as string, `SELECT name FROM system.tables WHERE database = '${database}'`);
    expect(tables).toEqual([{ name: 'schema_version' }]);
  });

  it('recreates Distributed tables that point at another cluster', async () => {
    const database = databases.fresh();
    const store = await open(database);
    const metrics = coveringMetrics(1);
    await store.write(metrics.map((metric) => ({ tenant: TENANT, metric, timestamp: T_NOON - MINUTE_MS, value: 1 })));
    await store.close();
    for (const url of urls) {
      for (const [name, local] of distributedTables()) {
        await clickhouseStatement(url, `DROP TABLE ${database}.${name}`);
        await clickhouseStatement(url, `CREATE TABLE ${database}.${name} AS ${database}.${local} ENGINE = Distributed('strata1', '${database}', '${local}', series)`);
      }
    }
    const engines = async (url: string) =>
      (await rows<{ name: string; engine_full: string }>(url, `SELECT name, engine_full FROM system.tables WHERE database = '${database}' AND engine = 'Distributed' ORDER BY name`)).map(
        (t) => t.engine_full.split(',')[0],
      );
    for (const url of urls) expect(new Set(await engines(url))).toEqual(new Set(["Distributed('strata1'"]));
    const reopened = await open(database);
    for (const url of urls) expect(new Set(await engines(url))).toEqual(new Set([`Distributed('${cluster}'`]));
    // The listing goes through the Distributed series table: it sees both shards' series again.
    expect((await reopened.listMetrics(TENANT)).metrics.map((m) => m.name)).toEqual([...metrics].sort());
  });
});
