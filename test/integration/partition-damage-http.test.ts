// Tests damaged partitions and an unwritable write-ahead log through a real server over real HTTP: the plot that needs a damaged file answers 503 STORE_PARTITION_DAMAGED in the metrics error shape naming the range (never an empty 200), /healthz says degraded; failed log appends answer 503 STORE_NOT_DURABLE in the ingest shape and /healthz 503 until an append succeeds.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import type { Resolution } from '../../src/model/resolution.js';
import { openStore } from '../../src/store.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { damagePartition, FULL_PARTITION_MS, seedPoints, type Damage } from '../store-damage-fixtures.js';
import { T_NOON } from '../store-harness.js';

const DAY0 = T_NOON - 12 * HOUR_MS;
const LATE = DAY0 + FULL_PARTITION_MS;

let h: Harness | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** A data directory holding the seed, sealed and rolled up, closed; then damaged as asked. */
async function damagedDir(res: Resolution, startMs: number, how: Damage): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-damage-http-'));
  const store = await openStore({ dir, clock: new ManualClock(T_NOON), background: false, workers: 0 });
  await store.write(seedPoints(DAY0));
  await store.flush();
  await store.close();
  damagePartition(dir, res, startMs, how);
  return dir;
}

/** A server on `dir` (a real store there) with the harness users. */
async function serve(dir: string): Promise<Harness> {
  const clock = new ManualClock(T_NOON);
  return startHarness({ clock, makeStore: () => openStore({ dir, clock, workers: 0, background: false }) });
}

const plot = (from: number, to: number, resolution: string) => `/metrics/v2.0/t1/views/cpu?from=${from}&to=${to}&resolution=${resolution}`;

describe('a damaged partition over HTTP', () => {
  it.each<[Resolution, number, Damage, string, string, number]>([
    ['FULL', LATE, 'delete', 'missing', 'FULL', 2 * HOUR_MS],
    ['FULL', LATE, 'half', 'truncated', 'FULL', 2 * HOUR_MS],
    ['FULL', LATE, 'garbage', 'header', 'FULL', 2 * HOUR_MS],
    ['MIN5', DAY0, 'empty', 'empty', 'MIN5', DAY_MS],
  ])('%s %s (%s): the plot that needs it is a 503 naming the range; /healthz is 200 degraded', async (res, startMs, how, reason, resolution, span) => {
    dataDir = await damagedDir(res, startMs, how);
    h = await serve(dataDir);
    const token = await h.token('alice');
    const from = res === 'FULL' ? LATE + HOUR_MS : DAY0;
    const failed = await call(h, 'GET', plot(from, from + span, resolution), { token });
    expect(failed.status).toBe(503);
    const partitionEndMs = startMs + (res === 'FULL' ? FULL_PARTITION_MS : DAY_MS);
    expect(failed.json).toEqual({
      type: 'systemFailureError',
      code: 503,
      message: expect.stringContaining(`${new Date(startMs).toISOString()}, ${new Date(partitionEndMs).toISOString()})`),
      details: { code: 'STORE_PARTITION_DAMAGED', resolution: res, partitionStartMs: startMs, partitionEndMs, reason, detail: expect.any(String) },
      txnId: expect.any(String),
    });
    // What does not need it answers as before.
    const fine = await call(h, 'GET', plot(DAY0 + 2 * HOUR_MS, DAY0 + 4 * HOUR_MS, 'FULL'), { token });
    expect(fine.status).toBe(200);
    expect(fine.json.values).toHaveLength(120);
    const health = await call(h, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({
      status: 'degraded',
      reasons: [{ code: 'STORE_PARTITION_DAMAGED', message: expect.any(String), details: expect.objectContaining({ resolution: res, partitionStartMs: startMs, partitionEndMs, reason }) }],
    });
    expect((await call(h, 'GET', '/metrics')).text).toMatch(/^strata_store_damaged_partitions 1$/m);
  });
});

describe('an unwritable write-ahead log over HTTP', () => {
  it('answers ingest 503 STORE_NOT_DURABLE in the ingest shape, /healthz 503 unavailable, and recovers after a successful append', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-wal-http-'));
    h = await serve(dataDir);
    const token = await h.token('alice');
    const metric = (minute: number) => ({ metricName: 'cpu', metricValue: minute, collectionTime: T_NOON - HOUR_MS + minute * MINUTE_MS, ttlInSeconds: 86_400 });
    // Root or not: the log directory moves aside and a regular file takes its place. (Before the
    // first append: an append goes to a segment opened earlier, which a rename does not close.)
    renameSync(join(dataDir, 'wal'), join(dataDir, 'wal.aside'));
    writeFileSync(join(dataDir, 'wal'), 'not a directory');
    const refused = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: [metric(2), metric(3)] });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toMatchObject({ type: 'systemFailureError', code: 503, details: { code: 'STORE_NOT_DURABLE', errno: 'ENOTDIR' } });
    expect(refused.json.errors).toEqual([{ index: null, tenantId: 't1', metricName: '', source: null, message: refused.json.message, code: 'STORE_NOT_DURABLE' }]);
    const health = await call(h, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.json).toEqual({ status: 'unavailable', reasons: [{ code: 'STORE_NOT_DURABLE', message: expect.stringContaining('ENOTDIR'), details: expect.objectContaining({ errno: 'ENOTDIR' }) }] });
    expect((await call(h, 'GET', '/metrics')).text).toMatch(/^strata_store_durable 0$/m);
    // Nothing of the refused batch is served.
    expect((await call(h, 'GET', plot(T_NOON - HOUR_MS, T_NOON, 'FULL'), { token })).json.values).toEqual([]);
    rmSync(join(dataDir, 'wal'));
    renameSync(join(dataDir, 'wal.aside'), join(dataDir, 'wal'));
    expect((await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: [metric(4)] })).status).toBe(200);
    expect(await call(h, 'GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    const values = await call(h, 'GET', plot(T_NOON - HOUR_MS, T_NOON, 'FULL'), { token });
    expect(values.json.values.map((v: { timestamp: number }) => v.timestamp)).toEqual([T_NOON - HOUR_MS + 4 * MINUTE_MS]);
  });
});
