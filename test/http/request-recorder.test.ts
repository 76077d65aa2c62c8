// Tests the request recorder through real HTTP on 127.0.0.1: what reaches the recording (bytes as sent, URLs, tenants, statuses) and what never does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { openDns } from '../../src/dns/dns-service.js';
import { openFeeds } from '../../src/feeds/feeds-service.js';
import { createServer, type StrataServer } from '../../src/http/server.js';
import type { ServerConfigInput } from '../../src/http/server-config.js';
import { isRecordedRoute, withoutCredentials } from '../../src/http/request-recorder.js';
import { openIdentity, type IdentityService } from '../../src/identity/identity-service.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { RECORDING_FILE_BYTES_MIN, RECORDING_QUEUE_BYTES_MAX } from '../../src/recording/recording-limits.js';
import type { RecordedExchange, RecordingFrame, RecordingWriter } from '../../src/recording/recording-types.js';
import { openRecordingWriter } from '../../src/recording/recording-writer.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { gated, type GatedStore } from './gated-store.js';
import { call, KEYS, startHarness } from './harness.js';
import { readRecordingFile } from '../support/read-recording.js';

/** A server with a recorder, and what a test needs to talk to it and read the recording. */
interface Recorded {
  readonly url: string;
  readonly app: StrataServer;
  readonly dir: string;
  readonly file: string;
  readonly gate: GatedStore;
  token(user: keyof typeof KEYS): Promise<string>;
  /** Stops the server, closes the writer and returns the recording's frames. */
  finish(): Promise<RecordingFrame[]>;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts a server on 127.0.0.1:0 recording into a temporary file (or handing requests to `recorder` when given), with the harness users. */
async function startRecorded(config: ServerConfigInput = {}, recorder?: RecordingWriter, holdWrites = false): Promise<Recorded> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-recorder-'));
  const file = join(dir, 'requests.strata-recording');
  const gate = gated(await openStore({ dir, clock: systemClock, workers: 0, background: false }));
  if (!holdWrites) gate.open();
  const store: Store = gate.store;
  const identity: IdentityService = openIdentity({ dir, clock: systemClock });
  identity.createUser({ username: 'alice', tenant: 't1', role: 'admin', apiKey: KEYS.alice });
  identity.createUser({ username: 'olga', tenant: 't1', role: 'observer', apiKey: KEYS.olga });
  identity.createUser({ username: 'bob', tenant: 't2', role: 'admin', apiKey: KEYS.bob });
  const writer =
    recorder ??
    (await openRecordingWriter({
      path: file,
      fileBytesMax: RECORDING_FILE_BYTES_MIN,
      files: 1,
      queueBytesMax: RECORDING_QUEUE_BYTES_MAX,
      producer: 'strata test serve',
      description: 'requests of the recorder test',
      now: () => systemClock.now(),
    }));
  const services = { feeds: openFeeds({ dir, clock: systemClock, region: 'LOCAL' }), dns: openDns({ dir, clock: systemClock }), monitoring: openMonitoring({ dir, clock: systemClock }) };
  const app = await createServer({ store, identity, ...services, clock: systemClock, config, recorder: writer });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    gate.open();
    await app.close();
    await writer.close();
    await store.close();
    identity.close();
    services.feeds.close();
    services.dns.close();
    services.monitoring.close();
  };
  cleanups.push(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url,
    app,
    dir,
    file,
    gate,
    async token(user) {
      const response = await call({ url }, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user, apiKey: KEYS[user] } } } });
      return (response.json as { access: { token: { id: string } } }).access.token.id;
    },
    async finish() {
      await stop();
      return (await readRecordingFile(file)).frames;
    },
  };
}

function exchanges(frames: readonly RecordingFrame[]): RecordedExchange[] {
  return frames.filter((frame): frame is RecordedExchange => frame.kind === 'exchange');
}

const NOW_MS = Date.now();

