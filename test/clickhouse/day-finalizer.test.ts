// Tests day finalization on the run's 2-shard cluster: a store finalizes closed days (watermark on every shard, buckets stored, raw days dropped, answers unchanged), and the stored rows are the same whatever the step size, when a day is finalized twice, or after a finalization that reached one shard only.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { resolveClickHouseOptions } from '../../src/clickhouse/clickhouse-options.js';
import { DayFinalizer } from '../../src/clickhouse/day-finalizer.js';
import { rollupLocalTable } from '../../src/clickhouse/schema.js';
import { ShardSet } from '../../src/clickhouse/shard-set.js';
import { WriteVersions } from '../../src/clickhouse/write-versions.js';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import { ROLLUP_RESOLUTIONS } from '../../src/model/resolution.js';
import type { Point } from '../../src/model/sample.js';
import { openStore } from '../../src/store.js';
import { resolveCommonOptions } from '../../src/store-options.js';
import type { QueryResult, Store } from '../../src/store-types.js';
import { clickhouseStatement } from '../support/clickhouse-cluster.js';

const TENANT = 'acme';
/** Midnight UTC of 2026-11-22: day 0 of the tests. */
const D0 = Date.UTC(2026, 10, 22);
const { urls, cluster } = inject('clickhouse');

const databases: string[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const database of databases.splice(0)) for (const url of urls) await clickhouseStatement(url, `DROP DATABASE IF EXISTS ${database}`);
});

function freshDatabase(): string {
  const database = `strata_h7_${randomBytes(6).toString('hex')}`;
  databases.push(database);
  return database;
}

async function open(database: string, clock: ManualClock, retention?: { FULL: number }): Promise<Store> {
  const store = await openStore({ backend: { kind: 'clickhouse', urls, cluster, database }, clock, retention, background: false });
  closers.push(() => store.close());
  return store;
}

/** A small deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** One day of points of `metrics`: every few minutes at irregular offsets; `strings` metrics carry text, `mixed` ones both. */
function dayOfPoints(dayStart: number, metrics: readonly string[], perSeries: number, seed: number, kinds: (metric: string) => 'number' | 'string' | 'mixed' = () => 'number'): Point[] {
  const next = random(seed);
  const points: Point[] = [];
  for (const metric of metrics) {
    const stamps = new Set<number>();
    while (stamps.size < perSeries) stamps.add(dayStart + Math.floor(next() * DAY_MS));
    for (const timestamp of stamps) {
      const kind = kinds(metric);
      const text = kind === 'string' || (kind === 'mixed' && next() < 0.3);
      points.push(text ? { tenant: TENANT, metric, timestamp, value: `s${Math.floor(next() * 5)}` } : { tenant: TENANT, metric, timestamp, value: Math.round((next() - 0.3) * 1e6) / 100 });
    }
  }
  return points;
}

async function tsv(url: string, sql: string): Promise<string[]> {
  return (await clickhouseStatement(url, `${sql} FORMAT TSV`)).split('\n').filter((line) => line.length > 0);
}

/** Every stored bucket of every level on every shard, floats as their bits: [shard][level] → rows. */
async function storedRollups(database: string): Promise<string[][][]> {
  const columns = 'series, bucket, num_points, count, hex(reinterpretAsString(mean)), hex(reinterpretAsString(m2)), hex(reinterpretAsString(min)), hex(reinterpretAsString(max))';
  return Promise.all(urls.map((url) => Promise.all(ROLLUP_RESOLUTIONS.map((res) => tsv(url, `SELECT ${columns} FROM ${database}.${rollupLocalTable(res)} FINAL ORDER BY series, bucket`)))));
}

async function truncateRollups(database: string): Promise<void> {
  for (const url of urls) for (const res of ROLLUP_RESOLUTIONS) await clickhouseStatement(url, `TRUNCATE TABLE ${database}.${rollupLocalTable(res)}`);
}

async function watermarkOn(url: string, database: string): Promise<number> {
  const [v] = await tsv(url, `SELECT argMax(value, ver) FROM ${database}.state_local WHERE key = 'finalized_through_ms'`);
  return Number(v);
}

/** Removes the finalized watermark from every shard, keeping every other state row. */
async function forgetWatermark(database: string): Promise<void> {
  for (const url of urls) {
    const keep = await tsv(url, `SELECT key, value, ver FROM ${database}.state_local WHERE key != 'finalized_through_ms'`);
    await clickhouseStatement(url, `TRUNCATE TABLE ${database}.state_local`);
    const rows = keep.map((line) => line.split('\t')).map(([key, value, ver]) => `('${key}', ${value}, ${ver})`);
    if (rows.length > 0) await clickhouseStatement(url, `INSERT INTO ${database}.state_local VALUES ${rows.join(', ')}`);
  }
}

async function rawDays(url: string, database: string): Promise<number[]> {
  return (await tsv(url, `SELECT DISTINCT partition FROM system.parts WHERE active AND database = '${database}' AND table = 'points_local' ORDER BY partition`)).map(Number);
}

