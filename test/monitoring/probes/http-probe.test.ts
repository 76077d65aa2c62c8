// Tests the remote.http probe against real loopback HTTP servers: up, refused, slow, wrong status, body patterns, request settings, the body cap.
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HTTP_CHECK_BODY_BYTES_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import { closedPort, httpCheck, probeContext, startServer, type Handler, type TestServer } from './http-probe-harness.js';

/**
 * Generous slack over a probe's timeout or abort that still proves it did not hang. Which path ended
 * the run is proved by its status text, not by how fast it was: a loaded machine delays timers.
 */
const HANG_SLACK_MS = 5_000;

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler, host?: string): Promise<TestServer> {
  const server = await startServer(handler, host);
  servers.push(server);
  return server;
}

const hello: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello, strata monitoring: version 4.2.1');
};

describe('httpProbe on a target that answers', () => {
  it('reports an up target with every spec 2.3 metric, typed and with units', async () => {
    const server = await serve(hello);
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/health?x=1') })));
    expect(outcome.available).toBe(true);
    expect(outcome.status).toMatch(/^code=200,rt=\d+\.\d{3}s,bytes=39$/);
    const m = outcome.metrics;
    expect(Object.keys(m).sort()).toEqual(['bytes', 'code', 'duration', 'truncated', 'tt_connect', 'tt_firstbyte']);
    expect(m['bytes']).toEqual({ type: 'i', data: 39, unit: 'bytes' });
    expect(m['code']).toEqual({ type: 's', data: '200', unit: 'unknown' });
    expect(m['truncated']).toEqual({ type: 'I', data: 0, unit: 'bytes' });
    for (const name of ['duration', 'tt_connect', 'tt_firstbyte']) {
      expect(m[name]?.type).toBe('I');
      expect(m[name]?.unit).toBe('milliseconds');
      expect(Number.isInteger(m[name]?.data)).toBe(true);
    }
    expect(Number(m['tt_connect']?.data)).toBeLessThanOrEqual(Number(m['tt_firstbyte']?.data));
    expect(Number(m['tt_firstbyte']?.data)).toBeLessThanOrEqual(Number(m['duration']?.data));
    expect(outcome.body).toBeUndefined();
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.url).toBe('/health?x=1');
    expect(server.received[0]?.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('connects to the target address while the Host header names the URL host', async () => {
    const server = await serve(hello);
    const check = httpCheck({ url: `http://www.example.test:${server.port}/` });
    const outcome = await httpProbe(probeContext(check));
    expect(outcome.available).toBe(true);
    expect(server.received[0]?.headers.host).toBe(`www.example.test:${server.port}`);
  });

  it('reports a wrong status as available with its code', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503);
      res.end('down for maintenance');
    });
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['code']?.data).toBe('503');
    expect(outcome.status).toMatch(/^code=503,/);
  });

  it('returns the body text with include_body', async () => {
    const server = await serve(hello);
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url(), include_body: true })));
    expect(outcome.body).toBe('hello, strata monitoring: version 4.2.1');
  });

  it('gives body_match the first match, or empty text when the body does not match', async () => {
    const server = await serve(hello);
    const matched = await httpProbe(probeContext(httpCheck({ url: server.url(), body: 'version \\d+\\.\\d+' })));
    expect(matched.metrics['body_match']).toEqual({ type: 's', data: 'version 4.2', unit: 'unknown' });
    const missed = await httpProbe(probeContext(httpCheck({ url: server.url(), body: 'maintenance' })));
    expect(missed.available).toBe(true);
    expect(missed.metrics['body_match']).toEqual({ type: 's', data: '', unit: 'unknown' });
  });

  it('gives one body_match_<key> metric per body_matches entry', async () => {
    const server = await serve(hello);
    const check = httpCheck({ url: server.url(), body_matches: { product: 'strata \\w+', missing: 'nowhere', digit: '\\d' } });
    const outcome = await httpProbe(probeContext(check));
    expect(outcome.metrics['body_match_product']?.data).toBe('strata monitoring');
    expect(outcome.metrics['body_match_missing']?.data).toBe('');
    expect(outcome.metrics['body_match_digit']?.data).toBe('4');
    expect(outcome.metrics['body_match']).toBeUndefined();
  });

  it('sends the method, headers, payload and basic authentication the check sets', async () => {
    const server = await serve(hello);
    const check = httpCheck({
      url: server.url('/submit'),
      method: 'PUT',
      headers: { 'X-Probe': 'yes', 'User-Agent': 'custom-agent' },
      payload: '{"ping":true}',
      auth_user: 'monitor',
      auth_password: 'pa:ss word',
    });
    const outcome = await httpProbe(probeContext(check));
    expect(outcome.available).toBe(true);
    const got = server.received[0];
    expect(got?.method).toBe('PUT');
    expect(got?.body).toBe('{"ping":true}');
    expect(got?.headers['x-probe']).toBe('yes');
    expect(got?.headers['user-agent']).toBe('custom-agent');
    expect(got?.headers['content-length']).toBe('13');
    expect(got?.headers.authorization).toBe(`Basic ${Buffer.from('monitor:pa:ss word').toString('base64')}`);
  });

  it('sends HEAD and reads no body', async () => {
    const server = await serve(hello);
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url(), method: 'HEAD' })));
    expect(server.received[0]?.method).toBe('HEAD');
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['bytes']?.data).toBe(0);
  });

  it('reads at most HTTP_CHECK_BODY_BYTES_MAX bytes and counts the rest from Content-Length', async () => {
    const size = HTTP_CHECK_BODY_BYTES_MAX + 100_000;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': size });
      res.end(Buffer.alloc(size, 'a'));
    });
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url(), include_body: true, body: 'a+$' })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['bytes']?.data).toBe(HTTP_CHECK_BODY_BYTES_MAX);
    expect(outcome.metrics['truncated']?.data).toBe(100_000);
    expect(outcome.body?.length).toBe(HTTP_CHECK_BODY_BYTES_MAX);
    expect(String(outcome.metrics['body_match']?.data).length).toBeGreaterThan(0);
  });

  it('stops reading an endless chunked body at the cap and counts the bytes seen beyond it', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'b');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => undefined);
      pump();
    });
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['bytes']?.data).toBe(HTTP_CHECK_BODY_BYTES_MAX);
    expect(Number(outcome.metrics['truncated']?.data)).toBeGreaterThan(0);
  });
});