/** POSTs `body` as JSON with Transfer-Encoding: chunked, in pieces of `pieceBytes`, one write each; resolves with the status. */
function postChunked(url: string, path: string, token: string, body: Buffer, pieceBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const headers = { 'content-type': 'application/json', 'x-auth-token': token, 'transfer-encoding': 'chunked' };
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (let offset = 0; offset < body.length; offset += pieceBytes) req.write(body.subarray(offset, offset + pieceBytes));
    req.end();
  });
}

describe('the request recorder', () => {
  it('records JSON and msgpack ingest bodies byte for byte, ingest/multi, views (GET and POST) and search, with URLs, tenants and statuses', async () => {
    const r = await startRecorded();
    const alice = await r.token('alice');
    const bob = await r.token('bob');
    // Odd spacing and key order: only the bytes as sent reproduce them.
    const json = `[ {"ttlInSeconds":86400, "metricName":"a.b","metricValue":1.5,"collectionTime":${NOW_MS - 60_000}}\n]`;
    const msgpack = pack([{ metricName: 'a.c', metricValue: 7, collectionTime: NOW_MS - 30_000, ttlInSeconds: 86_400, unit: 'ms' }]);
    const multi = JSON.stringify([{ tenantId: 't1', metricName: 'a.d', metricValue: 2, collectionTime: NOW_MS - 20_000, ttlInSeconds: 86_400 }]);
    const view = `/metrics/v2.0/t1/views/a.b?from=${NOW_MS - 3_600_000}&to=${NOW_MS + 1}&points=10`;
    const many = `/metrics/v2.0/t1/views?from=${NOW_MS - 3_600_000}&to=${NOW_MS + 1}&resolution=FULL`;
    const manyBody = '["a.b", "a.c"]';
    const search = '/metrics/v2.0/t2/metrics/search?query=a.%2A';
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: json, type: 'application/json' })).status).toBe(200);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: msgpack, type: 'application/x-msgpack' })).status).toBe(200);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest/multi', { token: alice, body: multi, type: 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await call(r, 'GET', view, { token: alice })).status).toBe(200);
    expect((await call(r, 'POST', many, { token: alice, body: manyBody, type: 'application/json' })).status).toBe(200);
    expect((await call(r, 'GET', search, { token: bob })).status).toBe(200);
    const frames = await r.finish();
    const recorded = exchanges(frames);
    expect(recorded.map(({ method, url, tenant, contentType, status }) => ({ method, url, tenant, contentType, status }))).toEqual([
      { method: 'POST', url: '/ingest/v2.0/t1/ingest', tenant: 't1', contentType: 'application/json', status: 200 },
      { method: 'POST', url: '/ingest/v2.0/t1/ingest', tenant: 't1', contentType: 'application/x-msgpack', status: 200 },
      { method: 'POST', url: '/ingest/v2.0/t1/ingest/multi', tenant: 't1', contentType: 'application/json; charset=utf-8', status: 200 },
      { method: 'GET', url: view, tenant: 't1', contentType: null, status: 200 },
      { method: 'POST', url: many, tenant: 't1', contentType: 'application/json', status: 200 },
      { method: 'GET', url: search, tenant: 't2', contentType: null, status: 200 },
    ]);
    expect(Buffer.from(recorded[0]!.body!).toString('utf8')).toBe(json);
    expect(Buffer.from(recorded[1]!.body!).equals(msgpack)).toBe(true);
    expect(Buffer.from(recorded[2]!.body!).toString('utf8')).toBe(multi);
    expect(recorded[3]!.body).toBeNull();
    expect(Buffer.from(recorded[4]!.body!).toString('utf8')).toBe(manyBody);
    expect(recorded[5]!.body).toBeNull();
    for (const exchange of recorded) {
      expect(Number.isSafeInteger(exchange.durationMs) && exchange.durationMs >= 0).toBe(true);
      expect(Number.isSafeInteger(exchange.atMs) && exchange.atMs >= 0).toBe(true);
    }
    // Arrival order is file order, and atMs never decreases.
    expect(recorded.map((exchange) => exchange.atMs)).toEqual([...recorded.map((exchange) => exchange.atMs)].sort((a, b) => a - b));
  });

  it('keeps a large body sent in chunks (Transfer-Encoding: chunked) whole, bytes as sent', async () => {
    const r = await startRecorded();
    const alice = await r.token('alice');
    const points = Array.from({ length: 20_000 }, (_, k) => ({ metricName: `big.m${k % 50}`, metricValue: k, collectionTime: NOW_MS - 100_000 + k, ttlInSeconds: 86_400 }));
    const body = Buffer.from(JSON.stringify(points));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const status = await postChunked(r.url, '/ingest/v2.0/t1/ingest', alice, body, 100_003);
    expect(status).toBe(200);
    const [only] = exchanges(await r.finish());
    expect(Buffer.from(only!.body!).equals(body)).toBe(true);
  });

  it('never records credentials, headers, identity, monitoring or operational requests', async () => {
    const r = await startRecorded();
    const alice = await r.token('alice');
    const batch = JSON.stringify([{ metricName: 'a.b', metricValue: 1, collectionTime: NOW_MS - 1000, ttlInSeconds: 60 }]);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: batch, type: 'application/json', headers: { 'x-secret-header': 'header-value-9137' } })).status).toBe(200);
    // Basic credentials on a recorded route (refused: the metrics APIs take tokens).
    const basic = `Basic ${Buffer.from(`alice:${KEYS.alice}`).toString('base64')}`;
    await call(r, 'GET', '/metrics/v2.0/t1/metrics/search?query=a.*', { headers: { authorization: basic } });
    expect((await call(r, 'GET', '/monitoring/v1.0/t1/agents', { token: alice })).status).toBe(200);
    expect((await call(r, 'GET', '/healthz')).status).toBe(200);
    expect((await call(r, 'GET', '/metrics', { token: alice })).status).toBeLessThan(500);
    // Other methods on a recorded URL (405) and HEAD of a view are not the recorded routes.
    expect((await call(r, 'PUT', '/ingest/v2.0/t1/ingest', { token: alice, body: batch, type: 'application/json' })).status).toBe(405);
    await call(r, 'HEAD', '/metrics/v2.0/t1/views/a.b?from=1&to=2&points=1', { token: alice });
    const frames = await r.finish();
    const recorded = exchanges(frames);
    expect(recorded.map((exchange) => `${exchange.method} ${exchange.url.split('?')[0]}`)).toEqual(['POST /ingest/v2.0/t1/ingest', 'GET /metrics/v2.0/t1/metrics/search']);
    const bytes = readFileSync(r.file);
    for (const secret of [alice, KEYS.alice, KEYS.olga, KEYS.bob, 'header-value-9137', basic, Buffer.from(`alice:${KEYS.alice}`).toString('base64')]) {
      expect(bytes.includes(Buffer.from(secret)), `the recording holds ${secret}`).toBe(false);
    }
    for (const name of ['x-auth-token', 'X-Auth-Token', 'authorization', 'x-secret-header', '/v2.0/tokens', '/monitoring/', '/healthz']) {
      expect(bytes.includes(Buffer.from(name)), `the recording holds ${name}`).toBe(false);
    }
  });

  it('records refused and failed requests with their status: 401, 403, invalid JSON, and 503 from admission', async () => {
    const r = await startRecorded({ admission: { ingest: { concurrency: 1, queueMax: 0 } } }, undefined, true);
    const alice = await r.token('alice');
    const olga = await r.token('olga');
    const batch = (name: string): string => JSON.stringify([{ metricName: name, metricValue: 1, collectionTime: NOW_MS - 1000, ttlInSeconds: 60 }]);
    const broken = '[{"metricName": "a.b", "metricValue": 1,';
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { body: batch('x'), type: 'application/json' })).status).toBe(401);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: olga, body: batch('x'), type: 'application/json' })).status).toBe(403);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: broken, type: 'application/json' })).status).toBe(400);
    expect((await call(r, 'POST', '/metrics/v2.0/t1/views?from=1&to=2&points=1', { token: alice, body: '["a.b"', type: 'application/json' })).status).toBe(400);
    // One ingest held at the store's gate takes the only ingest slot; the next is refused on arrival, and answered first.
    const held = call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: batch('held'), type: 'application/json' });
    while (r.gate.entered() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: batch('refused'), type: 'application/json' })).status).toBe(503);
    r.gate.open();
    expect((await held).status).toBe(200);
    const recorded = exchanges(await r.finish());
    expect(recorded.map(({ status, tenant }) => ({ status, tenant }))).toEqual([
      { status: 401, tenant: 't1' },
      { status: 403, tenant: 't1' },
      { status: 400, tenant: 't1' },
      { status: 400, tenant: 't1' },
      // Frames follow the responses: the refused request finished before the held one.
      { status: 503, tenant: 't1' },
      { status: 200, tenant: 't1' },
    ]);
    // Refused before the body was read: nothing of it was received.
    expect(recorded[0]!.body).toBeNull();
    expect(recorded[0]!.contentType).toBe('application/json');
    expect(Buffer.from(recorded[2]!.body!).toString('utf8')).toBe(broken);
    expect(Buffer.from(recorded[3]!.body!).toString('utf8')).toBe('["a.b"');
    expect(recorded[4]!.body).toBeNull();
    expect(Buffer.from(recorded[5]!.body!).toString('utf8')).toBe(batch('held'));
    // The held request arrived before the refused one: its atMs is raised to keep the file's atMs from decreasing.
    expect(recorded[5]!.atMs).toBeGreaterThanOrEqual(recorded[4]!.atMs);
  });

  it('never fails a request when the recorder throws, and reports the writer on /metrics', async () => {
    let calls = 0;
    const throwing: RecordingWriter = {
      record() {
        calls += 1;
        throw new Error('a broken recorder');
      },
      append: async () => undefined,
      stats: () => ({ framesWritten: 41, bytesWritten: 4096, dropped: 3, rotations: 2, queuedBytes: 17 }),
      close: async () => undefined,
    };
    const r = await startRecorded({}, throwing);
    const alice = await r.token('alice');
    const batch = JSON.stringify([{ metricName: 'a.b', metricValue: 1, collectionTime: NOW_MS - 1000, ttlInSeconds: 60 }]);
    expect((await call(r, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: batch, type: 'application/json' })).status).toBe(200);
    expect((await call(r, 'GET', '/metrics/v2.0/t1/metrics/search?query=a.*', { token: alice })).status).toBe(200);
    expect(calls).toBe(2);
    const metrics = (await call(r, 'GET', '/metrics', { token: alice })).text;
    expect(metrics).toMatch(/^strata_recording_frames_total 41$/m);
    expect(metrics).toMatch(/^strata_recording_bytes_total 4096$/m);
    expect(metrics).toMatch(/^strata_recording_dropped_total 3$/m);
    expect(metrics).toMatch(/^strata_recording_rotations_total 2$/m);
    expect(metrics).toMatch(/^strata_recording_queued_bytes 17$/m);
    // framesWritten never counts file headers, and the help text says so.
    expect(metrics).toMatch(/^# HELP strata_recording_frames_total .*requests and gap frames \(file headers are not counted\)/m);
  });

  it('installs its hooks only when given a writer: without one a server has no preParsing hook at all', async () => {
    const plain = await startHarness({});
    cleanups.push(() => plain.close());
    const recording = await startRecorded();
    const hooksOf = (app: StrataServer): string => app.printRoutes({ includeHooks: true, commonPrefix: false });
    expect(hooksOf(plain.app)).not.toContain('preParsing');
    expect(hooksOf(recording.app)).toContain('preParsing');
  });

  it('drops query parameters that look like credentials from recorded URLs, keeping the rest as sent', async () => {
    const r = await startRecorded();
    const alice = await r.token('alice');
    const secrets = ['tok-5521', 'key-7731', 'sig-8812', 'cred-9901', 'sess-4410', 'pw-3321', 'auth-1187'];
    const search = `/metrics/v2.0/t1/metrics/search?query=a.%2A&token=${secrets[0]}&apiKey=${secrets[1]}&X-Amz-Signature=${secrets[2]}&x-amz-credential=${secrets[3]}`;
    const view = `/metrics/v2.0/t1/views/a.b?from=1&SESSION_ID=${secrets[4]}&to=2&%70assword=${secrets[5]}&points=1&oauth=${secrets[6]}`;
    await call(r, 'GET', search, { token: alice });
    await call(r, 'GET', view, { token: alice });
    const batch = JSON.stringify([{ metricName: 'a.b', metricValue: 1, collectionTime: NOW_MS - 1000, ttlInSeconds: 60 }]);
    await call(r, 'POST', `/ingest/v2.0/t1/ingest?access_token=${secrets[0]}`, { token: alice, body: batch, type: 'application/json' });
    const recorded = exchanges(await r.finish());
    expect(recorded.map((exchange) => exchange.url)).toEqual(['/metrics/v2.0/t1/metrics/search?query=a.%2A', '/metrics/v2.0/t1/views/a.b?from=1&to=2&points=1', '/ingest/v2.0/t1/ingest']);
    const bytes = readFileSync(r.file);
    for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), `the recording holds ${secret}`).toBe(false);
  });

  it('withoutCredentials leaves a URL without credential parameters unchanged, byte for byte', () => {
    for (const url of ['/a', '/a?', '/a?from=1&&to=2&select=average,max&query=a.%2A&resolution=FULL&points=10', '/a?=x&%zz=1&from']) {
      expect(withoutCredentials(url)).toBe(url);
    }
    expect(withoutCredentials('/a?token=1')).toBe('/a');
    expect(withoutCredentials('/a?x=1&Api_Key=2&y&passwd=3&%74oken=4&z=%E2%82%AC')).toBe('/a?x=1&y&z=%E2%82%AC');
  });

  it('withoutCredentials keeps exactly the parameters whose names match no credential word, in order (property)', () => {
    const words = ['token', 'KEY', 'Secret', 'pass', 'auth', 'sig', 'credential', 'session'];
    // No '%': a percent-encoded name could spell a credential word (the unit test above covers decoding).
    const plain = fc.stringMatching(/^[a-j0-9._-]{0,8}$/);
    const credential = fc.tuple(plain, fc.constantFrom(...words), plain).map(([before, word, after]) => `${before}${word}${after}`);
    const parameter = fc.tuple(fc.oneof(plain, credential), fc.option(plain)).map(([name, value]) => ({ text: value === null ? name : `${name}=${value}`, secret: words.some((w) => name.toLowerCase().includes(w.toLowerCase())) }));
    fc.assert(
      fc.property(fc.array(parameter, { minLength: 1, maxLength: 8 }), (parameters) => {
        const url = `/metrics/v2.0/t/views/m?${parameters.map((p) => p.text).join('&')}`;
        const kept = parameters.filter((p) => !p.secret).map((p) => p.text);
        const expected = parameters.every((p) => !p.secret) ? url : kept.length === 0 ? '/metrics/v2.0/t/views/m' : `/metrics/v2.0/t/views/m?${kept.join('&')}`;
        expect(withoutCredentials(url)).toBe(expected);
      }),
    );
  });

  it('names exactly the five replayed routes', () => {
    expect(isRecordedRoute('POST', '/ingest/v2.0/:tenant/ingest')).toBe(true);
    expect(isRecordedRoute('POST', '/ingest/v2.0/:tenant/ingest/multi')).toBe(true);
    expect(isRecordedRoute('GET', '/metrics/v2.0/:tenant/views/:metricName')).toBe(true);
    expect(isRecordedRoute('POST', '/metrics/v2.0/:tenant/views')).toBe(true);
    expect(isRecordedRoute('GET', '/metrics/v2.0/:tenant/metrics/search')).toBe(true);
    expect(isRecordedRoute('HEAD', '/metrics/v2.0/:tenant/views/:metricName')).toBe(false);
    expect(isRecordedRoute('POST', '/v2.0/tokens')).toBe(false);
    expect(isRecordedRoute('GET', undefined)).toBe(false);
  });
});
