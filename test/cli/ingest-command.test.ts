// Owns the tests of `strata ingest`: JSON lines, JSON arrays, Blueflood arrays and msgpack, the summary, then querying the data back.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requireBuiltCli, runCli, tempDir } from './cli-run.js';

const MIN5 = 5 * 60_000;
/** Ten minutes on 5-minute boundaries, six hours ago: inside FULL's 2-day retention. */
const BASE = Math.floor((Date.now() - 6 * 3_600_000) / (2 * MIN5)) * 2 * MIN5;
/** Twenty points 30 s apart: two MIN5 buckets of ten points each. */
const TIMES = Array.from({ length: 20 }, (_, i) => BASE + i * 30_000);

let dir: string;
let data: string;

beforeAll(requireBuiltCli);
beforeEach(() => {
  dir = tempDir('ingest');
  data = join(dir, 'data');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface QueryJson {
  resolution: string;
  unit: string | null;
  values: { timestamp: number; numPoints: number; average?: number | null; min?: number | null; max?: number | null; value?: string }[];
}

async function query(tenant: string, metric: string, resolution: string, extra: readonly string[] = []): Promise<QueryJson> {
  const run = await runCli(['query', '--data', data, '--tenant', tenant, '--metric', metric, '--from', String(BASE), '--to', String(BASE + 2 * MIN5), '--resolution', resolution, ...extra]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as QueryJson;
}

/** The summary's first line and its reason lines by code. */
function summaryOf(stdout: string): { line: string; reasons: Map<string, string> } {
  const [line = '', ...rest] = stdout.trimEnd().split('\n');
  const reasons = new Map<string, string>();
  for (const r of rest) {
    const m = /^ {2}([A-Z_]+) x(\d+): (.*)$/.exec(r);
    expect(m, `reason line ${JSON.stringify(r)}`).not.toBeNull();
    reasons.set(m![1] as string, `x${m![2]}: ${m![3]}`);
  }
  return { line, reasons };
}

/** FULL values of a metric written with value i at TIMES[i]. */
function expectFullValues(result: QueryJson, value: (i: number) => number): void {
  expect(result.resolution).toBe('FULL');
  expect(result.values.map((v) => [v.timestamp, v.numPoints, v.average])).toEqual(TIMES.map((t, i) => [t, 1, value(i)]));
}

/** MIN5 buckets of a metric written with value i at TIMES[i]: two buckets of ten. */
function expectMin5Values(result: QueryJson, value: (i: number) => number): void {
  const mean = (from: number): number => Array.from({ length: 10 }, (_, i) => value(from + i)).reduce((a, b) => a + b, 0) / 10;
  expect(result.resolution).toBe('MIN5');
  expect(result.values).toHaveLength(2);
  expect(result.values.map((v) => [v.timestamp, v.numPoints])).toEqual([
    [BASE, 10],
    [BASE + MIN5, 10],
  ]);
  expect(result.values[0]?.average).toBeCloseTo(mean(0), 9);
  expect(result.values[1]?.average).toBeCloseTo(mean(10), 9);
}

describe('strata ingest', () => {
  it('loads JSON lines, skipping unreadable lines and bad points with reasons', async () => {
    const lines = TIMES.map((t, i) => JSON.stringify({ tenant: 't1', metric: 'cpu.user', timestamp: t, value: i }));
    lines.splice(3, 0, 'this is not JSON');
    lines.splice(7, 0, '');
    lines.push(JSON.stringify({ tenant: 't1', metric: '', timestamp: BASE, value: 1 }));
    lines.push(JSON.stringify({ tenant: 't1', metric: 'cpu.user', timestamp: Math.floor(BASE / 1000), value: 1 }));
    lines.push(JSON.stringify({ tenant: 't1', metric: 'cpu.user', timestamp: BASE, value: 's'.repeat(2000) }));
    const file = join(dir, 'points.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await runCli(['ingest', '--data', data, file]);
    expect(run.status).toBe(0);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 20 points, rejected 4');
    expect(reasons.get('UNREADABLE')).toMatch(/^x1: not JSON: this is not JSON/);
    expect(reasons.get('INGEST_METRIC_NAME_EMPTY')).toMatch(/^x1: /);
    expect(reasons.get('INGEST_TIMESTAMP_TOO_OLD')).toMatch(/^x1: .*looks like seconds/);
    expect(reasons.get('INGEST_VALUE_INVALID')).toMatch(/^x1: /);
    expectFullValues(await query('t1', 'cpu.user', 'FULL'), (i) => i);
    expectMin5Values(await query('t1', 'cpu.user', 'MIN5'), (i) => i);
  });

  it('loads a JSON array of points', async () => {
    const file = join(dir, 'points.json');
    const points: unknown[] = TIMES.map((t, i) => ({ tenant: 't2', metric: 'mem.used', timestamp: t, value: i * 1.5, unit: 'bytes' }));
    points.push({ tenant: 't2', metric: 'mem.used', timestamp: BASE, value: 'x', unit: 42 }, 17);
    writeFileSync(file, JSON.stringify(points, null, 1));
    const run = await runCli(['ingest', '--data', data, file]);
    expect(run.status).toBe(0);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 20 points, rejected 2');
    expect([...reasons.keys()].sort()).toEqual(['INGEST_UNIT_INVALID', 'UNREADABLE']);
    const full = await query('t2', 'mem.used', 'FULL');
    expect(full.unit).toBe('bytes');
    expectFullValues(full, (i) => i * 1.5);
    expectMin5Values(await query('t2', 'mem.used', 'MIN5'), (i) => i * 1.5);
  });

  it('loads a Blueflood JSON array with --tenant', async () => {
    const file = join(dir, 'blueflood.json');
    const metrics = TIMES.map((t, i) => ({ metricName: 'net.rx', metricValue: 100 - i, collectionTime: t, ttlInSeconds: 172_800, unit: 'packets' }));
    metrics.push({ metricName: 'net.rx', metricValue: 1, collectionTime: Date.now() + 3_600_000, ttlInSeconds: 1, unit: 'packets' });
    writeFileSync(file, JSON.stringify(metrics));
    const run = await runCli(['ingest', '--data', data, '--tenant', '9001', file]);
    expect(run.status).toBe(0);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 20 points, rejected 1');
    expect(reasons.get('INGEST_TIMESTAMP_IN_FUTURE')).toMatch(/^x1: /);
    const full = await query('9001', 'net.rx', 'FULL');
    expect(full.unit).toBe('packets');
    expectFullValues(full, (i) => 100 - i);
    expectMin5Values(await query('9001', 'net.rx', 'MIN5'), (i) => 100 - i);
  });

  it('refuses a Blueflood array without a tenant, exiting 2 when nothing was accepted', async () => {
    const file = join(dir, 'blueflood.json');
    writeFileSync(file, JSON.stringify(TIMES.slice(0, 3).map((t) => ({ metricName: 'net.rx', metricValue: 1, collectionTime: t }))));
    const run = await runCli(['ingest', '--data', data, file]);
    expect(run.status).toBe(2);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 0 points, rejected 3');
    expect(reasons.get('UNREADABLE')).toMatch(/^x3: .*--tenant/);
  });

  it('loads msgpack, rejecting non-finite values and bad timestamps', async () => {
    const file = join(dir, 'points.msgpack');
    const points: unknown[] = TIMES.map((t, i) => ({ tenant: 't3', metric: 'disk.io', timestamp: t, value: i % 2 === 0 ? i : -i }));
    points.push(
      { tenant: 't3', metric: 'disk.io', timestamp: BASE, value: NaN },
      { tenant: 't3', metric: 'disk.io', timestamp: BASE + 1, value: Infinity },
      { tenant: 't3', metric: 'disk.io', timestamp: BASE + 0.5, value: 1 },
      { tenant: 't3', metric: 'disk.io', timestamp: 1_000, value: 1 },
      { tenant: 'no spaces allowed', metric: 'disk.io', timestamp: BASE, value: 1 },
    );
    writeFileSync(file, pack(points));
    const run = await runCli(['ingest', '--data', data, file]);
    expect(run.status).toBe(0);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 20 points, rejected 5');
    expect(reasons.get('INGEST_VALUE_NOT_FINITE')).toMatch(/^x2: /);
    expect(reasons.get('INGEST_TIMESTAMP_INVALID')).toMatch(/^x1: /);
    expect(reasons.get('INGEST_TIMESTAMP_TOO_OLD')).toMatch(/^x1: /);
    expect(reasons.get('INGEST_TENANT_INVALID')).toMatch(/^x1: /);
    expectFullValues(await query('t3', 'disk.io', 'FULL'), (i) => (i % 2 === 0 ? i : -i));
    expectMin5Values(await query('t3', 'disk.io', 'MIN5'), (i) => (i % 2 === 0 ? i : -i));
  });

  it('loads several files of different formats in one run, and again into the same directory', async () => {
    const jsonl = join(dir, 'a.ndjson');
    writeFileSync(jsonl, TIMES.slice(0, 10).map((t, i) => JSON.stringify({ tenant: 't4', metric: 'q', timestamp: t, value: i })).join('\n'));
    const mp = join(dir, 'b.bin');
    writeFileSync(mp, pack(TIMES.slice(10).map((t, i) => ({ tenant: 't4', metric: 'q', timestamp: t, value: i + 10 }))));
    const first = await runCli(['ingest', '--data', data, jsonl, mp]);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('accepted 20 points, rejected 0\n');
    expectFullValues(await query('t4', 'q', 'FULL'), (i) => i);
    // Overwrite two points (last write wins) in a second run.
    const again = join(dir, 'c.jsonl');
    writeFileSync(again, [0, 19].map((i) => JSON.stringify({ tenant: 't4', metric: 'q', timestamp: TIMES[i], value: 1000 + i })).join('\n'));
    const second = await runCli(['ingest', '--data', data, again]);
    expect(second.stdout).toBe('accepted 2 points, rejected 0\n');
    const value = (i: number): number => (i === 0 || i === 19 ? 1000 + i : i);
    expectFullValues(await query('t4', 'q', 'FULL'), value);
    expectMin5Values(await query('t4', 'q', 'MIN5'), value);
  });

  it('rejects points without a tenant when no --tenant is given, and keeps the others', async () => {
    const file = join(dir, 'no-tenant.jsonl');
    const lines = [
      JSON.stringify({ metric: 'orphan', timestamp: BASE, value: 1 }),
      ...TIMES.map((t, i) => JSON.stringify({ tenant: 't5', metric: 'cpu', timestamp: t, value: i })),
    ];
    writeFileSync(file, lines.join('\n'));
    const run = await runCli(['ingest', '--data', data, file]);
    expect(run.stderr).not.toMatch(/SQLITE|constraint/i);
    const { line, reasons } = summaryOf(run.stdout);
    expect(line).toBe('accepted 20 points, rejected 1');
    expect(reasons.get('INGEST_TENANT_INVALID')).toMatch(/^x1: /);
    expect(run.status).toBe(0);
    expectFullValues(await query('t5', 'cpu', 'FULL'), (i) => i);
  });

  it('fills in --tenant for points that have none', async () => {
    const file = join(dir, 'no-tenant.jsonl');
    writeFileSync(file, TIMES.map((t, i) => JSON.stringify({ metric: 'cpu', timestamp: t, value: i })).join('\n'));
    const run = await runCli(['ingest', '--data', data, '--tenant', 't6', file]);
    expect(run.stdout).toBe('accepted 20 points, rejected 0\n');
    expectFullValues(await query('t6', 'cpu', 'FULL'), (i) => i);
  });

  it('fails with a message for a missing file', async () => {
    const run = await runCli(['ingest', '--data', data, join(dir, 'nope.jsonl')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/nope\.jsonl/);
  });
});

describe('strata ingest --help', () => {
  it('exits 0 and lists its options and arguments', async () => {
    const run = await runCli(['ingest', '--help']);
    expect(run.status).toBe(0);
    for (const text of ['--data <dir>', '--tenant <id>', '<files...>', '--help', 'msgpack']) expect(run.stdout).toContain(text);
  });
});
