// Tests a write-ahead log that cannot be written: a write fails whole with STORE_NOT_DURABLE (503) and leaves nothing in the head, health is unavailable until an append (or a probe of the directory) succeeds again. Works as root too: the log directory is replaced by a regular file, which no permission lets anyone create files in.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StrataError } from '../src/core/errors.js';
import { MAINTENANCE_INTERVAL_MS, WAL_PROBE_INTERVAL_MS } from '../src/core/limits.js';
import { MINUTE_MS } from '../src/core/time.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

let t: TestStore | undefined;
afterEach(async () => {
  if (t !== undefined) {
    // Whatever a test did to the log directory, give it back so the store can close.
    if (existsSync(join(t.dir, 'wal.aside'))) fixLog(t.dir);
    mkdirSync(join(t.dir, 'wal'), { recursive: true, mode: 0o700 });
    await t.cleanup();
  }
  t = undefined;
  vi.useRealTimers();
});

const point = (minute: number, value = minute) => ({ tenant: 't1', metric: 'cpu', timestamp: T_NOON - 60 * MINUTE_MS + minute * MINUTE_MS, value });
const range = { tenant: 't1', metric: 'cpu', from: T_NOON - 60 * MINUTE_MS, to: T_NOON, resolution: 'FULL' };

/** Makes every append fail, root or not: the log directory moves aside and a regular file takes its place (ENOTDIR). */
function breakLog(dir: string): void {
  renameSync(join(dir, 'wal'), join(dir, 'wal.aside'));
  writeFileSync(join(dir, 'wal'), 'not a directory');
}

/** Puts the log directory back, with the segments it held. */
function fixLog(dir: string): void {
  rmSync(join(dir, 'wal'), { force: true });
  renameSync(join(dir, 'wal.aside'), join(dir, 'wal'));
}

async function writeFailure(store: TestStore['store'], points: Parameters<TestStore['store']['write']>[0]): Promise<StrataError> {
  try {
    await store.write(points);
  } catch (error) {
    return error as StrataError;
  }
  throw new Error('the write was accepted; it should have failed');
}


describe('a write-ahead log that cannot be written', () => {
  it('refuses the batch whole with STORE_NOT_DURABLE, applies nothing, and reports unavailable until an append succeeds', async () => {
    t = await openTestStore();
    await t.store.write([point(1)]);
    await t.reopen();
    breakLog(t.dir);
    const error = await writeFailure(t.store, [point(2), point(3)]);
    expect(error.code).toBe('STORE_NOT_DURABLE');
    expect(error.kind).toBe('unavailable');
    expect(error.details).toMatchObject({ errno: 'ENOTDIR' });
    expect(t.store.stats()).toMatchObject({ headPoints: 1, durable: false, pointsAccepted: 0 });
    expect((await t.store.query(range)).values.map((v) => v.timestamp)).toEqual([point(1).timestamp]);
    const health = t.store.health?.();
    expect(health?.status).toBe('unavailable');
    expect(health?.reasons).toEqual([{ code: 'STORE_NOT_DURABLE', message: expect.stringContaining('ENOTDIR'), details: expect.objectContaining({ errno: 'ENOTDIR', sinceMs: T_NOON, cause: expect.stringContaining("'wal/") }) }]);
    // /healthz answers without a token: no path on the server shows.
    expect(JSON.stringify(health)).not.toContain(t.dir);
    // A second failure changes nothing; a success after the fix clears it.
    expect((await writeFailure(t.store, [point(4)])).code).toBe('STORE_NOT_DURABLE');
    fixLog(t.dir);
    expect(await t.store.write([point(5)])).toEqual({ accepted: 1, rejected: [] });
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
    expect(t.store.stats().durable).toBe(true);
    // The refused points were never acknowledged and never come back; the accepted ones survive a restart.
    await t.reopen();
    expect((await t.store.query(range)).values.map((v) => v.timestamp)).toEqual([point(1).timestamp, point(5).timestamp]);
  });

  it('recovers without a write: the maintenance loop probes the directory and clears the failure once it takes writes', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await openTestStore({ background: true });
    // The first tick probes a healthy directory: nothing to report.
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    expect(t.store.health?.().status).toBe('ok');
    breakLog(t.dir);
    expect((await writeFailure(t.store, [point(1)])).code).toBe('STORE_NOT_DURABLE');
    t.clock.advance(MAINTENANCE_INTERVAL_MS);
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    expect(t.store.health?.().status).toBe('unavailable');
    fixLog(t.dir);
    t.clock.advance(MAINTENANCE_INTERVAL_MS);
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    expect(t.store.health?.()).toEqual({ status: 'ok', reasons: [] });
  });

  it('notices a directory that went bad while the store was idle, at the next periodic probe', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await openTestStore({ background: true });
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    breakLog(t.dir);
    t.clock.advance(WAL_PROBE_INTERVAL_MS - 1);
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    expect(t.store.health?.().status).toBe('ok');
    t.clock.advance(1);
    vi.advanceTimersByTime(MAINTENANCE_INTERVAL_MS);
    expect(t.store.health?.()).toMatchObject({ status: 'unavailable', reasons: [{ code: 'STORE_NOT_DURABLE', details: { errno: 'ENOTDIR' } }] });
  });
});
