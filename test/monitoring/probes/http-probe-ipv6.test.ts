// Tests the remote.http probe against an IPv6 target: a real server on ::1 when the machine has IPv6 loopback, the guard on IPv6 addresses either way.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import { resolveHostAddress } from '../../../src/monitoring/probes/probe-target.js';
import { httpCheck, probeContext, startServer, type TestServer } from './http-probe-harness.js';

/** True when this machine can listen on ::1. */
async function hasIpv6Loopback(): Promise<boolean> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return listening;
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('httpProbe over IPv6', () => {
  it('requests a server on ::1 with a bracketed Host, or, without IPv6 loopback, resolves the literal', async () => {
    if (!(await hasIpv6Loopback())) {
      expect(await resolveHostAddress('[::1]', 'IPv6')).toEqual({ address: '::1', hostname: '::1' });
      return;
    }
    const server = await startServer((_req, res) => res.end('six'), '::1');
    servers.push(server);
    const outcome = await httpProbe(probeContext(httpCheck({ url: server.url('/v6') }), { address: '::1' }));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['bytes']?.data).toBe(3);
    expect(server.received[0]?.headers.host).toBe(`[::1]:${server.port}`);
    const redirected = await startServer((_req, res) => {
      res.writeHead(302, { location: server.url('/moved') });
      res.end();
    });
    servers.push(redirected);
    const hop = await httpProbe(probeContext(httpCheck({ url: redirected.url('/') }), { guard: new AddressGuard(['::1/128']) }));
    expect(hop.available).toBe(false);
    expect(hop.status).toBe('address ::1 is denied by the operator (--check-deny)');
  });

  it('refuses an IPv6 target, or an IPv4-mapped one, in a denied range before connecting', async () => {
    const guard = new AddressGuard(['::1/128', '127.0.0.0/8']);
    const v6 = await httpProbe(probeContext(httpCheck({ url: 'http://[::1]:9/' }), { address: '::1', guard }));
    expect(v6).toMatchObject({ available: false, status: 'address ::1 is denied by the operator (--check-deny)' });
    const mapped = await httpProbe(probeContext(httpCheck({ url: 'http://[::ffff:127.0.0.1]:9/' }), { address: '::ffff:7f00:1', guard }));
    expect(mapped).toMatchObject({ available: false, status: 'address ::ffff:7f00:1 is denied by the operator (--check-deny)' });
  });
});
