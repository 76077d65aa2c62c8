// Tests damaged partition files through a real store: each kind of damage makes the queries that need the file fail with STORE_PARTITION_DAMAGED naming its range, never an empty answer or a bare error; damage is found at open (cheap) or on first use (quick_check, chunk count), remembered and logged once; nothing is sealed into a damaged partition; health reports it; and an older data directory opens and gets its files recorded.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../src/core/time.js';
import type { StrataError } from '../src/core/errors.js';
import { partitionPath } from '../src/storage/partition-set.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';
import { dayQuery, damagePartition, FULL_PARTITION_MS, recordingLogger, seedPoints, snapshot, type Damage } from './store-damage-fixtures.js';

/** Midnight of the harness's day: the seed covers [02:00, 11:00), FULL partitions [00:00, 06:00) and [06:00, 12:00). */
const DAY0 = T_NOON - 12 * HOUR_MS;
const EARLY = DAY0;
const LATE = DAY0 + FULL_PARTITION_MS;

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** A store holding the seed, sealed and rolled up at every level. */
async function seeded(options: Parameters<typeof openTestStore>[0] = {}): Promise<TestStore> {
  const store = await openTestStore(options);
  const result = await store.store.write(seedPoints(DAY0));
  expect(result.rejected).toEqual([]);
  await store.store.flush();
  return store;
}

/** The error a query fails with; fails the test when it answers. */
async function failure(promise: Promise<unknown>): Promise<StrataError> {
  try {
    await promise;
  } catch (error) {
    return error as StrataError;
  }
  throw new Error('the query answered; it should have failed');
}

function expectDamaged(error: StrataError, res: string, startMs: number, endMs: number, reason: string): void {
  expect(error.code, error.message).toBe('STORE_PARTITION_DAMAGED');
  expect(error.kind).toBe('unavailable');
  expect(error.details).toMatchObject({ resolution: res, partitionStartMs: startMs, partitionEndMs: endMs, reason });
  expect(error.message).toContain(new Date(startMs).toISOString());
  expect(error.message).toContain(new Date(endMs).toISOString());
}

const lateFull = (metric = 'cpu') => dayQuery(DAY0, metric, 'FULL', LATE + HOUR_MS, LATE + 3 * HOUR_MS);
const earlyFull = (metric = 'cpu') => dayQuery(DAY0, metric, 'FULL', EARLY + 2 * HOUR_MS, EARLY + 4 * HOUR_MS);