describe('a store finalizing days', () => {
  it('stores every level of the closed days, records the watermark on every shard, drops the raw days, and answers as before', async () => {
    const database = freshDatabase();
    const clock = new ManualClock(D0 + 12 * HOUR_MS);
    const store = await open(database, clock, { FULL: DAY_MS });
    const metrics = ['n.0', 'n.1', 'n.2', 'n.3', 'n.4', 'text.0', 'mixed.0'];
    const kinds = (m: string) => (m.startsWith('text') ? 'string' : m.startsWith('mixed') ? 'mixed' : 'number') as 'number' | 'string' | 'mixed';
    for (let day = 0; day < 3; day++) {
      const dayStart = D0 + day * DAY_MS;
      clock.set(dayStart + DAY_MS - 1);
      const points = dayOfPoints(dayStart, metrics, 150, day + 1, kinds);
      expect((await store.write(points)).accepted).toBe(points.length);
      // Rewrites of a tenth of the day in a later batch: the last write of a timestamp wins everywhere.
      const rewrites = points.filter((_, i) => i % 10 === 0).map((p) => ({ ...p, value: typeof p.value === 'number' ? p.value * 2 + 1 : `${p.value}!` }));
      expect((await store.write(rewrites)).accepted).toBe(rewrites.length);
    }
    const endOfDays = D0 + 3 * DAY_MS;
    // Day 3 (empty) ends at D0 + 4 days; a FULL retention of a day later every day before it is closed.
    clock.set(endOfDays + DAY_MS + HOUR_MS);
    const ask = () =>
      Promise.all(
        ROLLUP_RESOLUTIONS.flatMap((resolution) =>
          metrics.map((metric) => store.query({ tenant: TENANT, metric, from: D0, to: endOfDays, resolution, select: ['average', 'variance', 'min', 'max'] })),
        ),
      );
    const before: QueryResult[] = await ask();
    expect(before.every((answer) => answer.values.length > 0)).toBe(true);
    for (const url of urls) expect(await rawDays(url, database)).toEqual([0, 1, 2].map((d) => D0 / DAY_MS + d));

    await store.flush();

    for (const url of urls) {
      expect(await watermarkOn(url, database)).toBe(endOfDays);
      expect(await rawDays(url, database)).toEqual([]);
    }
    // Each level holds exactly the buckets the answers had, each on its series' shard.
    const stored = await storedRollups(database);
    ROLLUP_RESOLUTIONS.forEach((res, level) => {
      const answered = before.slice(level * metrics.length, (level + 1) * metrics.length).reduce((n, a) => n + a.values.length, 0);
      expect(stored.reduce((n, shard) => n + (shard[level] as string[]).length, 0), res).toBe(answered);
      stored.forEach((shard, s) => {
        for (const row of shard[level] as string[]) expect(BigInt(row.split('\t')[0] as string) % 2n).toBe(BigInt(s));
      });
    });
    expect(await ask()).toEqual(before);
    expect(store.stats()).toMatchObject({ rollupQueueDepth: 0, rollupLagMs: 0 });

    // A store opened afterwards reads the watermark and answers the same.
    const later = await open(database, clock, { FULL: DAY_MS });
    const answers = await Promise.all(
      ROLLUP_RESOLUTIONS.flatMap((resolution) => metrics.map((metric) => later.query({ tenant: TENANT, metric, from: D0, to: endOfDays, resolution, select: ['average', 'variance', 'min', 'max'] }))),
    );
    expect(answers).toEqual(before);
  });
});

describe('reads across the watermark', () => {
  it('answers stored buckets before it and live ones after it as it answered from raw alone', async () => {
    const database = freshDatabase();
    const clock = new ManualClock(D0 + 12 * HOUR_MS);
    const store = await open(database, clock, { FULL: DAY_MS });
    const metrics = ['a', 'b', 'c'];
    for (let day = 0; day < 2; day++) {
      clock.set(D0 + (day + 1) * DAY_MS - 1);
      await store.write(dayOfPoints(D0 + day * DAY_MS, metrics, 120, 7 + day));
    }
    // Only D0 is closed: after the flush it is stored, D1 still raw.
    clock.set(D0 + 2 * DAY_MS + HOUR_MS);
    const ranges: [number, number][] = [
      [D0, D0 + 2 * DAY_MS],
      [D0 + 5 * HOUR_MS + 1, D0 + DAY_MS + 7 * HOUR_MS + 3],
      [D0 + 23 * HOUR_MS, D0 + DAY_MS + HOUR_MS],
      [D0 + DAY_MS, D0 + 2 * DAY_MS],
    ];
    const ask = () =>
      Promise.all(
        ROLLUP_RESOLUTIONS.flatMap((resolution) =>
          ranges.flatMap(([from, to]) => metrics.map((metric) => store.query({ tenant: TENANT, metric, from, to, resolution, select: ['average', 'variance', 'min', 'max'] }))),
        ),
      );
    const before = await ask();
    await store.flush();
    for (const url of urls) expect(await watermarkOn(url, database)).toBe(D0 + DAY_MS);
    const left = new Set((await Promise.all(urls.map((url) => rawDays(url, database)))).flat());
    expect([...left]).toEqual([D0 / DAY_MS + 1]);
    expect(await ask()).toEqual(before);
  });
});

