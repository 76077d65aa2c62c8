// Tests the remote.http probe's redirects against real loopback servers: followed or not, the hop limit, the guard on every hop, credentials kept to their origin.
import { afterEach, describe, expect, it } from 'vitest';
import { HTTP_CHECK_REDIRECTS_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import { httpCheck, probeContext, startServer, type Handler, type TestServer } from './http-probe-harness.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler, host?: string): Promise<TestServer> {
  const server = await startServer(handler, host);
  servers.push(server);
  return server;
}

/** Answers `/final` with 200 and every other path with `code` to `location(path)`. */
function redirecting(code: number, location: (path: string) => string): Handler {
  return (req, res) => {
    if (req.url?.endsWith('/final') === true) {
      res.writeHead(200);
      res.end('arrived');
      return;
    }
    res.writeHead(code, { location: location(req.url ?? '/') });
    res.end('moved');
  };
}

describe('httpProbe redirects', () => {
  it('follows a relative redirect by default and reports the final response', async () => {
    const server = await serve(redirecting(302, () => 'final'));
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/start/'), body: 'arrived' })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['code']?.data).toBe('200');
    expect(outcome.metrics['body_match']?.data).toBe('arrived');
    expect(server.received.map((r) => r.url)).toEqual(['/start/', '/start/final']);
  });

  it('reports the redirect itself when follow_redirects is false', async () => {
    const server = await serve(redirecting(301, () => '/final'));
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/old'), follow_redirects: false })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['code']?.data).toBe('301');
    expect(outcome.metrics['bytes']?.data).toBe(5);
    expect(server.received).toHaveLength(1);
  });

  it(`stops a redirect loop after ${HTTP_CHECK_REDIRECTS_MAX} redirects`, async () => {
    const server = await serve(redirecting(302, () => '/loop'));
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/loop') })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe(`too many redirects (more than ${HTTP_CHECK_REDIRECTS_MAX})`);
    expect(outcome.metrics['code']?.data).toBe('302');
    expect(server.received).toHaveLength(HTTP_CHECK_REDIRECTS_MAX + 1);
  });

  it('refuses a redirect to a denied range without connecting to it', async () => {
    const inside = await serve(redirecting(302, () => '/final'), '127.0.0.2');
    const outside = await serve(redirecting(302, () => inside.url('/final')));
    const guard = new AddressGuard(['127.0.0.2/32']);
    const outcome = await httpProbe(probeContext(httpCheck({ url: outside.url('/') }), { guard }));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('address 127.0.0.2 is denied by the operator (--check-deny)');
    expect(outcome.metrics['code']?.data).toBe('302');
    expect(inside.received).toHaveLength(0);
    const allowed = await httpProbe(probeContext(httpCheck({ url: outside.url('/') })));
    expect(allowed.metrics['code']?.data).toBe('200');
    expect(inside.received).toHaveLength(1);
  });

  it('resolves a redirect to another host name anew, honouring target_resolver', async () => {
    const target = await serve(redirecting(302, () => '/final'));
    const first = await serve(redirecting(307, () => `http://localhost:${target.port}/final`));
    const check = httpCheck({ url: first.url('/') }, { target_resolver: 'IPv4' });
    const outcome = await httpProbe(probeContext(check));
    expect(outcome.metrics['code']?.data).toBe('200');
    expect(target.received[0]?.headers.host).toBe(`localhost:${target.port}`);
    const unknown = await serve(redirecting(302, () => 'http://no-such-host.invalid/'));
    const failed = await httpProbe(probeContext(httpCheck({ url: unknown.url('/') })));
    expect(failed.available).toBe(false);
    expect(failed.status).toBe('could not resolve no-such-host.invalid: ENOTFOUND');
  });

  it('keeps the target address for a redirect on the same host name', async () => {
    const server = await serve(redirecting(302, () => '/final'));
    const moved = await serve(redirecting(302, () => `http://www.example.test:${server.port}/final`));
    const outcome = await httpProbe(probeContext(httpCheck({ url: `http://www.example.test:${moved.port}/` })));
    expect(outcome.metrics['code']?.data).toBe('200');
    expect(server.received[0]?.headers.host).toBe(`www.example.test:${server.port}`);
  });

  it('sends credentials only to the origin of the check URL', async () => {
    const other = await serve(redirecting(302, () => '/final'));
    const home = await serve((req, res) => {
      if (req.url === '/here') {
        res.writeHead(302, { location: '/there' });
      } else if (req.url === '/there') {
        res.writeHead(302, { location: other.url('/final') });
      }
      res.end();
    });
    const check = httpCheck({ url: home.url('/here'), auth_user: 'u', auth_password: 'p', headers: { Cookie: 'session=1', 'X-Plain': 'kept' } });
    const outcome = await httpProbe(probeContext(check));
    expect(outcome.metrics['code']?.data).toBe('200');
    expect(home.received.map((r) => Boolean(r.headers.authorization && r.headers.cookie))).toEqual([true, true]);
    expect(other.received[0]?.headers.authorization).toBeUndefined();
    expect(other.received[0]?.headers.cookie).toBeUndefined();
    expect(other.received[0]?.headers['x-plain']).toBe('kept');
  });

  it('turns POST into GET on 303 and keeps method and payload on 307', async () => {
    const see = await serve(redirecting(303, () => '/final'));
    await httpProbe(probeContext(httpCheck({ url: see.url('/form'), method: 'POST', payload: 'a=1' })));
    expect(see.received.map((r) => `${r.method} ${r.body}`)).toEqual(['POST a=1', 'GET ']);
    const temporary = await serve(redirecting(307, () => '/final'));
    await httpProbe(probeContext(httpCheck({ url: temporary.url('/form'), method: 'POST', payload: 'a=1' })));
    expect(temporary.received.map((r) => `${r.method} ${r.body}`)).toEqual(['POST a=1', 'POST a=1']);
  });

  it('reports a redirect without a usable Location as unavailable', async () => {
    const server = await serve(redirecting(302, () => 'ftp://files.example.test/'));
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/') })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('redirect (code=302) without an http or https Location');
  });
});
