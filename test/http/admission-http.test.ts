// Tests admission through real HTTP on 127.0.0.1: refusal at arrival with 503 + Retry-After, unread bodies, budgets per kind and tenant, release on abort.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfigInput } from '../../src/http/server-config.js';
import { openStore } from '../../src/store.js';
import { gated, type GatedStore } from './gated-store.js';
import { call, startHarness, type CallResult, type Harness } from './harness.js';

const MIB = 1024 * 1024;
/** Larger than what the kernel and Node buffer for a connection, so reading it all would show. */
const BIG_BODY_BYTES = 12 * MIB;
/**
 * Only proves a refusal did not hang (e.g. wait for the held request's budget). That it came at
 * arrival, before the body, is proven by the server's byte count and the admission refusal counter,
 * not by the clock: sending 12 MiB over loopback on a loaded machine can take a while by itself.
 */
const REFUSAL_HANG_MS = 5_000;

interface Running {
  readonly h: Harness;
  readonly gate: GatedStore;
  /** Bytes the server read from every connection closed so far. */
  bytesRead(): number;
  tokens: { alice: string; bob: string };
}

let running: Running | undefined;

afterEach(async () => {
  running?.gate.open();
  await running?.h.close();
  running = undefined;
});

async function start(config: ServerConfigInput): Promise<Running> {
  let gate!: GatedStore;
  const h = await startHarness({ makeStore: async (dir) => (gate = gated(await openStore({ dir, workers: 0, background: false }))).store, config });
  let read = 0;
  h.app.server.on('connection', (socket: Socket) => socket.once('close', () => (read += socket.bytesRead)));
  running = { h, gate, bytesRead: () => read, tokens: { alice: await h.token('alice'), bob: await h.token('bob') } };
  return running;
}

function batch(name: string): string {
  return JSON.stringify([{ metricName: name, metricValue: 1, collectionTime: Date.now() - 1000, ttlInSeconds: 60 }]);
}

/** A JSON body of about `bytes` bytes (never read by the server in these tests). */
function bigBody(bytes: number): Buffer {
  return Buffer.alloc(bytes, 0x20);
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** Whether the server sent `100 Continue`. */
  readonly continued: boolean;
}

/** A POST with node:http (no keep-alive agent); resolves with the response even if writing the body failed after it. */
function nodePost(url: string, path: string, token: string, body: Buffer | undefined, extra: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'x-auth-token': token, ...extra };
    if (body !== undefined && extra['transfer-encoding'] === undefined) headers['content-length'] = body.length;
    const target = new URL(path, url);
    let continued = false;
    let answered = false;
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString(), continued }));
    });
    // A body write cut short by the server closing after its answer is not the client's failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (extra.expect === '100-continue') {
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
    } else {
      req.end(body);
    }
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts an ingest that waits at the store's gate, and resolves once it is there (with its answer, wrapped so it is not awaited). */
async function hold(r: Running, tenant: 't1' | 't2' = 't1'): Promise<{ answer: Promise<CallResult> }> {
  const before = r.gate.entered();
  const token = tenant === 't1' ? r.tokens.alice : r.tokens.bob;
  const held = call(r.h, 'POST', `/ingest/v2.0/${tenant}/ingest`, { token, body: batch(`held.${before}`), type: 'application/json' });
  held.catch(() => undefined);
  await until(() => r.gate.entered() > before, 'the held request to reach the store');
  return { answer: held };
}

function ingestInFlight(r: Running): { requests: number; bodyBytes: number } | undefined {
  return r.h.app.strata.admission.inFlight().get('ingest');
}

