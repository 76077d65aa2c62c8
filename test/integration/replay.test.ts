// Tests `strata replay` end to end: a session recorded by `strata serve --record`, replayed into a fresh server, leaves the same points there; bad input exits 2.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecording } from '../../src/recording/recording-codec.js';
import { RECORDING_FORMAT_VERSION, RECORDING_FRAME_PREFIX_BYTES, RECORDING_MAGIC } from '../../src/recording/recording-limits.js';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import { CLI, ROOT, ensureBuilt, startServe, tokenFor, type ServeProcess } from './serve-process.js';

const MINUTE_MS = 60_000;
/** Exit status of bad input. */
const EXIT_BAD_INPUT = 2;
/** Exit status of a replay with failed requests under --fail-on-errors. */
const EXIT_REPLAY_ERRORS = 3;

interface Server {
  readonly process: ServeProcess;
  readonly url: string;
  readonly tenant: string;
  readonly apiKey: string;
  readonly token: string;
}

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function start(dataDir: string, extra: readonly string[] = []): Promise<Server> {
  const process = await startServe(dataDir, extra);
  const apiKey = /apiKey: (\S+)/.exec(process.stdout)?.[1] as string;
  const tenant = /tenant: (\S+)/.exec(process.stdout)?.[1] as string;
  return { process, url: process.url, tenant, apiKey, token: await tokenFor(process.url, 'admin', apiKey) };
}

/** Runs the CLI as a child process without blocking the test's event loop. */
function runCli(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

async function send(server: Server, method: string, path: string, body?: { type: string; bytes: Uint8Array | string }): Promise<number> {
  const headers: Record<string, string> = { 'x-auth-token': server.token };
  if (body !== undefined) headers['content-type'] = body.type;
  const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body: body.bytes } : {}) });
  await response.arrayBuffer();
  return response.status;
}

async function getJson(server: Server, path: string): Promise<any> {
  const response = await fetch(`${server.url}${path}`, { headers: { 'x-auth-token': server.token } });
  expect(response.status, path).toBe(200);
  return response.json();
}

/** Every metric of the server's admin tenant with its FULL points over [fromMs, toMs). */
async function allPoints(server: Server, fromMs: number, toMs: number): Promise<Record<string, unknown>> {
  const found = (await getJson(server, `/metrics/v2.0/${server.tenant}/metrics/search?query=*`)) as Array<{ metric: string }>;
  const result: Record<string, unknown> = {};
  for (const { metric } of found) {
    const view = await getJson(server, `/metrics/v2.0/${server.tenant}/views/${encodeURIComponent(metric)}?from=${fromMs}&to=${toMs}&resolution=FULL`);
    result[metric] = view.values;
  }
  return result;
}

/** Byte offsets of every frame of a recording file (the header frame first), from the length prefixes. */
function frameOffsets(bytes: Buffer): number[] {
  const offsets: number[] = [];
  let offset = RECORDING_MAGIC.length + 2;
  while (offset < bytes.length) {
    offsets.push(offset);
    offset += RECORDING_FRAME_PREFIX_BYTES + bytes.readUInt32BE(offset);
  }
  return offsets;
}

function metric(name: string, value: number | string, timeMs: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { metricName: name, metricValue: value, collectionTime: timeMs, ttlInSeconds: 172_800, ...extra };
}

