// Owns the tests of `strata check` on the write-ahead log: corrupt spans are listed (exit 1) without changing anything; --repair rewrites the damaged segment and keeps a copy (still listed); --repair --accept-loss moves the copy under quarantine/ (exit 0), and a store opened afterwards is healthy with every intact point.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/core/time.js';
import { openStore } from '../../src/store.js';
import { requireBuiltCli, runCli, tempDir } from './cli-run.js';

const BATCHES = 10;
let dir: string;
let segment: string;

beforeAll(async () => {
  requireBuiltCli();
  dir = join(tempDir('check-wal'), 'data');
  const store = await openStore({ dir, background: false, workers: 0 });
  // Recent points stay in the head and the log (nothing is sealed before close).
  const base = Date.now() - 30 * MINUTE_MS;
  for (let b = 0; b < BATCHES; b++) {
    await store.write(Array.from({ length: 20 }, (_, i) => ({ tenant: 't1', metric: 'cpu', timestamp: base + (b * 20 + i) * 1000, value: b })));
  }
  await store.close();
  const names = readdirSync(join(dir, 'wal')).filter((n) => n.endsWith('.log'));
  expect(names).toHaveLength(1);
  segment = join(dir, 'wal', names[0] as string);
  const at = Math.floor(statSync(segment).size / 2);
  const fd = openSync(segment, 'r+');
  writeSync(fd, Buffer.from([(readFileSync(segment)[at] as number) ^ 0xff]), 0, 1, at);
  closeSync(fd);
}, 60_000);
afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

async function check(...args: string[]): Promise<{ status: number | null; report: any }> {
  const run = await runCli(['check', '--data', dir, '--json', ...args]);
  return { status: run.status, report: JSON.parse(run.stdout) };
}

describe('strata check and the write-ahead log', () => {
  it('lists the corrupt span and changes nothing', async () => {
    const before = readFileSync(segment);
    const { status, report } = await check();
    expect(status).toBe(1);
    const wal = report.findings.filter((f: { kind: string }) => f.kind === 'wal');
    expect(wal).toHaveLength(1);
    expect(wal[0].path).toBe(`wal/${segment.split('/').pop()}`);
    expect(wal[0].message).toMatch(/corrupt span at bytes \d+ to \d+/);
    expect(readFileSync(segment).equals(before)).toBe(true);
    expect(existsSync(join(dir, 'wal', 'damaged'))).toBe(false);
  });

  it('--repair rewrites the segment and keeps a copy, which stays listed until the loss is accepted', async () => {
    const { status, report } = await check('--repair');
    expect(report.walRepair).toEqual({ spansRemoved: 1, copiesMoved: 0 });
    expect(status).toBe(1);
    expect(report.remaining.map((f: { path: string }) => f.path)).toEqual(['wal/damaged']);
    expect(readdirSync(join(dir, 'wal', 'damaged'))).toHaveLength(1);
  });

  it('--repair --accept-loss moves the copy under quarantine/ and exits 0; the store then opens healthy with the intact points', async () => {
    const { status, report } = await check('--repair', '--accept-loss');
    expect(report.walRepair).toEqual({ spansRemoved: 0, copiesMoved: 1 });
    expect(status).toBe(0);
    expect(readdirSync(join(dir, 'wal', 'damaged'))).toHaveLength(0);
    const quarantined = readdirSync(join(dir, 'quarantine'));
    expect(quarantined).toHaveLength(1);
    expect(readdirSync(join(dir, 'quarantine', quarantined[0] as string, 'wal'))).toHaveLength(1);
    expect((await check()).status).toBe(0);

    const store = await openStore({ dir, background: false, workers: 0 });
    try {
      expect(store.health?.().status).toBe('ok');
      const { values } = await store.query({ tenant: 't1', metric: 'cpu', from: Date.now() - 60 * MINUTE_MS, to: Date.now() + MINUTE_MS, resolution: 'FULL' });
      // One batch of twenty held the flipped byte; the other nine are whole.
      expect(values).toHaveLength((BATCHES - 1) * 20);
    } finally {
      await store.close();
    }
  });
});
