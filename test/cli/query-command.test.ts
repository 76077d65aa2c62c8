// Owns the tests of `strata query`: values at FULL and MIN5, select, points, empty results, coded errors, the lock and --help.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, runCli, tempDir } from './cli-run.js';

const MIN5 = 5 * 60_000;
const HOUR = 3_600_000;
/** Ten minutes on 5-minute boundaries, three hours ago. */
const BASE = Math.floor((Date.now() - 3 * HOUR) / (2 * MIN5)) * 2 * MIN5;
const TIMES = Array.from({ length: 20 }, (_, i) => BASE + i * 30_000);
/** Values 0..19, except a string at index 5 (a status flip). */
const valueAt = (i: number): number | string => (i === 5 ? 'degraded' : i);

let dir: string;
let data: string;

beforeAll(async () => {
  requireBuiltCli();
  dir = tempDir('query');
  data = join(dir, 'data');
  const file = join(dir, 'points.jsonl');
  writeFileSync(
    file,
    TIMES.map((t, i) => JSON.stringify({ tenant: 't1', metric: 'svc.latency', timestamp: t, value: valueAt(i), unit: 'ms' })).join('\n'),
  );
  const run = await runCli(['ingest', '--data', data, file]);
  expect(run.stdout).toBe('accepted 20 points, rejected 0\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface QueryJson {
  resolution: string;
  unit: string | null;
  values: Record<string, number | string | null>[];
}

async function query(args: readonly string[]): Promise<QueryJson> {
  const run = await runCli(['query', '--data', data, '--tenant', 't1', '--metric', 'svc.latency', ...args]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as QueryJson;
}

const range = ['--from', String(BASE), '--to', String(BASE + 2 * MIN5)];

describe('strata query', () => {
  it('returns every raw point at FULL, strings as value, numPoints 1', async () => {
    const r = await query([...range, '--resolution', 'FULL']);
    expect(r.resolution).toBe('FULL');
    expect(r.unit).toBe('ms');
    expect(r.values).toHaveLength(20);
    r.values.forEach((v, i) => {
      expect(v.timestamp).toBe(TIMES[i]);
      expect(v.numPoints).toBe(1);
      if (i === 5) expect(v.value).toBe('degraded');
      else expect(v.average).toBe(i);
    });
  });

  it('returns MIN5 buckets with the selected statistics; strings count in numPoints only', async () => {
    const r = await query([...range, '--resolution', 'MIN5', '--select', 'average', 'min', '--select', 'max,variance']);
    expect(r.resolution).toBe('MIN5');
    const numeric = (from: number): number[] => Array.from({ length: 10 }, (_, k) => from + k).filter((i) => i !== 5);
    const stats = (xs: number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return { mean, variance: xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length, min: Math.min(...xs), max: Math.max(...xs) };
    };
    expect(r.values.map((v) => [v.timestamp, v.numPoints])).toEqual([
      [BASE, 10],
      [BASE + MIN5, 10],
    ]);
    r.values.forEach((v, b) => {
      const s = stats(numeric(b * 10));
      expect(v.average).toBeCloseTo(s.mean, 9);
      expect(v.variance).toBeCloseTo(s.variance, 9);
      expect(v.min).toBe(s.min);
      expect(v.max).toBe(s.max);
    });
  });

  it('finds the data directory in STRATA_DATA, as every command does, when --data is not given', async () => {
    const run = await runCli(['query', '--tenant', 't1', '--metric', 'svc.latency', '--from', String(BASE), '--to', String(BASE + HOUR), '--resolution', 'FULL'], { STRATA_DATA: data });
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as QueryJson).values).toHaveLength(20);
  });

  it('returns the average alone by default', async () => {
    const r = await query([...range, '--resolution', 'MIN5']);
    expect(Object.keys(r.values[0] ?? {}).sort()).toEqual(['average', 'numPoints', 'timestamp']);
  });

  it('lets --points pick the resolution', async () => {
    // Over 10 minutes, 2 points is nearest MIN5 (2 buckets).
    expect((await query([...range, '--points', '2'])).resolution).toBe('MIN5');
    expect((await query([...range, '--points', '20'])).resolution).toBe('FULL');
  });

  it('serves coarser levels rolled up from the same data', async () => {
    const r = await query(['--from', String(BASE - (BASE % HOUR)), '--to', String(BASE - (BASE % HOUR) + HOUR), '--resolution', 'MIN60', '--select', 'min,max']);
    expect(r.values).toHaveLength(1);
    expect(r.values[0]).toMatchObject({ numPoints: 20, min: 0, max: 19 });
  });

  it('returns no values for an unknown metric or an empty range', async () => {
    const unknown = await runCli(['query', '--data', data, '--tenant', 't1', '--metric', 'nope', ...range, '--resolution', 'FULL']);
    expect(unknown.status).toBe(0);
    expect(JSON.parse(unknown.stdout)).toEqual({ resolution: 'FULL', unit: null, values: [] });
    const before = await query(['--from', String(BASE - HOUR), '--to', String(BASE), '--resolution', 'FULL']);
    expect(before.values).toEqual([]);
  });
});

describe('strata query errors', () => {
  async function failing(args: readonly string[]): Promise<{ status: number | null; stderr: string }> {
    const run = await runCli(['query', '--data', data, '--tenant', 't1', '--metric', 'svc.latency', ...args]);
    expect(run.stdout).toBe('');
    return run;
  }

  it('exits 2 with QUERY_POINTS_OVER_LIMIT when FULL would return more than 1440 points', async () => {
    const run = await failing(['--from', String(BASE - 24 * HOUR), '--to', String(BASE), '--resolution', 'FULL']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/QUERY_POINTS_OVER_LIMIT: FULL would return 2880 points/);
  });

  it('exits 2 when neither points nor resolution is given', async () => {
    const run = await failing(range);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
  });

  it('exits 2 for a bad resolution or select', async () => {
    const bad = await failing([...range, '--resolution', 'HOURLY']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('QUERY_RESOLUTION_INVALID');
    const select = await failing([...range, '--resolution', 'MIN5', '--select', 'median']);
    expect(select.status).toBe(2);
    expect(select.stderr).toContain('QUERY_SELECT_INVALID');
  });

  it('exits 1 with STORE_LOCKED while another process has the data directory open', async () => {
    const lockModule = pathToFileURL(resolve(import.meta.dirname, '../../dist/src/storage/dir-lock.js')).href;
    const code = `const m = await import(${JSON.stringify(lockModule)}); m.lockDirectory(${JSON.stringify(data)}); process.stdout.write('locked\\n'); setInterval(() => {}, 60000);`;
    const holder: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((ok, fail) => {
        holder.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && ok());
        holder.on('exit', () => fail(new Error('lock holder exited early')));
      });
      const run = await failing([...range, '--resolution', 'FULL']);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('STORE_LOCKED');
      expect(run.stderr).toContain(String(holder.pid));
    } finally {
      await new Promise<void>((done) => {
        holder.once('exit', () => done());
        holder.kill('SIGKILL');
      });
      // The holder died without unlocking; the next open takes the stale lock over.
      rmSync(join(data, 'LOCK'), { force: true });
    }
  });
});

describe('strata query --help', () => {
  it('exits 0 and lists every option', async () => {
    const run = await runCli(['query', '--help']);
    expect(run.status).toBe(0);
    for (const option of ['--data <dir>', '--tenant <id>', '--metric <name>', '--from <time>', '--to <time>', '--points <n>', '--resolution <res>', '--select <stat...>', '--help']) {
      expect(run.stdout).toContain(option);
    }
  });

  it('the top-level help lists the three commands', async () => {
    const run = await runCli(['--help']);
    expect(run.status).toBe(0);
    for (const command of ['ingest', 'query', 'plan']) expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });
});