describe('httpProbe on a target that fails', () => {
  it('reports a closed port as unavailable: connection refused', async () => {
    const port = await closedPort();
    const outcome = await httpProbe(probeContext(httpCheck({ url: `http://127.0.0.1:${port}/` })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('connection refused');
    expect(outcome.metrics['duration']?.unit).toBe('milliseconds');
    expect(outcome.metrics['code']).toBeUndefined();
  });

  it('settles a target that never answers within the timeout, closing the connection', async () => {
    let closed = false;
    const server = await serve((req) => req.socket.once('close', () => (closed = true)));
    const started = performance.now();
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() }), { timeoutMs: 300 }));
    const tookMs = performance.now() - started;
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('timeout after 300 ms');
    expect(tookMs).toBeGreaterThanOrEqual(290);
    expect(tookMs).toBeLessThan(300 + HANG_SLACK_MS);
    expect(outcome.metrics['tt_connect']?.type).toBe('I');
    expect(Number(outcome.metrics['duration']?.data)).toBeGreaterThanOrEqual(290);
    // The probe closed its end; the server sees the close once the event loop gets to it.
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 10_000, interval: 10 });
    expect(server.received).toHaveLength(1);
  });

  it('stops when the runner aborts its signal', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() }), { timeoutMs: 30_000, signal: controller.signal }));
    // 'cancelled' (not 'timeout after 30000 ms') proves the abort ended the run; the bound, far
    // below that timeout, that it ended without waiting for it.
    expect(performance.now() - started).toBeLessThan(100 + HANG_SLACK_MS);
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('cancelled');
  });

  it('reports a body that stalls past the timeout as unavailable with the code it got', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': 1000 });
      res.write('partial');
    });
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() }), { timeoutMs: 300 }));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('timeout after 300 ms while reading the body (code=200)');
    expect(outcome.metrics['code']?.data).toBe('200');
    expect(outcome.metrics['bytes']?.data).toBe(7);
  });

  it('reports a connection closed before any response', async () => {
    const server = await serve((req) => req.socket.destroy());
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('connection closed before a response');
  });

  it('reports a header value the request cannot carry without echoing it', async () => {
    const server = await serve(hello);
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url(), headers: { 'X-Token': 'secret\r\nInjected: 1' } })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('invalid request (ERR_INVALID_CHAR)');
    expect(server.received).toHaveLength(0);
  });

  it('refuses a target address the guard denies before connecting', async () => {
    const server = await serve(hello);
    const { AddressGuard } = await import('../../../src/monitoring/probes/address-guard.js');
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url() }), { guard: new AddressGuard(['127.0.0.0/8']) }));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('address 127.0.0.1 is denied by the operator (--check-deny)');
    expect(server.received).toHaveLength(0);
  });
});
