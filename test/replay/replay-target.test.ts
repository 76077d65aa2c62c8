// Tests replay's target client against a real in-process server (auth, re-auth on expiry) and raw sockets (timeouts, resets, the socket bound).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isStrataError } from '../../src/core/errors.js';
import { REPLAY_REAUTH_INTERVAL_MS } from '../../src/replay/replay-limits.js';
import { connectTarget, type ReplayTarget } from '../../src/replay/replay-target.js';
import { openStore } from '../../src/store.js';
import { KEYS, call, startHarness, type Harness } from '../http/harness.js';

const HOUR_MS = 3_600_000;

let target: ReplayTarget | undefined;
afterEach(() => {
  target?.close();
  target = undefined;
});

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; details: Record<string, unknown>; message: string } | undefined> {
  try {
    await promise;
  } catch (error) {
    if (isStrataError(error)) return { code: error.code, details: { ...error.details }, message: error.message };
    throw error;
  }
  return undefined;
}

/** A raw HTTP server on 127.0.0.1 with a handler; tracks sockets so the test can close it. */
async function rawServer(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ url: string; server: Server; sockets: Set<Socket>; peakSockets: () => number; connections: () => number }> {
  const server = createHttpServer(handler);
  const sockets = new Set<Socket>();
  let peak = 0;
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    peak = Math.max(peak, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, sockets, peakSockets: () => peak, connections: () => connections };
}

function closeRaw(raw: { server: Server; sockets: Set<Socket> }): Promise<void> {
  for (const socket of raw.sockets) socket.destroy();
  return new Promise((resolve) => raw.server.close(() => resolve()));
}

/** Answers the token request like Strata's identity API, then hands other requests to `rest`. */
function withTokens(rest: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url === '/v2.0/tokens') {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ access: { token: { id: 'tok', tenant: { id: 'raw' } } } }));
      });
      return;
    }
    rest(req, res);
  };
}

describe('connectTarget against a real server', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    target?.close();
    target = undefined;
    await h?.close();
    h = undefined;
  });

  it("authenticates, learns the user's tenant, and sends requests with the token", async () => {
    h = await startHarness({ makeStore: (dir) => openStore({ dir, workers: 0, background: false }) });
    target = await connectTarget({ url: h.url, username: 'alice', apiKey: KEYS.alice, concurrency: 2 });
    expect(target.tenant).toBe('t1');
    const now = Date.now();
    const body = pack([{ metricName: 'replay.target', metricValue: 7, collectionTime: now - 1000, ttlInSeconds: 3600 }]);
    const ingest = await target.send({ method: 'POST', path: '/ingest/v2.0/t1/ingest', contentType: 'application/x-msgpack', body });
    expect(ingest).toMatchObject({ kind: 'response', status: 200 });
    expect(ingest.kind === 'response' && ingest.latencyUs > 0).toBe(true);
    const view = await call(h, 'GET', `/metrics/v2.0/t1/views/replay.target?from=${now - 5000}&to=${now}&resolution=FULL`, { token: await h.token('alice') });
    expect(view.json.values.map((v: { average: number }) => v.average)).toEqual([7]);
    const forbidden = await target.send({ method: 'GET', path: '/metrics/v2.0/t2/metrics/search?query=*', contentType: null, body: null });
    expect(forbidden).toMatchObject({ kind: 'response', status: 403 });
  });

  it('refuses a wrong API key with REPLAY_AUTH_FAILED and the status', async () => {
    h = await startHarness({ makeStore: (dir) => openStore({ dir, workers: 0, background: false }) });
    const failure = await codeOf(connectTarget({ url: h.url, username: 'alice', apiKey: 'wrong-key-0123456789', concurrency: 1 }));
    expect(failure?.code).toBe('REPLAY_AUTH_FAILED');
    expect(failure?.details['status']).toBe(401);
  });

  it('authenticates again once when the token expired under it, and retries the request', async () => {
    const clock = new ManualClock(Date.now());
    h = await startHarness({ clock, makeStore: (dir) => openStore({ dir, clock, workers: 0, background: false }) });
    target = await connectTarget({ url: h.url, username: 'alice', apiKey: KEYS.alice, concurrency: 4 });
    const search = { method: 'GET', path: '/metrics/v2.0/t1/metrics/search?query=*', contentType: null, body: null } as const;
    expect(await target.send(search)).toMatchObject({ status: 200 });
    clock.advance(25 * HOUR_MS);
    // Several requests meet the expired token at once; each is answered 200 after the re-auth (without it, 401).
    const outcomes = await Promise.all([target.send(search), target.send(search), target.send(search)]);
    expect(outcomes.map((o) => (o.kind === 'response' ? o.status : o.code))).toEqual([200, 200, 200]);
  });
});

