// Checks the remote.tcp probe against real loopback TCP and TLS servers: connect, banner, send_body, body_match, bounds, timeouts and the guard.
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { tcpProbe } from '../../../src/monitoring/probes/tcp-probe.js';
import { TCP_CHECK_READ_BYTES_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { closedPort, probeContext, remoteCheck, selfSignedCertificate, startSilentPort, startTcpServer, type TcpServer } from './tcp-probe-harness.js';

const open: TcpServer[] = [];
async function server(onConnection: Parameters<typeof startTcpServer>[0]): Promise<TcpServer> {
  const started = await startTcpServer(onConnection);
  open.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const tcp = (details: Record<string, string | number | boolean>) => remoteCheck('remote.tcp', details);
/**
 * Generous slack over a run's timeout that still proves it did not hang. Which path ended the run
 * is proved by its status text, not by its speed: a loaded machine delays timers.
 */
const HANG_SLACK_MS = 5_000;

describe('remote.tcp probe', () => {
  it('connects and reports connect time and duration, reading nothing when nothing is asked', async () => {
    const target = await server(() => undefined);
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port })));
    expect(outcome.available).toBe(true);
    expect(outcome.status).toMatch(new RegExp(`^port=${target.port},rt=\\d+\\.\\d{3}s$`));
    expect(Object.keys(outcome.metrics).sort()).toEqual(['duration', 'tt_connect']);
    expect(outcome.metrics['tt_connect']).toMatchObject({ type: 'I', unit: 'milliseconds' });
    expect(Number(outcome.metrics['duration']?.data)).toBeGreaterThanOrEqual(Number(outcome.metrics['tt_connect']?.data));
    expect(target.connections()).toBe(1);
  });

  it('reports a refused connection as unavailable', async () => {
    const port = await closedPort();
    const outcome = await tcpProbe(probeContext(tcp({ port })));
    expect(outcome).toMatchObject({ available: false, status: `connection refused on port ${port}` });
    expect(outcome.metrics['duration']).toMatchObject({ type: 'I' });
  });

  it('a connect nobody answers times out at the check timeout', async () => {
    const silent = await startSilentPort();
    try {
      const started = performance.now();
      const outcome = await tcpProbe(probeContext(tcp({ port: silent.port }), { timeoutMs: 400 }));
      const elapsed = performance.now() - started;
      expect(outcome).toMatchObject({ available: false, status: `timed out connecting to port ${silent.port}` });
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(400 + HANG_SLACK_MS);
    } finally {
      await silent.close();
    }
  });

  it('reads the banner, sends send_body after a matching banner and matches the reply', async () => {
    const target = await server((socket) => {
      socket.write('220 mail.example ESMTP ready\r\n');
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('PING')) socket.write('250-one\r\n+PONG 42\r\n');
      });
    });
    const check = tcp({ port: target.port, banner_match: '^220 (\\S+)', send_body: 'PING\r\n', body_match: 'PONG \\d+' });
    const outcome = await tcpProbe(probeContext(check));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics).toMatchObject({
      banner: { type: 's', data: '220 mail.example ESMTP ready' },
      banner_match: { type: 's', data: '220 mail.example' },
      body_match: { type: 's', data: 'PONG 42' },
      tt_firstbyte: { type: 'I', unit: 'milliseconds' },
    });
    expect(Number(outcome.metrics['tt_firstbyte']?.data)).toBeGreaterThanOrEqual(Number(outcome.metrics['tt_connect']?.data));
    expect(target.received[0]).toBe('PING\r\n');
  });

  it('does not send send_body when the banner does not match, and says so in banner_match', async () => {
    const target = await server((socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n'));
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port, banner_match: '^220', send_body: 'QUIT\r\n' })));
    expect(outcome.available).toBe(true);
    expect(outcome.metrics['banner']?.data).toBe('SSH-2.0-OpenSSH_9.2');
    expect(outcome.metrics['banner_match']?.data).toBe('');
    expect(target.received[0]).toBe('');
  });

  it('without banner_match, body_match sees everything the server sends; a reply that ends without a match is body_match ""', async () => {
    const greeting = await server((socket) => socket.end('hello\nworld 7\n'));
    const matched = await tcpProbe(probeContext(tcp({ port: greeting.port, body_match: 'world \\d' })));
    expect(matched).toMatchObject({ available: true, metrics: { body_match: { data: 'world 7' } } });
    const unmatched = await tcpProbe(probeContext(tcp({ port: greeting.port, body_match: 'nothing' })));
    expect(unmatched).toMatchObject({ available: true, metrics: { body_match: { data: '' } } });
  });

  it('bounds what it reads: a banner without a line end is cut at the read limit', async () => {
    const target = await server((socket) => socket.write('x'.repeat(200_000)));
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port, banner_match: '^x+$', body_match: 'y' })));
    expect(outcome.available).toBe(true);
    expect(String(outcome.metrics['banner']?.data)).toHaveLength(TCP_CHECK_READ_BYTES_MAX);
    expect(String(outcome.metrics['banner_match']?.data)).toHaveLength(TCP_CHECK_READ_BYTES_MAX);
  });

  it('a silent server times out within the check timeout, keeping what was measured', async () => {
    const target = await server(() => undefined);
    const started = performance.now();
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port, banner_match: '.' }), { timeoutMs: 300 }));
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ available: false, status: 'timed out waiting for the banner' });
    expect(outcome.metrics['tt_connect']).toBeDefined();
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + HANG_SLACK_MS);
  });

  it('a reply that never matches on an open connection times out; the runner aborting ends the run too', async () => {
    const target = await server((socket) => socket.write('partial reply'));
    const timedOut = await tcpProbe(probeContext(tcp({ port: target.port, body_match: 'never' }), { timeoutMs: 300 }));
    expect(timedOut).toMatchObject({ available: false, status: 'timed out waiting for a reply', metrics: { body_match: { data: '' } } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await tcpProbe(probeContext(tcp({ port: target.port, body_match: 'never' }), { signal: controller.signal }));
    expect(aborted).toMatchObject({ available: false, status: 'timed out waiting for a reply' });
  });

  it('a connection reset before the banner is unavailable', async () => {
    const target = await server((socket) => void setTimeout(() => socket.resetAndDestroy(), 50));
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port, banner_match: '.' })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('connection lost waiting for the banner');
  });

  it('refuses an address the operator denied without connecting', async () => {
    const target = await server(() => undefined);
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port }), { guard: new AddressGuard(['127.0.0.0/8']) }));
    expect(outcome).toMatchObject({ available: false, status: 'address 127.0.0.1 is denied by the operator (--check-deny)' });
    expect(target.connections()).toBe(0);
  });

  it('an unsafe stored pattern makes the run unavailable instead of running it', async () => {
    const target = await server(() => undefined);
    const outcome = await tcpProbe(probeContext(tcp({ port: target.port, body_match: '(a+)+$' })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toMatch(/not a safe regular expression/);
    expect(target.connections()).toBe(0);
  });

  describe('over TLS', () => {
    let tls: TlsServer;
    let port: number;
    beforeAll(async () => {
      tls = createTlsServer(selfSignedCertificate(), (socket) => {
        socket.write('* OK IMAP ready\r\n');
        socket.on('data', (chunk: Buffer) => {
          if (chunk.toString().startsWith('a1 CAPABILITY')) socket.end('a1 OK done\r\n');
        });
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', () => resolve()));
      port = (tls.address() as AddressInfo).port;
      return () => new Promise<void>((resolve) => tls.close(() => resolve()));
    }, 300_000);

    it('speaks TLS when ssl is set and reports the certificate verdict without enforcing it', async () => {
      const check = tcp({ port, ssl: true, banner_match: '^\\* OK', send_body: 'a1 CAPABILITY\r\n', body_match: 'a1 OK' });
      const outcome = await tcpProbe(probeContext(check, { hostname: 'localhost' }));
      expect(outcome.available).toBe(true);
      expect(outcome.metrics).toMatchObject({ banner_match: { data: '* OK' }, body_match: { data: 'a1 OK' } });
      expect(String(outcome.metrics['cert_error']?.data)).toMatch(/SELF_SIGNED|self.signed/i);
    });

    it('a plain server behind ssl=true fails the handshake as unavailable', async () => {
      const plain = await server((socket) => socket.write('hello\r\n'));
      const outcome = await tcpProbe(probeContext(tcp({ port: plain.port, ssl: true })));
      expect(outcome.available).toBe(false);
      expect(outcome.status).toMatch(new RegExp(`^(TLS handshake failed|connection reset|connection to port) .*${plain.port}`));
    });
  });
});
