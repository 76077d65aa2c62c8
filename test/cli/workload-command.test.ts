// Tests of `strata workload generate` through the built CLI: small workloads read back frame by frame, NAB folders, and bad options exiting 2.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import { requireBuiltCli, runCli, tempDir } from './cli-run.js';
import { readRecordingFile } from '../support/read-recording.js';

const END_MS = 1_763_990_000_000;
const SERIES = 10;
const POINTS = 60;
const INTERVAL_MS = 30_000;

let dir: string;
beforeAll(requireBuiltCli);
beforeEach(() => {
  dir = tempDir('workload');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Metric {
  metricName: string;
  metricValue: number;
  collectionTime: number;
  ttlInSeconds: number;
  unit?: string;
}

function metricsOf(frame: RecordedExchange): Metric[] {
  const body = Buffer.from(frame.body ?? []);
  return (frame.contentType === 'application/json' ? JSON.parse(body.toString('utf8')) : unpack(body)) as Metric[];
}

function generate(kind: string, out: string, extra: readonly string[] = [], env: Record<string, string> = {}) {
  return runCli(['workload', 'generate', '--kind', kind, '--out', out, '--series', String(SERIES), '--points', String(POINTS), '--end-ms', String(END_MS), ...extra], env);
}

/** Every point of the ingest frames, checked to be the 10 x 60 grid exactly once each; returns them by "series@time". */
function expectFullGrid(ingest: readonly RecordedExchange[]): Map<string, Metric> {
  const seen = new Map<string, Metric>();
  for (const metric of ingest.flatMap(metricsOf)) seen.set(`${metric.metricName}@${metric.collectionTime}`, metric);
  expect(ingest.flatMap(metricsOf)).toHaveLength(SERIES * POINTS);
  expect(seen.size).toBe(SERIES * POINTS);
  const times = [...new Set([...seen.values()].map((m) => m.collectionTime))].sort((a, b) => a - b);
  expect(times).toHaveLength(POINTS);
  expect((times.at(-1) as number) - (times[0] as number)).toBe((POINTS - 1) * INTERVAL_MS);
  expect(END_MS - (times.at(-1) as number)).toBeGreaterThanOrEqual(2 * 60_000);
  expect(new Set([...seen.values()].map((m) => m.metricName)).size).toBe(SERIES);
  return seen;
}

describe('strata workload generate', () => {
  it('writes a walk as JSON ingest requests of --batch-points points, then plot queries, and says what it wrote', async () => {
    const out = join(dir, 'walk.rec');
    const run = await generate('walk', out, ['--batch-points', '100', '--plots', '3', '--rate', '1000']);
    expect(run.stderr).toMatch(/workload walk: 100% \(9\/9 frames\)/);
    expect(run.status).toBe(0);
    const size = readFileSync(out).length;
    expect(run.stdout).toMatch(new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 9 frames \\(6 ingest, 3 plots\\), 600 points, ${size} bytes in [\\d.]+ s\\n$`));
    const { header, frames } = await readRecordingFile(out);
    expect(header.producer).toMatch(/^strata \d+\.\d+\.\d+\S* workload generate walk$/);
    expect(header.startedAtMs).toBe(END_MS);
    expect(header.description).toMatch(/^10 series x 60 points at 30000 ms; random walk from 100.*seed 42.*Arrival: points are sent in time-major order in batches of 100/);
    expect(frames).toHaveLength(9);
    const exchanges = frames as RecordedExchange[];
    const ingest = exchanges.slice(0, 6);
    expect(ingest.map((f) => [f.method, f.url, f.contentType, f.status, f.atMs])).toEqual(
      [0, 100, 200, 300, 400, 500].map((at) => ['POST', '/ingest/v2.0/bench/ingest', 'application/json', 200, at]),
    );
    const points = expectFullGrid(ingest);
    // Time-major: each body of 100 points holds ten whole time slots of all ten series, in order.
    const first = metricsOf(ingest[0] as RecordedExchange);
    const t0 = first[0]?.collectionTime as number;
    expect(first.map((m) => [m.metricName, m.collectionTime, m.ttlInSeconds])).toEqual(
      Array.from({ length: 100 }, (_, i) => [`bench.s000${i % 10}`, t0 + Math.floor(i / 10) * INTERVAL_MS, 172_800]),
    );
    // Each series walks by steps in [-0.5, 0.5) from 100.
    for (const m of points.values()) expect(Math.abs(m.metricValue - 100)).toBeLessThanOrEqual(POINTS * 0.5);
    expect(exchanges.slice(6).every((f) => f.method === 'GET' && /^\/metrics\/v2\.0\/bench\/views\/bench\.s000\d\?from=\d+&to=\d+&resolution=MIN5&select=average,min,max$/.test(f.url))).toBe(true);
  });

  it('writes counters as msgpack under --tenant, unit count, never decreasing but at a reset to 0; the same options give the same bytes', async () => {
    const out = join(dir, 'counter.rec');
    const args = ['--format', 'msgpack', '--tenant', 'tenant-2', '--plots', '0', '--seed', '7'];
    expect((await generate('counter', out, args)).status).toBe(0);
    const { header, frames } = await readRecordingFile(out);
    expect(header.producer).toMatch(/ workload generate counter$/);
    const ingest = frames as RecordedExchange[];
    expect(ingest).toHaveLength(1);
    expect(ingest[0]).toMatchObject({ url: '/ingest/v2.0/tenant-2/ingest', tenant: 'tenant-2', contentType: 'application/x-msgpack' });
    const points = [...expectFullGrid(ingest).values()].sort((a, b) => a.metricName.localeCompare(b.metricName) || a.collectionTime - b.collectionTime);
    points.forEach((m, j) => {
      expect(m.unit).toBe('count');
      expect(Number.isSafeInteger(m.metricValue)).toBe(true);
      const before = points[j - 1];
      if (before?.metricName === m.metricName && m.metricValue !== 0) expect(m.metricValue).toBeGreaterThanOrEqual(before.metricValue);
    });
    const again = join(dir, 'counter-again.rec');
    expect((await generate('counter', again, args)).status).toBe(0);
    expect(readFileSync(again).equals(readFileSync(out))).toBe(true);
  });

  for (const kind of ['late', 'out-of-order', 'burst', 'rounded']) {
    it(`writes ${kind} with every point of the grid exactly once`, async () => {
      const out = join(dir, `${kind}.rec`);
      expect((await generate(kind, out, ['--batch-points', '50', '--plots', '1'])).status).toBe(0);
      const { header, frames } = await readRecordingFile(out);
      expect(header.producer).toMatch(new RegExp(` workload generate ${kind}$`));
      expectFullGrid((frames as RecordedExchange[]).filter((f) => f.method === 'POST'));
    });
  }

  // The default folder (../shared/workloads/nab beside the checkout) is a path rule, tested in
  // test/workload/nab-recordings.test.ts; a clean clone in CI has no shared folder, so this test
  // reads only folders it makes itself.
  it('reads NAB from STRATA_NAB_DIR, and from --nab-dir over it', async () => {
    const nab = join(dir, 'nab');
    mkdirSync(nab);
    writeFileSync(join(nab, 'one.csv'), 'timestamp,value\n2015-01-01,4.25\n2015-01-02,5.5\n');
    const valuesOf = async (out: string): Promise<Set<number>> => new Set(((await readRecordingFile(out)).frames as RecordedExchange[]).filter((f) => f.method === 'POST').flatMap(metricsOf).map((m) => m.metricValue));
    writeFileSync(join(nab, 'two.csv'), 'timestamp,value\n2015-01-01,7\n');
    const flagged = join(dir, 'flag-nab');
    mkdirSync(flagged);
    writeFileSync(join(flagged, 'only.csv'), 'timestamp,value\n2015-01-01,9.75\n');
    expect((await generate('nab', join(dir, 'flag.rec'), ['--plots', '0', '--nab-dir', flagged], { STRATA_NAB_DIR: nab })).status).toBe(0);
    expect(await valuesOf(join(dir, 'flag.rec'))).toEqual(new Set([9.75]));
    expect((await readRecordingFile(join(dir, 'flag.rec'))).header.description).toMatch(/NAB: 1 CSVs/);
    expect((await generate('nab', join(dir, 'env.rec'), ['--plots', '0'], { STRATA_NAB_DIR: nab })).status).toBe(0);
    expect(await valuesOf(join(dir, 'env.rec'))).toEqual(new Set([4.25, 5.5, 7]));
    const missing = await generate('nab', join(dir, 'bad.rec'), ['--nab-dir', join(dir, 'absent')], { STRATA_NAB_DIR: nab });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/CONFIG_INVALID: no NAB folder at .*absent/);
    expect(existsSync(join(dir, 'bad.rec'))).toBe(false);
  });

  it('replaces a previous recording at --out but refuses to touch a file that is not one', async () => {
    const out = join(dir, 'again.rec');
    expect((await generate('walk', out, ['--plots', '0'])).status).toBe(0);
    expect((await generate('walk', out, ['--plots', '1'])).status).toBe(0);
    expect((await readRecordingFile(out)).frames.filter((f) => f.kind === 'exchange' && f.method === 'GET')).toHaveLength(1);
    expect(existsSync(`${out}.1`)).toBe(false);
    const precious = join(dir, 'identity.sqlite');
    writeFileSync(precious, 'SQLite format 3\u0000 not a recording');
    const refused = await generate('walk', precious, ['--plots', '0']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/CONFIG_INVALID/);
    expect(readFileSync(precious, 'utf8')).toBe('SQLite format 3\u0000 not a recording');
  });

  it('exits 2 with a clear message on bad options', async () => {
    const out = join(dir, 'x.rec');
    const cases: [readonly string[], RegExp][] = [
      [['--kind', 'sine', '--out', out], /--kind <kind>' argument 'sine' is invalid/],
      [['--kind', 'walk'], /required option '--out <file>' not specified/],
      [['--out', out], /required option '--kind <kind>' not specified/],
      [['--kind', 'walk', '--out', out, '--series', '0'], /--series <n>.*expected an integer from 1 to 100000/],
      [['--kind', 'walk', '--out', out, '--points', '100001'], /--points <n>.*expected an integer from 1 to 100000/],
      [['--kind', 'walk', '--out', out, '--batch-points', '100001'], /--batch-points <n>.*expected an integer from 1 to 100000/],
      [['--kind', 'walk', '--out', out, '--interval-ms', '999'], /--interval-ms <n>.*expected an integer from 1000/],
      [['--kind', 'walk', '--out', out, '--format', 'xml'], /--format <format>' argument 'xml' is invalid/],
      [['--kind', 'walk', '--out', out, '--rate', '0'], /--rate <points\/s>.*expected an integer from 1/],
      [['--kind', 'walk', '--out', out, '--tenant', 'a b'], /--tenant <id>.*letters, digits/],
      [['--kind', 'walk', '--out', out, '--seed', '-1'], /--seed <n>/],
      [['--kind', 'walk', '--out', out, '--series', '100000', '--points', '501'], /CONFIG_INVALID: series x points is 50100000, over the limit of 50000000 points/],
      [['--kind', 'walk', '--out', out, '--end-ms', '5'], /CONFIG_INVALID: the data would start before 1970/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['workload', 'generate', ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });
});
