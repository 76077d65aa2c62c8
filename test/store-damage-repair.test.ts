// Tests the audit and repair of damaged partitions against real stores: a rollup partition is put aside and rebuilt bit for bit by the rollup machinery, a FULL partition comes back from the WAL when the log still holds its records, and is otherwise recorded lost (queries keep failing) until the loss is accepted.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { StrataError } from '../src/core/errors.js';
import { HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import type { Resolution } from '../src/model/resolution.js';
import { auditPartitions } from '../src/storage/partition-audit.js';
import { repairPartitions, type RepairOptions } from '../src/storage/partition-repair.js';
import { partitionPath } from '../src/storage/partition-set.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';
import { dayQuery, damagePartition, FULL_PARTITION_MS, seedPoints, snapshot } from './store-damage-fixtures.js';

const DAY0 = T_NOON - 12 * HOUR_MS;
const LATE = DAY0 + FULL_PARTITION_MS;
const REPAIR: RepairOptions = { acceptLoss: false, nowMs: T_NOON, durability: 'normal' };

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

async function seeded(): Promise<TestStore> {
  const store = await openTestStore();
  await store.store.write(seedPoints(DAY0));
  await store.store.flush();
  return store;
}

/** The raw chunk rows of a partition file, by key. */
function chunksOf(dataDir: string, res: Resolution, startMs: number): Map<number, Buffer> {
  const db = new Database(partitionPath(dataDir, res, startMs), { readonly: true });
  try {
    return new Map((db.prepare('SELECT key, data FROM chunk').all() as { key: number; data: Buffer }[]).map((r) => [r.key, r.data]));
  } finally {
    db.close();
  }
}

/** Audits and repairs with the store closed; returns the audit before, the actions and the audit after. */
async function repairClosed(store: TestStore, options: RepairOptions = REPAIR) {
  await store.store.close();
  const found = auditPartitions(store.dir);
  const actions = repairPartitions(store.dir, found, options);
  const after = auditPartitions(store.dir);
  return { found, actions, after };
}

/** Closes the store (its files checkpointed) and returns its directory. */
async function closed(store: TestStore): Promise<string> {
  await store.store.close();
  return store.dir;
}

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('repairing a rollup partition', () => {
  it.each([
    ['found by the audit alone', false],
    ['recorded damaged by a store first', true],
  ])('MIN5 truncated to 0 bytes (%s): put aside, rebuilt from FULL by the rollup machinery, bit for bit', async (_label, storeFirst) => {
    t = await seeded();
    const original = await snapshot(t.store, DAY0);
    await t.reopen();
    await t.store.close();
    const originalChunks = chunksOf(t.dir, 'MIN5', DAY0);
    damagePartition(t.dir, 'MIN5', DAY0, 'empty');
    if (storeFirst) {
      await t.reopen();
      expect(t.store.health?.().status).toBe('degraded');
    }
    const { found, actions, after } = await repairClosed(t);
    expect(found).toEqual([expect.objectContaining({ kind: storeFirst ? 'partition-marked' : 'partition-damaged', resolution: 'MIN5', partitionStartMs: DAY0, reason: 'empty' })]);
    expect(actions).toEqual([expect.objectContaining({ kind: 'rebuilding', resolution: 'MIN5', partitionStartMs: DAY0, quarantinedTo: expect.stringMatching(/^quarantine\/\d+\/partitions\/MIN5\/\d+\.sqlite$/) })]);
    expect(after).toEqual([]);
    const quarantined = join(t.dir, actions[0]?.quarantinedTo as string);
    expect(statSync(quarantined).size).toBe(0);
    expect(modeOf(quarantined)).toBe('600');
    expect(existsSync(partitionPath(t.dir, 'MIN5', DAY0))).toBe(false);
    // Before the rebuild the store computes MIN5 live from FULL (the windows are due); after it, from the new file.
    await t.reopen();
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
    expect(await snapshot(t.store, DAY0)).toEqual(original);
    await t.store.flush();
    expect(await snapshot(t.store, DAY0)).toEqual(original);
    await t.store.close();
    expect(chunksOf(t.dir, 'MIN5', DAY0)).toEqual(originalChunks);
    await t.reopen();
  });
});

describe('repairing a FULL partition', () => {
  it('restores it from the WAL when the log still holds every record sealed into it', async () => {
    t = await seeded();
    const original = await snapshot(t.store, DAY0);
    // A point of a later window keeps its record live, so the log segment (which also holds the seed) survives the close.
    await t.store.write([{ tenant: 't1', metric: 'other', timestamp: T_NOON + MINUTE_MS, value: 1 }]);
    await t.store.close();
    damagePartition(t.dir, 'FULL', LATE, 'delete');
    const { found, actions, after } = await repairClosed(t);
    expect(found).toEqual([expect.objectContaining({ kind: 'partition-damaged', resolution: 'FULL', partitionStartMs: LATE, reason: 'missing' })]);
    expect(actions).toEqual([expect.objectContaining({ kind: 'restoring', resolution: 'FULL', partitionStartMs: LATE })]);
    expect(actions[0]).not.toHaveProperty('quarantinedTo');
    expect(after).toEqual([]);
    await t.reopen();
    // Replayed into the head: the answers are whole again even before the seal.
    expect(t.store.stats().headPoints).toBe(1 + 2 * 5 * 60);
    expect(await snapshot(t.store, DAY0)).toEqual(original);
    await t.store.flush();
    expect(t.store.stats().headPoints).toBe(0);
    expect(await snapshot(t.store, DAY0)).toEqual(original);
    expect(existsSync(partitionPath(t.dir, 'FULL', LATE))).toBe(true);
  });

  it('puts a garbage-headed file aside and restores it the same way, merging nothing from it', async () => {
    t = await seeded();
    const original = await snapshot(t.store, DAY0);
    await t.store.write([{ tenant: 't1', metric: 'other', timestamp: T_NOON + MINUTE_MS, value: 1 }]);
    await t.reopen();
    await t.store.close();
    damagePartition(t.dir, 'FULL', LATE, 'garbage');
    const { actions } = await repairClosed(t);
    expect(actions).toEqual([expect.objectContaining({ kind: 'restoring', quarantinedTo: expect.stringContaining(`FULL/${LATE}.sqlite`) })]);
    expect(readFileSync(join(t.dir, actions[0]?.quarantinedTo as string)).subarray(0, 4)).toEqual(Buffer.alloc(4, 0xa5));
    await t.reopen();
    await t.store.flush();
    expect(await snapshot(t.store, DAY0)).toEqual(original);
  });

  it('records it lost when the log no longer holds its records: queries keep failing until the loss is accepted', async () => {
    t = await seeded();
    const original = await snapshot(t.store, DAY0);
    damagePartition(await closed(t), 'FULL', LATE, 'half');
    const { actions, after } = await repairClosed(t);
    expect(actions).toEqual([expect.objectContaining({ kind: 'lost', resolution: 'FULL', partitionStartMs: LATE, quarantinedTo: expect.any(String) })]);
    expect(after).toEqual([expect.objectContaining({ kind: 'partition-marked', resolution: 'FULL', partitionStartMs: LATE, reason: 'lost' })]);
    await t.reopen();
    const error = await t.store.query(dayQuery(DAY0, 'cpu', 'FULL', LATE, LATE + 2 * HOUR_MS)).catch((e: unknown) => e as StrataError);
    expect(error).toMatchObject({ code: 'STORE_PARTITION_DAMAGED', details: { resolution: 'FULL', partitionStartMs: LATE, reason: 'lost' } });
    expect((error as StrataError).message).toContain('--accept-loss');
    expect(t.store.health?.()).toMatchObject({ status: 'degraded', reasons: [{ details: { reason: 'lost' } }] });
    // The rollups of that range were computed before the damage and still answer.
    expect((await t.store.query(dayQuery(DAY0, 'cpu', 'MIN5'))).values).toEqual(original['cpu:MIN5']);
    const accepted = await repairClosed(t, { ...REPAIR, acceptLoss: true });
    expect(accepted.actions).toEqual([expect.objectContaining({ kind: 'loss-accepted', resolution: 'FULL', partitionStartMs: LATE })]);
    expect(accepted.after).toEqual([]);
    await t.reopen();
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
    expect((await t.store.query(dayQuery(DAY0, 'cpu', 'FULL', LATE, LATE + 2 * HOUR_MS))).values).toEqual([]);
    expect((await t.store.query(dayQuery(DAY0, 'cpu', 'MIN5'))).values).toEqual(original['cpu:MIN5']);
  });

  it('keeps a sound file that lost chunks, restoring the missing ones from the WAL over it', async () => {
    t = await seeded();
    const original = await snapshot(t.store, DAY0);
    await t.store.write([{ tenant: 't1', metric: 'other', timestamp: T_NOON + MINUTE_MS, value: 1 }]);
    await t.store.close();
    damagePartition(t.dir, 'FULL', LATE, 'drop-chunk');
    const { found, actions } = await repairClosed(t);
    expect(found).toEqual([expect.objectContaining({ reason: 'chunks' })]);
    expect(actions).toEqual([expect.objectContaining({ kind: 'restoring' })]);
    expect(actions[0]).not.toHaveProperty('quarantinedTo');
    await t.reopen();
    await t.store.flush();
    expect(await snapshot(t.store, DAY0)).toEqual(original);
  });
});

describe('repairs that depend on each other', () => {
  it('a MIN5 partition whose FULL source is lost is lost too; accepting both rebuilds what the sources still hold', async () => {
    t = await seeded();
    await t.store.close();
    damagePartition(t.dir, 'FULL', LATE, 'delete');
    damagePartition(t.dir, 'MIN5', DAY0, 'garbage');
    const { actions, after } = await repairClosed(t);
    expect(actions.map((a) => [a.kind, a.resolution])).toEqual([
      ['lost', 'FULL'],
      ['lost', 'MIN5'],
    ]);
    expect(actions[1]?.message).toContain('is lost');
    expect(after.map((f) => [f.kind, f.resolution, f.reason])).toEqual([
      ['partition-marked', 'FULL', 'lost'],
      ['partition-marked', 'MIN5', 'lost'],
    ]);
    const accepted = await repairClosed(t, { ...REPAIR, acceptLoss: true });
    expect(accepted.actions.map((a) => a.kind)).toEqual(['loss-accepted', 'loss-accepted']);
    await t.reopen();
    await t.store.flush();
    // Rebuilt from the early FULL partition only: buckets from 02:00 to 06:00.
    const min5 = await t.store.query(dayQuery(DAY0, 'cpu', 'MIN5'));
    expect(min5.values.length).toBe(4 * 12);
    expect(min5.values[0]?.timestamp).toBe(DAY0 + 2 * HOUR_MS);
  });
});