describe('DayFinalizer', () => {
  /** 30 series over day D0, about 500 points, written by a store and closed; the ShardSet of both shards over them. */
  async function dayOnShards(): Promise<{ database: string; set: ShardSet; versions: WriteVersions; clock: ManualClock }> {
    const database = freshDatabase();
    const clock = new ManualClock(D0 + DAY_MS - 1);
    const store = await open(database, clock);
    const metrics = Array.from({ length: 30 }, (_, i) => `series.${i}`);
    const points = dayOfPoints(D0, metrics, 17, 99, (m) => (m === 'series.7' ? 'mixed' : 'number'));
    expect((await store.write(points)).accepted).toBe(510);
    await store.close();
    const cfg = resolveClickHouseOptions({ kind: 'clickhouse', urls, cluster, database }, resolveCommonOptions({ clock, background: false }));
    const versions = new WriteVersions(clock);
    const set = await ShardSet.open(cfg, versions);
    closers.push(() => set.close());
    return { database, set, versions, clock };
  }

  it('stores the same rows in steps of a few points (every series spanning steps) as in one step', async () => {
    const { database, set, versions } = await dayOnShards();
    const oneStep = new DayFinalizer(set, database, versions, D0, 1_000_000);
    expect(await oneStep.step(D0 + DAY_MS)).toBe(true);
    expect(oneStep.finalizedThroughMs).toBe(D0 + DAY_MS);
    expect(await oneStep.step(D0 + DAY_MS)).toBe(false);
    const reference = await storedRollups(database);
    expect(reference.every((shard) => shard.every((level) => level.length > 0))).toBe(true);

    // Each series has 17 points: steps of 10 split every series, 17 ends a step exactly where a series
    // ends (when the split of numbers and strings allows), 3 splits each series into several steps.
    for (const stepPoints of [10, 17, 3]) {
      await truncateRollups(database);
      await forgetWatermark(database);
      expect((await storedRollups(database)).flat(2)).toEqual([]);
      const small = new DayFinalizer(set, database, versions, D0, stepPoints);
      expect(await small.step(D0 + DAY_MS)).toBe(true);
      expect(await storedRollups(database), `steps of ${stepPoints}`).toEqual(reference);
    }
  });

  it('leaves the same rows when a day is finalized again, and after a finalization that reached one shard only', async () => {
    const { database, set, versions } = await dayOnShards();
    await new DayFinalizer(set, database, versions, D0, 50).step(D0 + DAY_MS);
    const reference = await storedRollups(database);
    for (const url of urls) expect(await watermarkOn(url, database)).toBe(D0 + DAY_MS);

    // Again, as after a crash before the watermark was recorded: every row is written again and replaces its equal.
    await forgetWatermark(database);
    expect(await set.finalizedThrough()).toBeLessThan(D0 + DAY_MS);
    expect(await new DayFinalizer(set, database, versions, D0, 50).step(D0 + DAY_MS)).toBe(true);
    expect(await storedRollups(database)).toEqual(reference);

    // Interrupted: the crash came after shard 0 stored the day and before shard 1 did.
    await forgetWatermark(database);
    for (const res of ROLLUP_RESOLUTIONS) await clickhouseStatement(urls[1] as string, `TRUNCATE TABLE ${database}.${rollupLocalTable(res)}`);
    const half = await storedRollups(database);
    expect(half[0]).toEqual(reference[0]);
    expect(half[1]?.flat()).toEqual([]);
    const resumed = new DayFinalizer(set, database, versions, D0, 50);
    expect(await resumed.step(D0 + DAY_MS)).toBe(true);
    expect(await storedRollups(database)).toEqual(reference);
    for (const url of urls) expect(await watermarkOn(url, database)).toBe(D0 + DAY_MS);
  });

  it('passes over days without raw points to the end of the closed days in one step', async () => {
    const { database, set, versions } = await dayOnShards();
    const finalizer = new DayFinalizer(set, database, versions, D0 - 5 * DAY_MS, 1_000);
    expect(finalizer.due(D0 + 3 * DAY_MS)).toBe(true);
    // Days D0-5 … D0-1 hold nothing: the first step finalizes D0 and moves past it.
    expect(await finalizer.step(D0 + 3 * DAY_MS)).toBe(true);
    expect(finalizer.finalizedThroughMs).toBe(D0 + DAY_MS);
    // Nothing after D0: the next step records the end of the closed days.
    expect(await finalizer.step(D0 + 3 * DAY_MS)).toBe(true);
    expect(finalizer.finalizedThroughMs).toBe(D0 + 3 * DAY_MS);
    expect(await finalizer.step(D0 + 3 * DAY_MS)).toBe(false);
    expect(await set.finalizedThrough()).toBe(D0 + 3 * DAY_MS);
    // learn() never moves the watermark back.
    finalizer.learn(D0);
    expect(finalizer.finalizedThroughMs).toBe(D0 + 3 * DAY_MS);
  });
});