describe('connectTarget against raw sockets', () => {
  const raws: Array<{ server: Server; sockets: Set<Socket> }> = [];
  afterEach(async () => {
    await Promise.all(raws.splice(0).map(closeRaw));
  });

  it('makes a target that does not listen REPLAY_TARGET_UNREACHABLE, naming the address and system error', async () => {
    const raw = await rawServer(() => {});
    await closeRaw(raw);
    const failure = await codeOf(connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 1 }));
    expect(failure?.code).toBe('REPLAY_TARGET_UNREACHABLE');
    expect(failure?.details).toMatchObject({ address: raw.url, error: 'ECONNREFUSED' });
  });

  it('says there is no identity API at the URL when the token route is not found (a wrong --target), not that the key was refused', async () => {
    const raw = await rawServer((req, res) => {
      req.resume();
      res.statusCode = 404;
      res.end('no such page');
    });
    raws.push(raw);
    const failure = await codeOf(connectTarget({ url: `${raw.url}/wrong/`, username: 'u', apiKey: 'k', concurrency: 1 }));
    expect(failure?.code).toBe('REPLAY_AUTH_FAILED');
    expect(failure?.details['status']).toBe(404);
    expect(failure?.message).toContain(`no identity API at ${raw.url}/wrong/v2.0/tokens (HTTP 404)`);
    expect(failure?.message).not.toContain('refused');
  });

  it('refuses a server whose token answer has no token (not a Strata server) with REPLAY_AUTH_FAILED', async () => {
    const raw = await rawServer((req, res) => {
      req.resume();
      res.end('{"hello":"world"}');
    });
    raws.push(raw);
    const failure = await codeOf(connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 1 }));
    expect(failure?.code).toBe('REPLAY_AUTH_FAILED');
    expect(failure?.message).toContain('refused the username and API key (status 200)');
  });

  it('asks for a token at most once per REPLAY_REAUTH_INTERVAL_MS when re-authentication keeps failing; the other 401s fail fast', async () => {
    let tokenRequests = 0;
    const raw = await rawServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v2.0/tokens') {
          tokenRequests++;
          // The first authentication works; every later one is refused (the key was revoked under the run).
          res.statusCode = tokenRequests === 1 ? 200 : 401;
          res.end(tokenRequests === 1 ? JSON.stringify({ access: { token: { id: 'tok', tenant: { id: 'raw' } } } }) : '{}');
          return;
        }
        res.statusCode = 401;
        res.end();
      });
    });
    raws.push(raw);
    let nowUs = 0;
    target = await connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 1, nowUs: () => nowUs });
    const request = { method: 'GET', path: '/metrics/v2.0/raw/metrics/search?query=a', contentType: null, body: null } as const;
    for (let i = 0; i < 20; i++) expect(await target.send(request)).toMatchObject({ kind: 'response', status: 401 });
    // One re-auth within the interval (the clock stands still), not one per 401.
    expect(tokenRequests).toBe(2);
    nowUs += REPLAY_REAUTH_INTERVAL_MS * 1000;
    for (let i = 0; i < 5; i++) expect(await target.send(request)).toMatchObject({ kind: 'response', status: 401 });
    expect(tokenRequests).toBe(3);
  });

  it("counts the 401, the re-authentication and the retry in a retried request's latency", async () => {
    const holdMs = 150;
    let tokenRequests = 0;
    const raw = await rawServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v2.0/tokens') {
          tokenRequests++;
          res.end(JSON.stringify({ access: { token: { id: `tok${tokenRequests}`, tenant: { id: 'raw' } } } }));
          return;
        }
        // The first token has expired: its 401 comes slowly; the fresh token is answered at once.
        if (req.headers['x-auth-token'] === 'tok1') {
          setTimeout(() => {
            res.statusCode = 401;
            res.end();
          }, holdMs);
          return;
        }
        res.end('ok');
      });
    });
    raws.push(raw);
    target = await connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 1 });
    const outcome = await target.send({ method: 'GET', path: '/x', contentType: null, body: null });
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(tokenRequests).toBe(2);
    expect(outcome.kind === 'response' ? outcome.latencyUs : 0).toBeGreaterThanOrEqual(holdMs * 1000);
  });

  it('counts a request without an answer in time as TIMEOUT and a dropped connection by its code', async () => {
    const raw = await rawServer(
      withTokens((req, res) => {
        if (req.url === '/reset') req.socket.destroy();
        // '/silent' never answers.
        void res;
      }),
    );
    raws.push(raw);
    target = await connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 2, timeoutMs: 200 });
    expect(await target.send({ method: 'GET', path: '/silent', contentType: null, body: null })).toEqual({ kind: 'failure', code: 'TIMEOUT' });
    expect(await target.send({ method: 'GET', path: '/reset', contentType: null, body: null })).toEqual({ kind: 'failure', code: 'ECONNRESET' });
    target.close();
  });

  it('reuses one kept-alive connection for sequential requests (the token request included)', async () => {
    const raw = await rawServer(
      withTokens((req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      }),
    );
    raws.push(raw);
    target = await connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 1 });
    for (let i = 0; i < 25; i++) {
      expect(await target.send({ method: 'POST', path: '/x', contentType: 'text/plain', body: Buffer.from(`hello ${i}`) })).toMatchObject({ kind: 'response', status: 200 });
    }
    expect(raw.connections()).toBe(1);
    target.close();
  });

  it('opens at most `concurrency` connections', async () => {
    const raw = await rawServer(
      withTokens((req, res) => {
        req.resume();
        // Holding each answer a moment makes the requests overlap.
        setTimeout(() => res.end('ok'), 20);
      }),
    );
    raws.push(raw);
    target = await connectTarget({ url: raw.url, username: 'u', apiKey: 'k', concurrency: 3 });
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => target?.send({ method: 'POST', path: '/x', contentType: 'text/plain', body: Buffer.from('hello') })));
    expect(outcomes.every((o) => o?.kind === 'response' && o.status === 200)).toBe(true);
    expect(raw.peakSockets()).toBeLessThanOrEqual(3);
    // 30 requests over at most 3 connections (the token request's among them): connections are reused, not opened per request.
    expect(raw.connections()).toBeLessThanOrEqual(3);
    target.close();
  });

  it('keeps the path prefix of the target URL', async () => {
    const seen: string[] = [];
    const raw = await rawServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ access: { token: { id: 't', tenant: { id: 'x' } } } })));
    });
    raws.push(raw);
    target = await connectTarget({ url: `${raw.url}/strata/`, username: 'u', apiKey: 'k', concurrency: 1 });
    await target.send({ method: 'GET', path: '/metrics/v2.0/x/metrics/search?query=a', contentType: null, body: null });
    target.close();
    expect(seen).toEqual(['/strata/v2.0/tokens', '/strata/metrics/v2.0/x/metrics/search?query=a']);
  });
});
