// Tests `strata serve --record` as a process: the requests of a session end up in the recording in order, privately, without credentials; bad recording flags are refused.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_FILE_BYTES_MIN } from '../../src/recording/recording-limits.js';
import { openRecording } from '../../src/recording/recording-reader.js';
import type { RecordedExchange, RecordingFrame } from '../../src/recording/recording-types.js';
import { CLI, ROOT, ensureBuilt, startServe, tokenFor, type ServeProcess } from './serve-process.js';

/** Exit code of a usage error. */
const EXIT_USAGE = 2;

describe('strata serve --record', () => {
  let dir: string;
  const running: ServeProcess[] = [];

  beforeAll(() => ensureBuilt());
  afterEach(() => {
    for (const server of running.splice(0)) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the ingest and query requests of a session in order, closes the file on SIGTERM, mode 0o600, no credentials', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const data = join(dir, 'data');
    const file = join(dir, 'session.recording');
    const server = await startServe(data, ['--record', file, '--record-files', '2']);
    running.push(server);
    // The recording line comes before the "listening on" line, which stays the last.
    expect(server.stdout).toContain(`recording to ${file}\n`);
    expect(server.stdout.indexOf('recording to')).toBeLessThan(server.stdout.indexOf('listening on http:'));
    const apiKey = /apiKey: (\S+)/.exec(server.stdout)?.[1] as string;
    const token = await tokenFor(server.url, 'admin', apiKey);
    const now = Date.now();
    const headers = { 'x-auth-token': token };
    const json = JSON.stringify([{ metricName: 'rec.a', metricValue: 1, collectionTime: now - 2_000, ttlInSeconds: 3_600 }]);
    const msgpack = pack([{ metricName: 'rec.b', metricValue: 2, collectionTime: now - 1_000, ttlInSeconds: 3_600 }]);
    const view = `/metrics/v2.0/100000/views/rec.a?from=${now - 60_000}&to=${now + 1}&resolution=FULL`;
    const many = `/metrics/v2.0/100000/views?from=${now - 60_000}&to=${now + 1}&points=10`;
    const sent: [string, string, RequestInit][] = [
      ['POST', '/ingest/v2.0/100000/ingest', { body: json, headers: { ...headers, 'content-type': 'application/json' } }],
      ['POST', '/ingest/v2.0/100000/ingest', { body: msgpack, headers: { ...headers, 'content-type': 'application/x-msgpack' } }],
      ['GET', view, { headers }],
      ['POST', many, { body: '["rec.a","rec.b"]', headers: { ...headers, 'content-type': 'application/json' } }],
      ['GET', '/metrics/v2.0/100000/metrics/search?query=rec.*', { headers }],
    ];
    for (const [method, path, init] of sent) {
      const response = await fetch(`${server.url}${path}`, { method, ...init });
      expect(response.status, `${method} ${path}`).toBe(200);
      await response.arrayBuffer();
    }
    // Not recorded: a health check and another token.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await tokenFor(server.url, 'admin', apiKey);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    expect(statSync(file).mode & 0o777).toBe(0o600);
    const reader = await openRecording(file);
    const frames: RecordingFrame[] = [];
    try {
      for await (const frame of reader.frames()) frames.push(frame);
    } finally {
      await reader.close();
    }
    expect(reader.header.producer).toMatch(/^strata \S+ serve$/);
    expect(reader.header.description).toContain(data);
    expect(reader.header.sequence).toBe(0);
    const exchanges = frames as RecordedExchange[];
    expect(exchanges.map((frame) => frame.kind)).toEqual(['exchange', 'exchange', 'exchange', 'exchange', 'exchange']);
    expect(exchanges.map(({ method, url, tenant, status }) => ({ method, url, tenant, status }))).toEqual(
      sent.map(([method, url]) => ({ method, url, tenant: '100000', status: 200 })),
    );
    expect(Buffer.from(exchanges[0]!.body!).toString('utf8')).toBe(json);
    expect(Buffer.from(exchanges[1]!.body!).equals(msgpack)).toBe(true);
    expect(exchanges[1]!.contentType).toBe('application/x-msgpack');
    expect(exchanges[2]!.body).toBeNull();
    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from(token))).toBe(false);
    expect(bytes.includes(Buffer.from(apiKey))).toBe(false);
  });

  it('rotates at --record-max-bytes, keeps --record-files files, and counts it on /metrics', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const file = join(dir, 'rotating.recording');
    const server = await startServe(join(dir, 'data'), ['--record', file, '--record-max-bytes', String(RECORDING_FILE_BYTES_MIN), '--record-files', '2']);
    running.push(server);
    const apiKey = /apiKey: (\S+)/.exec(server.stdout)?.[1] as string;
    const token = await tokenFor(server.url, 'admin', apiKey);
    const now = Date.now();
    // Enough 1 MB bodies to fill the smallest file twice over: two rotations, of which files 2 keeps the last two files.
    const batches = Math.ceil((2 * RECORDING_FILE_BYTES_MIN) / 1_000_000) + 2;
    for (let b = 0; b < batches; b += 1) {
      const points = Array.from({ length: 10_000 }, (_, k) => ({ metricName: `rot.m${k % 100}`, metricValue: b * 10_000 + k, collectionTime: now - 600_000 + b * 100 + Math.floor(k / 100), ttlInSeconds: 3_600 }));
      const response = await fetch(`${server.url}/ingest/v2.0/100000/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': token }, body: JSON.stringify(points) });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // The writer rotates on its own turn, after the responses: scrape until both rotations are counted.
    let scraped = '';
    while (!/^strata_recording_rotations_total 2$/m.test(scraped)) {
      scraped = await (await fetch(`${server.url}/metrics`)).text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(scraped).toMatch(/^strata_recording_frames_total \d+$/m);
    expect(scraped).toMatch(/^strata_recording_dropped_total 0$/m);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const sequences: number[] = [];
    let exchanges = 0;
    for (const path of [`${file}.1`, file]) {
      expect(statSync(path).size).toBeLessThanOrEqual(RECORDING_FILE_BYTES_MIN);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const reader = await openRecording(path);
      sequences.push(reader.header.sequence);
      for await (const frame of reader.frames()) if (frame.kind === 'exchange') exchanges += 1;
      await reader.close();
    }
    expect(sequences).toEqual([1, 2]);
    expect(existsSync(`${file}.2`)).toBe(false);
    // The oldest file was deleted at the second rotation: fewer requests remain than were sent, but some of each file.
    expect(exchanges).toBeGreaterThan(0);
    expect(exchanges).toBeLessThan(batches);
  });

  it('refuses --record-max-bytes below the smallest file with a clear message and exit code 2', () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const file = join(dir, 'never.recording');
    const result = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data', join(dir, 'data'), '--record', file, '--record-max-bytes', '1000000'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.status).toBe(EXIT_USAGE);
    expect(result.stderr).toContain('--record-max-bytes');
    expect(result.stderr).toContain(`from ${RECORDING_FILE_BYTES_MIN}`);
    expect(result.stdout).not.toContain('listening on');
    const files = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data', join(dir, 'data'), '--record', file, '--record-files', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(files.status).toBe(EXIT_USAGE);
    expect(files.stderr).toContain('--record-files');
  });
});