describe('a damaged FULL partition', () => {
  it.each<[Damage, string, 'open' | 'first use']>([
    ['delete', 'missing', 'open'],
    ['half', 'truncated', 'open'],
    ['garbage', 'header', 'open'],
    ['empty', 'empty', 'open'],
    ['corrupt-page', 'corrupt', 'first use'],
    ['drop-chunk', 'chunks', 'first use'],
  ])('%s: queries that need it fail naming its range (%s, found at %s); the others answer', async (how, reason, when) => {
    const { logger, errors } = recordingLogger();
    t = await seeded();
    const before = await t.store.query(earlyFull());
    await t.reopen();
    const path = damagePartition(t.dir, 'FULL', LATE, how);
    await t.reopen({ logger });
    const health = () => (t as TestStore).store.health?.();
    if (when === 'open') expect(health()?.status).toBe('degraded');
    else expect(health()).toEqual({ status: 'ok', reasons: [] });
    const error = await failure(t.store.query(lateFull()));
    expectDamaged(error, 'FULL', LATE, LATE + FULL_PARTITION_MS, reason);
    // Remembered: the same answer again, logged once, the file never recreated by a read.
    expectDamaged(await failure(t.store.query(lateFull('mem'))), 'FULL', LATE, LATE + FULL_PARTITION_MS, reason);
    expect(errors.filter((e) => e.obj['partitionStartMs'] === LATE)).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ resolution: 'FULL', partitionStartMs: LATE, partitionEndMs: LATE + FULL_PARTITION_MS, reason });
    if (how === 'delete') expect(existsSync(path)).toBe(false);
    // The other partition and the rollups still answer.
    expect(await t.store.query(earlyFull())).toEqual(before);
    expect((await t.store.query(dayQuery(DAY0, 'cpu', 'MIN60'))).values).toHaveLength(9);
    expect(health()).toMatchObject({ status: 'degraded', reasons: [{ code: 'STORE_PARTITION_DAMAGED', details: { resolution: 'FULL', partitionStartMs: LATE, reason } }] });
    expect(t.store.stats()).toMatchObject({ damagedPartitions: 1, durable: true });
    // Paths relative to the data directory: /healthz answers without a token.
    expect(JSON.stringify(health())).not.toContain(t.dir);
    expect(error.details['detail']).toContain(`partitions/FULL/${LATE}.sqlite`);
  });

  it('stays damaged across reopens (the catalog remembers it), and is logged again once per open', async () => {
    t = await seeded();
    await t.reopen();
    damagePartition(t.dir, 'FULL', LATE, 'corrupt-page');
    await t.reopen();
    await failure(t.store.query(lateFull()));
    const { logger, errors } = recordingLogger();
    await t.reopen({ logger });
    expect(t.store.health?.().status).toBe('degraded');
    expectDamaged(await failure(t.store.query(lateFull())), 'FULL', LATE, LATE + FULL_PARTITION_MS, 'corrupt');
    expect(errors).toHaveLength(1);
  });

  it('is never sealed into: a late point for it stays in the head (and the WAL) while other windows seal', async () => {
    t = await seeded();
    await t.reopen();
    damagePartition(t.dir, 'FULL', LATE, 'corrupt-page');
    await t.reopen();
    const late = { tenant: 't1', metric: 'cpu', value: 7 };
    await t.store.write([{ ...late, timestamp: LATE + 30 * 1000 }, { ...late, timestamp: EARLY + 3 * HOUR_MS + 30 * 1000 }]);
    await t.store.flush();
    expect(t.store.stats().headPoints).toBe(1);
    // The early window sealed (its FULL answer has the new point); the late one was found damaged on first use and kept.
    expect((await t.store.query(earlyFull())).values.some((v) => v.timestamp === EARLY + 3 * HOUR_MS + 30 * 1000)).toBe(true);
    expect(t.store.health?.().reasons.map((r) => r.details['reason'])).toEqual(['corrupt']);
    // After a restart the point is still there: replayed from the WAL into the head.
    await t.reopen();
    expect(t.store.stats().headPoints).toBe(1);
  });
});

describe('a damaged rollup partition', () => {
  it('MIN5 truncated to 0 bytes: MIN5 queries of its day fail naming it; the rollups into it wait without failing again', async () => {
    const { logger, errors } = recordingLogger();
    t = await seeded();
    const coarser = await t.store.query(dayQuery(DAY0, 'cpu', 'MIN20'));
    await t.reopen();
    damagePartition(t.dir, 'MIN5', DAY0, 'empty');
    await t.reopen({ logger });
    expectDamaged(await failure(t.store.query(dayQuery(DAY0, 'cpu', 'MIN5'))), 'MIN5', DAY0, DAY0 + 24 * HOUR_MS, 'empty');
    expect(await t.store.query(dayQuery(DAY0, 'cpu', 'MIN20'))).toEqual(coarser);
    // New points for that day: their FULL window seals, the MIN5 rollup is due but never started.
    await t.store.write([{ tenant: 't1', metric: 'cpu', timestamp: EARLY + 2 * HOUR_MS + 15 * 1000, value: 1 }]);
    await t.store.flush();
    await t.store.flush();
    expect(t.store.stats().headPoints).toBe(0);
    expect(errors).toHaveLength(1);
    expect(readdirSync(join(t.dir, 'partitions', 'MIN5'))).toEqual([`${DAY0}.sqlite`]);
    expect(t.store.health?.()).toMatchObject({ status: 'degraded', reasons: [{ details: { resolution: 'MIN5', partitionStartMs: DAY0, reason: 'empty' } }] });
  });
});