describe('admission over HTTP', () => {
  it('refuses an over-limit request with 503 and Retry-After at once, without reading its body, while a slow request holds the budget', async () => {
    const r = await start({ admission: { ingest: { concurrency: 1, queueMax: 0 } } });
    const held = await hold(r);
    const readBefore = r.bytesRead();
    // undici (fetch) with a 12 MiB body, built before the clock starts.
    const body = bigBody(BIG_BODY_BYTES);
    const started = performance.now();
    const refused = await call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body, type: 'application/json' });
    const fetchMs = performance.now() - started;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toMatchObject({ type: 'systemFailureError', code: 503, details: { code: 'HTTP_OVERLOADED' } });
    expect(refused.json.errors[0].code).toBe('HTTP_OVERLOADED');
    // node:http with the same body: it sees the 503 too, told to close the connection.
    const viaNode = await nodePost(r.h.url, '/ingest/v2.0/t1/ingest', r.tokens.alice, body);
    expect(viaNode.status).toBe(503);
    expect(viaNode.headers['retry-after']).toBe('1');
    expect(viaNode.headers.connection).toBe('close');
    expect(JSON.parse(viaNode.text)).toMatchObject({ details: { code: 'HTTP_OVERLOADED' } });
    // Both answered while the first request still holds the budget, refused by admission on arrival (its request limit).
    expect(r.gate.entered()).toBe(1);
    expect(r.h.app.strata.admission.refusals()).toEqual([{ kind: 'ingest', scope: expect.any(String), limit: 'requests', count: 2 }]);
    expect(fetchMs).toBeLessThan(REFUSAL_HANG_MS);
    // The refused connections closed having read a small part of their bodies, not 2 x 12 MiB.
    await until(() => r.bytesRead() - readBefore > 0, 'the refused connections to close');
    expect(r.bytesRead() - readBefore).toBeLessThan(BIG_BODY_BYTES / 2);
    r.gate.open();
    expect((await held.answer).status).toBe(200);
    await until(() => ingestInFlight(r)?.requests === 0, 'the held request to be released');
  });

  it('counts a request still sending its body as in flight (issue 10: such requests were never counted)', async () => {
    const r = await start({ admission: { ingest: { concurrency: 1, queueMax: 0 } } });
    const port = Number(new URL(r.h.url).port);
    const slow = connect(port, '127.0.0.1');
    slow.on('error', () => undefined);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      slow.on('data', (chunk: Buffer) => (text += chunk.toString()));
      slow.on('close', () => resolve(text));
    });
    const body = batch('slow');
    slow.write(`POST /ingest/v2.0/t1/ingest HTTP/1.1\r\nHost: x\r\nX-Auth-Token: ${r.tokens.alice}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    slow.write(body.slice(0, 10));
    await until(() => ingestInFlight(r)?.requests === 1, 'the slow request to be admitted');
    const refused = await call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body: batch('second'), type: 'application/json' });
    expect(refused.status).toBe(503);
    expect(r.gate.entered()).toBe(0);
    r.gate.open();
    // write, not end: a half-closed client has its request aborted by Node's server.
    slow.write(body.slice(10));
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it('still admits queries while ingest is saturated, and shows it in /metrics', async () => {
    const r = await start({ admission: { ingest: { concurrency: 1, queueMax: 0 } } });
    const held = await hold(r);
    expect((await call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body: batch('x'), type: 'application/json' })).status).toBe(503);
    const plot = await call(r.h, 'GET', `/metrics/v2.0/t1/views/held.0?from=${Date.now() - 3_600_000}&to=${Date.now()}&resolution=FULL`, { token: r.tokens.alice });
    expect(plot.status).toBe(200);
    expect((await call(r.h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: r.tokens.alice })).status).toBe(200);
    const scrape = (await call(r.h, 'GET', '/metrics')).text;
    expect(scrape).toMatch(/strata_admission_in_flight_requests\{work="ingest"\} 1\n/);
    expect(scrape).toMatch(/strata_admission_in_flight_body_bytes\{work="ingest"\} \d+\n/);
    expect(scrape).toMatch(/strata_admission_rejected_total\{work="ingest"\} 1\n/);
    // One request in flight is also the tenant's whole default share (half of 1, rounded up), and the tenant is checked first.
    expect(scrape).toMatch(/strata_admission_budget_refusals_total\{work="ingest",scope="tenant",limit="requests"\} 1\n/);
    r.gate.open();
    await held.answer;
  });

  it("refuses a tenant over its own budget while another tenant's request is admitted", async () => {
    const r = await start({ admission: { ingest: { concurrency: 2, queueMax: 2, tenantRequestsMax: 1 } } });
    const heldT1 = await hold(r, 't1');
    const refused = await call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body: batch('y'), type: 'application/json' });
    expect(refused.status).toBe(503);
    expect(refused.json.details).toMatchObject({ code: 'HTTP_OVERLOADED' });
    const heldT2 = await hold(r, 't2');
    expect(r.h.app.strata.admission.tenantInFlight('ingest', 't2').requests).toBe(1);
    r.gate.open();
    await Promise.all([heldT1.answer, heldT2.answer]);
  });

  it('charges a chunked body (no Content-Length) the body limit, and a declared one its length', async () => {
    const r = await start({ bodyLimitBytes: 4 * MIB, admission: { ingest: { concurrency: 1, queueMax: 3, bodyBytesMax: 4 * MIB, tenantBodyBytesMax: 4 * MIB } } });
    const held = await hold(r);
    // The held request's ~100 bytes plus a chunked body's worst case (the 4 MiB body limit) break the 4 MiB budget.
    const chunked = await nodePost(r.h.url, '/ingest/v2.0/t1/ingest', r.tokens.alice, Buffer.from(batch('chunked')), { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(503);
    expect(JSON.parse(chunked.text).details).toMatchObject({ code: 'HTTP_OVERLOADED' });
    // A declared 1 MiB body fits beside the held one (the bytes, not the count, refused the chunked one).
    const declared = call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body: batch('declared') + ' '.repeat(MIB), type: 'application/json' });
    await until(() => (ingestInFlight(r)?.requests ?? 0) === 2, 'the declared body to be admitted');
    expect(ingestInFlight(r)?.bodyBytes).toBeGreaterThan(MIB);
    r.gate.open();
    expect((await declared).status).toBe(200);
    await held.answer;
  });

  it('with Expect: 100-continue, a refused client never sends its body and an admitted one does', async () => {
    const r = await start({ admission: { ingest: { concurrency: 1, queueMax: 0 } } });
    const held = await hold(r);
    const refused = await nodePost(r.h.url, '/ingest/v2.0/t1/ingest', r.tokens.alice, bigBody(BIG_BODY_BYTES), { expect: '100-continue' });
    expect(refused.status).toBe(503);
    expect(refused.continued).toBe(false);
    r.gate.open();
    await held.answer;
    const admitted = await nodePost(r.h.url, '/ingest/v2.0/t1/ingest', r.tokens.alice, Buffer.from(batch('continued')), { expect: '100-continue' });
    expect(admitted.status).toBe(200);
    expect(admitted.continued).toBe(true);
  });

  it('returns every counter to zero after requests aborted mid-body, mid-work and pipelined', async () => {
    const r = await start({ admission: { ingest: { concurrency: 1, queueMax: 8 } } });
    const port = Number(new URL(r.h.url).port);
    const head = (length: number): string =>
      `POST /ingest/v2.0/t1/ingest HTTP/1.1\r\nHost: x\r\nX-Auth-Token: ${r.tokens.alice}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
      });
    // Mid-body: headers and part of a 1 MiB body, then the client goes away.
    const midBody = await open();
    midBody.write(head(MIB) + '[');
    await until(() => ingestInFlight(r)?.requests === 1, 'the mid-body request to be admitted');
    midBody.destroy();
    await until(() => ingestInFlight(r)?.requests === 0, 'the mid-body abort to release');
    // Mid-work: a whole batch, held at the store's gate, then the client goes away.
    const body = batch('aborted');
    const midWork = await open();
    midWork.write(head(Buffer.byteLength(body)) + body);
    await until(() => r.gate.entered() === 1, 'the mid-work request to reach the store');
    midWork.destroy();
    await until(() => ingestInFlight(r)?.requests === 0, 'the mid-work abort to release');
    // Pipelined: three requests on one connection; the first is held, the others queue behind it.
    const pipelined = await open();
    pipelined.write((head(Buffer.byteLength(body)) + body).repeat(3));
    await until(() => ingestInFlight(r)?.requests === 3, 'the pipelined requests to be admitted');
    pipelined.destroy();
    await until(() => ingestInFlight(r)?.requests === 0, 'the pipelined aborts to release');
    // node:http, aborted while its 12 MiB body is still being sent.
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/ingest/v2.0/t1/ingest', agent: false, headers: { 'content-type': 'application/json', 'x-auth-token': r.tokens.alice, 'content-length': BIG_BODY_BYTES } });
    req.on('error', () => undefined);
    req.write(bigBody(MIB));
    await until(() => ingestInFlight(r)?.requests === 1, 'the streaming request to be admitted');
    req.destroy();
    await until(() => ingestInFlight(r)?.requests === 0, 'the streaming abort to release');
    // The work already started finishes; nothing it does afterwards charges or releases twice.
    r.gate.open();
    await r.h.app.strata.admission.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.h.app.strata.admission.inFlight().get('ingest')).toEqual({ requests: 0, bodyBytes: 0 });
    expect(r.h.app.strata.admission.inFlight().get('query')).toEqual({ requests: 0, bodyBytes: 0 });
    // And the server still admits and answers.
    expect((await call(r.h, 'POST', '/ingest/v2.0/t1/ingest', { token: r.tokens.alice, body: batch('after'), type: 'application/json' })).status).toBe(200);
    await until(() => ingestInFlight(r)?.requests === 0, 'the last request to be released');
  });
});
