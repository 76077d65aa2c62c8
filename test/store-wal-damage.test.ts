// Tests a store opened over a damaged write-ahead log: every intact record is replayed, the loss is logged at error level, counted in stats, kept aside in wal/damaged/ and reported by health until the copies are moved away.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../src/core/time.js';
import type { StoreLogger } from '../src/store-types.js';
import { openTestStore, T_NOON, type TestStore } from './store-harness.js';

const BATCHES = 20;
const POINTS_PER_BATCH = 30;

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** A logger that keeps what it was given. */
function recordingLogger(): StoreLogger & { lines: { level: string; obj: object; msg?: string }[] } {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const keep = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, ...(msg === undefined ? {} : { msg }) });
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** Batch b holds minutes [b * POINTS_PER_BATCH, ...) of the hour before noon, values naming the batch. */
function batch(b: number) {
  return Array.from({ length: POINTS_PER_BATCH }, (_, i) => ({
    tenant: 't1',
    metric: `m${i % 3}`,
    timestamp: T_NOON - 2 * 60 * MINUTE_MS + (b * POINTS_PER_BATCH + i) * 1000,
    value: b,
  }));
}

function segmentPath(dir: string): string {
  const names = readdirSync(join(dir, 'wal')).filter((n) => n.endsWith('.log'));
  expect(names).toHaveLength(1);
  return join(dir, 'wal', names[0] as string);
}

function flipByte(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  const byte = readFileSync(path)[at] as number;
  writeSync(fd, Buffer.from([byte ^ 0x40]), 0, 1, at);
  closeSync(fd);
}

async function valuesOf(t: TestStore): Promise<number[]> {
  const all: number[] = [];
  for (const metric of ['m0', 'm1', 'm2']) {
    const result = await t.store.query({ tenant: 't1', metric, from: T_NOON - 3 * 60 * MINUTE_MS, to: T_NOON, resolution: 'FULL' });
    for (const v of result.values) all.push(v.average as number);
  }
  return all;
}

describe('a store over a damaged write-ahead log', () => {
  it('replays every intact record around a flipped byte, logs the loss, counts it, and reports degraded until the copy is moved away', async () => {
    t = await openTestStore();
    for (let b = 0; b < BATCHES; b++) await t.store.write(batch(b));
    await t.store.close();
    const segment = segmentPath(t.dir);
    flipByte(segment, Math.floor(statSync(segment).size / 4));

    const logger = recordingLogger();
    await t.reopen({ logger });
    const values = await valuesOf(t);
    // Exactly one batch is lost: the one whose record held the flipped byte; every other is whole.
    const perBatch = new Map<number, number>();
    for (const v of values) perBatch.set(v, (perBatch.get(v) ?? 0) + 1);
    const lost = [...Array(BATCHES).keys()].filter((b) => !perBatch.has(b));
    expect(lost).toHaveLength(1);
    for (const [b, count] of perBatch) expect(count, `batch ${b}`).toBe(POINTS_PER_BATCH);
    expect(lost[0]).toBeGreaterThan(0);
    expect(lost[0]).toBeLessThan(BATCHES - 1);

    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ corruptSpans: 1 });
    const stats = t.store.stats();
    expect(stats.walCorruptSpans).toBe(1);
    expect(stats.walCorruptBytes).toBeGreaterThan(0);
    expect(stats.walDamagedCopies).toBe(1);
    const health = t.store.health?.();
    expect(health?.status).toBe('degraded');
    expect(health?.reasons.map((r) => r.code)).toEqual(['STORE_WAL_DAMAGED']);

    // The segment was rewritten: the next open finds nothing new, but the copy still says degraded.
    const quiet = recordingLogger();
    await t.reopen({ logger: quiet });
    expect(quiet.lines.filter((l) => l.level === 'error')).toHaveLength(0);
    expect(t.store.stats().walCorruptSpans).toBe(0);
    expect(await valuesOf(t)).toHaveLength(values.length);
    expect(t.store.health?.().status).toBe('degraded');

    // Moving the copies away (what `strata check --repair --accept-loss` does) acknowledges the loss.
    const damaged = join(t.dir, 'wal', 'damaged');
    mkdirSync(join(t.dir, 'inspected'));
    for (const name of readdirSync(damaged)) renameSync(join(damaged, name), join(t.dir, 'inspected', name));
    expect(t.store.health?.().status).toBe('ok');
    expect(t.store.stats().walDamagedCopies).toBe(0);
  });

  it('a torn tail alone is cut with an info line: nothing is reported as lost', async () => {
    t = await openTestStore();
    for (let b = 0; b < 3; b++) await t.store.write(batch(b));
    await t.store.close();
    const segment = segmentPath(t.dir);
    const size = statSync(segment).size;
    // A crash mid-append leaves the start of a record: here the last record cut in half.
    truncateSync(segment, size - 200);
    const logger = recordingLogger();
    await t.reopen({ logger });
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(0);
    expect(logger.lines.some((l) => l.level === 'info' && /torn/.test(l.msg ?? ''))).toBe(true);
    expect(t.store.stats().walCorruptSpans).toBe(0);
    expect(t.store.health?.().status).toBe('ok');
    expect(await valuesOf(t)).toHaveLength(2 * POINTS_PER_BATCH);
  });
});
