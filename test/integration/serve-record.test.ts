// Tests `strata serve --record` as a process: the requests of a session end up in the recording in order, privately, without credentials; bad recording flags and paths are refused before anything is opened; a timed-out shutdown still closes the recording.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_FILE_BYTES_MIN } from '../../src/recording/recording-limits.js';
import { openRecording } from '../../src/recording/recording-reader.js';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import { CLI, ROOT, ensureBuilt, startServe, tokenFor, type ServeProcess } from './serve-process.js';
import { readRecordingFile } from '../support/read-recording.js';
import { waitFor } from './strata-reads.js';

/** Exit code of a usage error. */
const EXIT_USAGE = 2;
/** How long a request sent to the server may take to show as in flight on /metrics (a loaded machine included). */
const IN_FLIGHT_WAIT_MS = 10_000;

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
    const { header, frames } = await readRecordingFile(file);
    expect(header.producer).toMatch(/^strata \S+ serve$/);
    // The data directory's path stays on the machine: a recording is meant to be shared.
    expect(header.description).toBe('ingest and query requests to strata serve on an ephemeral port');
    expect(readFileSync(file).includes(Buffer.from(data))).toBe(false);
    expect(header.sequence).toBe(0);
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

  /** Runs `strata serve` expecting it to refuse to start; its exit code, stdout and stderr. */
  function refusedServe(data: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data', data, '--no-agent-endpoint', ...args], { cwd: ROOT, encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('refuses a --record path it cannot open with CONFIG_INVALID (exit 2) before anything else is opened: no admin is created whose key nobody sees', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const data = join(dir, 'data');
    const missing = join(dir, 'no-such-dir', 'session.recording');
    const refused = refusedServe(data, ['--record', missing]);
    expect(refused.status).toBe(EXIT_USAGE);
    expect(refused.stderr).toContain('CONFIG_INVALID: --record');
    expect(refused.stderr).toContain(missing);
    expect(refused.stderr).toContain('its directory does not exist (ENOENT)');
    expect(refused.stdout).toBe('');
    expect(existsSync(data)).toBe(false);
    // The next start creates the first-run admin and shows its key.
    const server = await startServe(data, ['--record', join(dir, 'session.recording')]);
    running.push(server);
    expect(server.stdout).toMatch(/apiKey: \S+/);
  });

  it('refuses a --record path inside the data directory (also through a link), leaving the identity database as it was', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const data = join(dir, 'data');
    const first = await startServe(data);
    const apiKey = /apiKey: (\S+)/.exec(first.stdout)?.[1] as string;
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const identity = join(data, 'identity.sqlite');
    const before = readFileSync(identity);
    symlinkSync(data, join(dir, 'link-to-data'));
    mkdirSync(join(data, 'recordings'));
    for (const path of [identity, join(data, 'recordings', 'r.recording'), join(dir, 'link-to-data', 'r.recording')]) {
      const refused = refusedServe(data, ['--record', path]);
      expect(refused.status, path).toBe(EXIT_USAGE);
      expect(refused.stderr).toContain('CONFIG_INVALID: --record');
      expect(refused.stderr).toContain('inside the data directory');
    }
    expect(readFileSync(identity).equals(before)).toBe(true);
    expect(readdirSync(join(data, 'recordings'))).toEqual([]);
    const again = await startServe(data, ['--record', join(dir, 'ok.recording')]);
    running.push(again);
    expect((await tokenFor(again.url, 'admin', apiKey)).length).toBeGreaterThan(0);
  });

  it('keeps the recording of an earlier run as FILE.1 and starts FILE anew', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const data = join(dir, 'data');
    const file = join(dir, 'session.recording');
    for (let run = 0; run < 2; run += 1) {
      const server = await startServe(data, ['--record', file]);
      running.push(server);
      const response = await fetch(`${server.url}/metrics/v2.0/100000/metrics/search?query=run${run}`);
      expect(response.status).toBe(401);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    const urls: string[] = [];
    for (const path of [`${file}.1`, file]) {
      const reader = await openRecording(path);
      for await (const frame of reader.frames()) if (frame.kind === 'exchange') urls.push(frame.url);
      await reader.close();
    }
    expect(urls).toEqual(['/metrics/v2.0/100000/metrics/search?query=run0', '/metrics/v2.0/100000/metrics/search?query=run1']);
  });

  it('closes the recording when the graceful shutdown times out on a request that never finishes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-record-'));
    const file = join(dir, 'stalled.recording');
    const server = await startServe(join(dir, 'data'), ['--record', file, '--shutdown-timeout', '1', '--log-level', 'info']);
    running.push(server);
    let stderr = '';
    server.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const apiKey = /apiKey: (\S+)/.exec(server.stdout)?.[1] as string;
    const token = await tokenFor(server.url, 'admin', apiKey);
    const search = await fetch(`${server.url}/metrics/v2.0/100000/metrics/search?query=a.*`, { headers: { 'x-auth-token': token } });
    expect(search.status).toBe(200);
    // An upload that promises 1000 bytes and sends 10: the server waits for the rest, so the shutdown cannot finish.
    const target = new URL('/ingest/v2.0/100000/ingest', server.url);
    const stalled = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000', 'x-auth-token': token } });
    stalled.on('error', () => undefined);
    stalled.write('[{"metric');
    stalled.flushHeaders();
    // SIGTERM only once the server has admitted the upload (it then waits for its body): before, the shutdown would be clean.
    let scraped = '';
    await waitFor(
      async () => {
        scraped = await (await fetch(`${server.url}/metrics`)).text();
        return /^strata_admission_in_flight_requests\{work="ingest"\} 1$/m.test(scraped) ? true : undefined;
      },
      IN_FLIGHT_WAIT_MS,
      () => `the stalled upload never showed as in flight; /metrics said:\n${scraped.split('\n').filter((line) => line.includes('in_flight')).join('\n')}`,
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    stalled.destroy();
    expect(stderr).toContain('shutdown timed out');
    expect(stderr).toContain('recording closed');
    const reader = await openRecording(file);
    const urls: string[] = [];
    for await (const frame of reader.frames()) if (frame.kind === 'exchange') urls.push(frame.url);
    await reader.close();
    expect(urls).toEqual(['/metrics/v2.0/100000/metrics/search?query=a.*']);
  });
});