describe('strata replay', () => {
  let dir: string;
  let recording: string;
  let source: Server;
  let fresh: Server;
  let sourcePoints: Record<string, unknown>;
  const baseMs = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 60 * MINUTE_MS;
  const fromMs = baseMs - 10 * MINUTE_MS;
  const toMs = baseMs + 120 * MINUTE_MS;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'strata-replay-'));
    recording = join(dir, 'session.recording');
    source = await start(join(dir, 'source'), ['--record', recording]);
    const t = source.tenant;
    // A session of every recorded route: JSON and msgpack ingest, a multi-tenant write, a partial write, queries.
    for (let batch = 0; batch < 12; batch++) {
      const points = Array.from({ length: 50 }, (_, i) => metric(`cpu.${i % 5}`, batch * 100 + i + 0.25, baseMs + (batch * 50 + i) * 1000, { unit: 'percent' }));
      const body = batch % 2 === 0 ? { type: 'application/json', bytes: JSON.stringify(points) } : { type: 'application/x-msgpack', bytes: pack(points) };
      expect(await send(source, 'POST', `/ingest/v2.0/${t}/ingest`, body)).toBe(200);
    }
    const strings = [metric('status.text', 'ok', baseMs + 5000), metric('status.text', 'degraded', baseMs + 6000)];
    expect(await send(source, 'POST', `/ingest/v2.0/${t}/ingest`, { type: 'application/json', bytes: JSON.stringify(strings) })).toBe(200);
    const multi = [metric('multi.a', 1, baseMs + 1000, { tenantId: t }), metric('multi.a', 2, baseMs + 2000, { tenantId: t })];
    expect(await send(source, 'POST', `/ingest/v2.0/${t}/ingest/multi`, { type: 'application/json', bytes: JSON.stringify(multi) })).toBe(200);
    const partial = [metric('partial.ok', 3, baseMs + 3000), metric('', 4, baseMs + 3000)];
    expect(await send(source, 'POST', `/ingest/v2.0/${t}/ingest`, { type: 'application/json', bytes: JSON.stringify(partial) })).toBe(207);
    expect(await send(source, 'GET', `/metrics/v2.0/${t}/views/cpu.1?from=${fromMs}&to=${toMs}&resolution=FULL`)).toBe(200);
    expect(await send(source, 'POST', `/metrics/v2.0/${t}/views?from=${fromMs}&to=${toMs}&points=10`, { type: 'application/json', bytes: '["cpu.1","cpu.2"]' })).toBe(200);
    expect(await send(source, 'GET', `/metrics/v2.0/${t}/metrics/search?query=cpu.*`)).toBe(200);
    sourcePoints = await allPoints(source, fromMs, toMs);
    source.process.child.kill('SIGTERM');
    expect(await source.process.exited).toBe(0);
    fresh = await start(join(dir, 'fresh'));
  }, 120_000);

  afterAll(async () => {
    for (const server of [source, fresh]) {
      if (server !== undefined && server.process.child.exitCode === null) {
        server.process.child.kill('SIGKILL');
        await server.process.exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays the recording into a fresh server, which then holds exactly the same points', async () => {
    const report = join(dir, 'first.json');
    const result = await runCli(['replay', recording, '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey, '--max', '--concurrency', '1', '--time-shift', 'none', '--report', report]);
    expect(result.stderr).not.toContain('strata:');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ingest\s+14\s+0\s/m);
    expect(result.stdout).toMatch(/^ingest\/multi\s+1\s+0\s/m);
    expect(result.stdout).toMatch(/^views \(GET\)\s+\d+\s+0\s/m);
    expect(result.stdout).toMatch(/^total\s/m);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({ kind: 'strata-replay-report', version: 2, complete: true, skipped: { refused: 0, notRecordedRoute: 0 }, gaps: { frames: 0, dropped: 0 } });
    // Every request was answered as it was when recorded (the partial write's 207 included).
    expect(json.totals.statusChanged).toBe(0);
    expect(json.totals.points).toBe(12 * 50 + 2 + 2 + 2);
    expect(json.totals.pointsRejected).toBe(0);

    expect(Object.keys(sourcePoints).sort()).toEqual(['cpu.0', 'cpu.1', 'cpu.2', 'cpu.3', 'cpu.4', 'multi.a', 'partial.ok', 'status.text']);
    expect((sourcePoints['cpu.0'] as unknown[]).length).toBe(120);
    expect(await allPoints(fresh, fromMs, toMs)).toEqual(sourcePoints);
  });

  it('writes a --report that a later --compare accepts and compares', async () => {
    const first = join(dir, 'compare-first.json');
    const second = join(dir, 'compare-second.json');
    const common = ['replay', recording, '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey, '--max', '--time-shift', 'none'];
    expect((await runCli([...common, '--report', first])).code).toBe(0);
    const result = await runCli([...common, '--concurrency', '2', '--report', second, '--compare', first]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('comparison with the previous report');
    expect(result.stdout).toMatch(/^ingest\s+\d+\.\d\d\s+\d+\.\d\d\s+(x\d+\.\d\d|-)/m);
    expect(existsSync(second)).toBe(true);
    const notReport = join(dir, 'not-a-report.json');
    writeFileSync(notReport, '{"hello":"world"}');
    const refused = await runCli([...common, '--compare', notReport]);
    expect(refused.code).toBe(EXIT_BAD_INPUT);
    expect(refused.stderr).toContain('CONFIG_INVALID');
    expect(refused.stderr).toContain('is not a strata replay report');
    const negative = join(dir, 'negative.json');
    const damaged = JSON.parse(readFileSync(first, 'utf8'));
    damaged.totals.p99Ms = -5;
    writeFileSync(negative, JSON.stringify(damaged));
    const refusedNegative = await runCli([...common, '--compare', negative]);
    expect(refusedNegative.code).toBe(EXIT_BAD_INPUT);
    expect(refusedNegative.stderr).toContain('is a damaged replay report');
  });

  it('exits 2 naming the problem and the byte offset for a corrupt and for a truncated recording', async () => {
    const bytes = readFileSync(recording);
    const offsets = frameOffsets(bytes);
    const target = ['--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey, '--max', '--time-shift', 'none'];

    const corrupt = join(dir, 'corrupt.recording');
    const damaged = Buffer.from(bytes);
    const third = offsets[3] as number;
    // Flip a payload byte of the third exchange: its CRC no longer matches.
    const flipAt = third + RECORDING_FRAME_PREFIX_BYTES + 3;
    damaged.writeUInt8(damaged.readUInt8(flipAt) ^ 0xff, flipAt);
    writeFileSync(corrupt, damaged);
    const corruptRun = await runCli(['replay', corrupt, ...target]);
    expect(corruptRun.code).toBe(EXIT_BAD_INPUT);
    expect(corruptRun.stderr).toContain('RECORDING_CORRUPT');
    expect(corruptRun.stderr).toContain(`byte ${third}`);
    expect(corruptRun.stderr).toContain(corrupt);

    const truncated = join(dir, 'truncated.recording');
    copyFileSync(recording, truncated);
    const last = offsets[offsets.length - 1] as number;
    truncateSync(truncated, bytes.length - 5);
    const truncatedRun = await runCli(['replay', truncated, ...target]);
    expect(truncatedRun.code).toBe(EXIT_BAD_INPUT);
    expect(truncatedRun.stderr).toContain('RECORDING_TRUNCATED');
    expect(truncatedRun.stderr).toContain(`byte ${last}`);
    // What came before the damage was replayed and reported.
    expect(truncatedRun.stdout).toContain('stopped early');

    const notRecording = join(dir, 'notes.txt');
    writeFileSync(notRecording, 'just some text, not a recording at all');
    const notRun = await runCli(['replay', notRecording, ...target]);
    expect(notRun.code).toBe(EXIT_BAD_INPUT);
    expect(notRun.stderr).toContain('RECORDING_NOT_A_RECORDING');
  });

  it('converts the recording with --convert, to --out or to standard output, with the summary on standard error', async () => {
    const out = join(dir, 'converted.vm');
    const toFile = await runCli(['replay', '--convert', 'vm', recording, '--out', out]);
    expect(toFile.code).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(toFile.stderr).toMatch(/^convert: .*points [1-9]\d*/m);
    // The points of a recording are the recorded server's data: the file is its owner's only.
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0] as string)).toHaveProperty('metric');
    const toStdout = await runCli(['replay', '--convert', 'influx', recording]);
    expect(toStdout.code).toBe(0);
    expect(toStdout.stdout).toContain('cpu.1');
    const wrong = await runCli(['replay', '--convert', 'csv', recording]);
    expect(wrong.code).toBe(EXIT_BAD_INPUT);
    expect(wrong.stderr).toContain('--convert takes vm or influx');
  });

  /** A hand-made recording of `exchanges`, as anyone could hand one over. */
  function crafted(name: string, exchanges: ReadonlyArray<Omit<RecordedExchange, 'kind' | 'durationMs'>>): string {
    const path = join(dir, name);
    const header = { kind: 'header', version: RECORDING_FORMAT_VERSION, startedAtMs: Date.now() - 60_000, sequence: 0, producer: 'hand', description: 'crafted' } as const;
    writeFileSync(path, encodeRecording(header, exchanges.map((e) => ({ ...e, kind: 'exchange', durationMs: 1 }) as RecordedExchange)));
    return path;
  }

  function ingestExchange(atMs: number, name: string, body?: string): Omit<RecordedExchange, 'kind' | 'durationMs'> {
    const bytes = body ?? JSON.stringify([metric(name, 1, baseMs + 7000)]);
    return { atMs, method: 'POST', url: '/ingest/v2.0/100000/ingest', tenant: '100000', contentType: 'application/json', body: Buffer.from(bytes), status: 200 };
  }

  it('sends only the recorded routes: a crafted recording cannot create monitoring objects or revoke tokens with the replaying token', async () => {
    const label = 'crafted-by-a-recording';
    const path = crafted('crafted.recording', [
      ingestExchange(1, 'crafted.before'),
      { atMs: 2, method: 'POST', url: `/monitoring/v1.0/${fresh.tenant}/entities`, tenant: fresh.tenant, contentType: 'application/json', body: Buffer.from(JSON.stringify({ label })), status: 201 },
      { atMs: 3, method: 'DELETE', url: '/v2.0/tokens', tenant: fresh.tenant, contentType: null, body: null, status: 204 },
      ingestExchange(4, 'crafted.after'),
    ]);
    const report = join(dir, 'crafted.json');
    const result = await runCli(['replay', path, '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey, '--max', '--concurrency', '1', '--time-shift', 'none', '--report', report, '--fail-on-errors']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('skipped: not a recorded route: 2 request(s)');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.skipped).toEqual({ refused: 0, notRecordedRoute: 2 });
    expect(json.totals).toMatchObject({ requests: 2, ok: 2, errors: 0 });
    const entities = await getJson(fresh, `/monitoring/v1.0/${fresh.tenant}/entities`);
    expect(JSON.stringify(entities)).not.toContain(label);
    expect(Object.keys(await allPoints(fresh, fromMs, toMs))).toEqual(expect.arrayContaining(['crafted.before', 'crafted.after']));
  });

  it('exits 3 with --fail-on-errors when a replayed request was not answered 2xx, and 0 without it', async () => {
    const path = crafted('failing.recording', [ingestExchange(1, 'fine'), { ...ingestExchange(2, 'broken', '[{"metricName": "cut'), status: 400 }]);
    const args = ['replay', path, '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey, '--max', '--time-shift', 'none'];
    const strict = await runCli([...args, '--fail-on-errors']);
    expect(strict.code).toBe(EXIT_REPLAY_ERRORS);
    expect(strict.stderr).toContain('1 replayed request(s) failed');
    expect(strict.stdout).toMatch(/^ingest\s+2\s+1\s/m);
    expect(strict.stdout).toContain('errors by status: 400 x1');
    const lenient = await runCli(args);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/^ingest\s+2\s+1\s/m);
  });

  it('fails with REPLAY_AUTH_FAILED for a wrong API key and REPLAY_TARGET_UNREACHABLE for a closed port', async () => {
    const wrong = await runCli(['replay', recording, '--target', fresh.url, '--username', 'admin', '--api-key', 'not-the-key-0123456789', '--max']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('REPLAY_AUTH_FAILED');
    expect(wrong.stdout).toBe('');
    const closed = await runCli(['replay', recording, '--target', 'http://127.0.0.1:1', '--username', 'admin', '--api-key', fresh.apiKey, '--max']);
    expect(closed.code).not.toBe(0);
    expect(closed.stderr).toContain('REPLAY_TARGET_UNREACHABLE');
    const wrongPath = await runCli(['replay', recording, '--target', `${fresh.url}/not-strata`, '--username', 'admin', '--api-key', fresh.apiKey, '--max']);
    expect(wrongPath.code).not.toBe(0);
    expect(wrongPath.stderr).toContain(`no identity API at ${fresh.url}/not-strata/v2.0/tokens (HTTP 404)`);
  });

  it('refuses bad options with exit 2 and a message naming the option', async () => {
    const base = ['replay', recording, '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey];
    for (const [args, text] of [
      [['--speed', '0'], '--speed'],
      [['--speed', '2', '--max'], '--speed and --max'],
      [['--concurrency', '0'], '--concurrency'],
      [['--concurrency', '100000'], '--concurrency'],
      [['--tenant-map', 'a'], '--tenant-map'],
      [['--time-shift', 'yesterday'], '--time-shift'],
      [['--no-such-option'], 'unknown option'],
    ] as const) {
      const result = await runCli([...base, ...args]);
      expect(result.code, args.join(' ')).toBe(EXIT_BAD_INPUT);
      expect(result.stderr, args.join(' ')).toContain(text);
    }
    const missing = await runCli(['replay', join(dir, 'no-such.recording'), '--target', fresh.url, '--username', 'admin', '--api-key', fresh.apiKey]);
    expect(missing.code).toBe(EXIT_BAD_INPUT);
    expect(missing.stderr).toContain('does not exist');
    const noTarget = await runCli(['replay', recording]);
    expect(noTarget.code).toBe(EXIT_BAD_INPUT);
    expect(noTarget.stderr).toContain('--target is required');
  });
});
