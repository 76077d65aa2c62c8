// Owns the tests of `strata plan`: the 48 h table at every boundary as JSON, over-limit decisions, input errors and --help.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, runCli } from './cli-run.js';

const HOUR = 3_600_000;
const FROM = Date.UTC(2024, 0, 10);
const TO = FROM + 48 * HOUR;

beforeAll(requireBuiltCli);

interface PlanJson {
  resolution: string;
  from: number;
  to: number;
  servedFrom: number;
  expectedPoints: number;
  overLimit: boolean;
  reason: string;
}

async function plan(extra: readonly string[], range: readonly string[] = ['--from', String(FROM), '--to', String(TO), '--now', String(TO)]): Promise<PlanJson> {
  const run = await runCli(['plan', ...range, ...extra]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as PlanJson;
}

/** The spec's 48 h table: points asked → resolution, and the points that resolution yields over 48 h. */
const TABLE: readonly [number, string, number][] = [
  [0, 'MIN1440', 2],
  [6, 'MIN1440', 2],
  [7, 'MIN240', 12],
  [29, 'MIN240', 12],
  [30, 'MIN60', 48],
  [95, 'MIN60', 48],
  [96, 'MIN20', 144],
  [359, 'MIN20', 144],
  [360, 'MIN5', 576],
  [3167, 'MIN5', 576],
  [3168, 'FULL', 5760],
  [10_000, 'FULL', 5760],
];

describe('strata plan --points over 48 h', () => {
  it.each(TABLE)('--points %i → %s, %i expected points', async (points, resolution, expectedPoints) => {
    const p = await plan(['--points', String(points)]);
    expect(p.resolution).toBe(resolution);
    expect(p.expectedPoints).toBe(expectedPoints);
    expect(p.overLimit).toBe(expectedPoints > 1440);
    expect(p.from).toBe(FROM);
    expect(p.to).toBe(TO);
    expect(p.servedFrom).toBe(FROM);
    expect(p.reason).toContain(`${points} points asked over 2 days: ${resolution} is nearest`);
    if (p.overLimit) expect(p.reason).toMatch(/more than the limit of 1440; split the range into pieces of at most 12 h/);
  });
});

describe('strata plan --resolution', () => {
  it.each(TABLE.filter((_, i) => i % 2 === 0).map(([, r, n]) => [r, n] as const))('%s over 48 h yields %i points', async (resolution, expectedPoints) => {
    const p = await plan(['--resolution', resolution]);
    expect(p).toMatchObject({ resolution, expectedPoints, overLimit: expectedPoints > 1440 });
    expect(p.reason).toContain(`resolution ${resolution} as requested`);
  });

  it('accepts ISO 8601 times and plans the same', async () => {
    const p = await plan(['--resolution', 'MIN20'], ['--from', new Date(FROM).toISOString(), '--to', new Date(TO).toISOString(), '--now', String(TO)]);
    expect(p).toMatchObject({ from: FROM, to: TO, resolution: 'MIN20', expectedPoints: 144, overLimit: false });
  });

  it('cuts the served range at the retention given --now', async () => {
    const now = TO + 24 * HOUR;
    const p = await plan(['--resolution', 'FULL'], ['--from', String(FROM), '--to', String(TO), '--now', String(now)]);
    expect(p.servedFrom).toBe(now - 48 * HOUR);
    expect(p.reason).toMatch(/FULL keeps 2 days/);
  });
});

describe('strata plan errors', () => {
  it('exits 2 with the code when neither points nor resolution is given', async () => {
    const run = await runCli(['plan', '--from', String(FROM), '--to', String(TO), '--now', String(TO)]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('QUERY_POINTS_OR_RESOLUTION_REQUIRED');
  });

  it('exits 2 with the code for an unknown resolution', async () => {
    const run = await runCli(['plan', '--from', String(FROM), '--to', String(TO), '--resolution', 'MIN7']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('QUERY_RESOLUTION_INVALID');
  });

  it('exits 2 with the code when from is not before to', async () => {
    const run = await runCli(['plan', '--from', String(TO), '--to', String(FROM), '--points', '10']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('QUERY_RANGE_INVALID');
  });

  it('refuses a bad time or count argument with a usage error', async () => {
    for (const args of [
      ['--from', 'yesterday-ish', '--to', String(TO), '--points', '5'],
      ['--from', String(FROM), '--to', String(TO), '--points', '-3'],
    ]) {
      const run = await runCli(['plan', ...args]);
      expect(run.status).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/error: option/);
    }
  });

  it('refuses a missing --from', async () => {
    const run = await runCli(['plan', '--to', String(TO), '--points', '5']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('--from');
  });
});

describe('strata plan --help', () => {
  it('exits 0 and lists every option', async () => {
    const run = await runCli(['plan', '--help']);
    expect(run.status).toBe(0);
    for (const option of ['--from <time>', '--to <time>', '--points <n>', '--resolution <res>', '--now <time>', '--help']) expect(run.stdout).toContain(option);
  });
});