describe('damage found by a rollup task', () => {
  it.each([0, 1])('MIN5 with a corrupt page, found when a task (workers: %i) first opens it: recorded once, the task not retried', async (workers) => {
    const { logger, errors } = recordingLogger();
    t = await seeded({ workers });
    await t.reopen();
    damagePartition(t.dir, 'MIN5', DAY0, 'corrupt-page');
    await t.reopen({ logger, workers });
    expect(t.store.health?.().status).toBe('ok');
    await t.store.write([{ tenant: 't1', metric: 'cpu', timestamp: EARLY + 2 * HOUR_MS + 15 * 1000, value: 1 }]);
    await t.store.flush();
    expect(t.store.health?.()).toMatchObject({ status: 'degraded', reasons: [{ details: { resolution: 'MIN5', partitionStartMs: DAY0, reason: 'corrupt' } }] });
    await t.store.flush();
    await t.store.flush();
    expect(errors).toEqual([expect.objectContaining({ obj: expect.objectContaining({ resolution: 'MIN5', reason: 'corrupt' }) })]);
    expectDamaged(await failure(t.store.query(dayQuery(DAY0, 'cpu', 'MIN5'))), 'MIN5', DAY0, DAY0 + 24 * HOUR_MS, 'corrupt');
  });
});

describe('retention', () => {
  it('forgets a partition it drops, damaged or not: its catalog rows go, and health is ok again', async () => {
    t = await seeded();
    await t.reopen();
    damagePartition(t.dir, 'FULL', LATE, 'delete');
    await t.reopen();
    expect(t.store.health?.().status).toBe('degraded');
    // Past the FULL retention (2 days) of both FULL partitions, within every rollup's.
    t.clock.set(LATE + FULL_PARTITION_MS + 2 * 24 * HOUR_MS);
    await t.store.flush();
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
    await t.store.close();
    const db = new Database(join(t.dir, 'catalog.sqlite'), { readonly: true });
    const rows = db.prepare("SELECT res FROM partition_file WHERE res = 'FULL' UNION ALL SELECT res FROM damaged_partition").all();
    db.close();
    expect(rows).toEqual([]);
    await t.reopen();
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
  });
});

describe('opening a data directory', () => {
  it('opens one written before the catalog listed partition files, recording every file with its chunk count', async () => {
    t = await seeded();
    const before = await snapshot(t.store, DAY0);
    await t.store.close();
    const catalog = new Database(join(t.dir, 'catalog.sqlite'));
    catalog.exec('DROP TABLE partition_file; DROP TABLE damaged_partition; PRAGMA user_version = 1;');
    catalog.close();
    await t.reopen();
    expect(await snapshot(t.store, DAY0)).toEqual(before);
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
    await t.store.close();
    const reopened = new Database(join(t.dir, 'catalog.sqlite'), { readonly: true });
    const rows = reopened.prepare('SELECT res, start_ms AS startMs, chunks, first_seq AS firstSeq FROM partition_file ORDER BY res, start_ms').all();
    expect(reopened.pragma('user_version', { simple: true })).toBe(5); // raised to this build's schema version (5 since issue 19)
    reopened.close();
    expect(rows).toContainEqual({ res: 'FULL', startMs: LATE, chunks: 6, firstSeq: null });
    expect(rows).toContainEqual({ res: 'MIN5', startMs: DAY0, chunks: 2, firstSeq: null });
    expect(rows).toHaveLength(2 + 5);
    await t.reopen();
  });

  it('records what each seal and rollup wrote: chunk counts and the first WAL seq of a FULL file', async () => {
    t = await seeded();
    await t.store.close();
    const db = new Database(join(t.dir, 'catalog.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT res, start_ms AS startMs, chunks, first_seq AS firstSeq FROM partition_file ORDER BY res, start_ms').all();
    db.close();
    expect(rows).toContainEqual({ res: 'FULL', startMs: EARLY, chunks: 4, firstSeq: 1 });
    expect(rows).toContainEqual({ res: 'FULL', startMs: LATE, chunks: 6, firstSeq: 1 });
    expect(rows).toContainEqual({ res: 'MIN5', startMs: DAY0, chunks: 2, firstSeq: null });
    await t.reopen();
  });

  it('never creates a partition file for a read of a range that has none', async () => {
    t = await seeded();
    const empty = await t.store.query(dayQuery(DAY0, 'cpu', 'FULL', DAY0 + 14 * HOUR_MS, DAY0 + 16 * HOUR_MS));
    expect(empty.values).toEqual([]);
    expect(existsSync(partitionPath(t.dir, 'FULL', DAY0 + 12 * HOUR_MS))).toBe(false);
  });
});
