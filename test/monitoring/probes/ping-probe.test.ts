// Checks the remote.ping probe for real: ICMP through the system's ping program on loopback, and the TCP method it falls back to.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureProgram, hasProgram } from '../../support/debian-program.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { pingArguments } from '../../../src/monitoring/probes/ping-icmp.js';
import { createPingProbe, pingProbe } from '../../../src/monitoring/probes/ping-probe.js';
import { probeContext, remoteCheck, startSilentPort, startTcpServer } from './tcp-probe-harness.js';

/** A path no ping program lives at: the probe must fall back to TCP pings. */
const MISSING_PROGRAM = '/nonexistent/strata-test/ping';
/** TEST-NET-3 (RFC 5737): a documentation address no host answers pings for. */
const UNANSWERED = '203.0.113.1';

const ping = (count: number) => remoteCheck('remote.ping', { count });
/**
 * Generous slack over a run's timeout that still proves it did not hang. Which path ended a run is
 * proved by its status (what was sent and received), not by its speed: a loaded machine delays timers.
 */
const HANG_SLACK_MS = 5_000;
/** The probe context's default timeout: no round trip a run reports can be longer. */
const DEFAULT_TIMEOUT_S = 5;
/**
 * A loopback round trip is well under a millisecond, but event-loop lag on a loaded machine (and
 * the scheduling of the ping program) inflates it, so a tight bound proves nothing but the load:
 * assert a positive round trip, in seconds, below the run's timeout.
 */
function expectRoundTrip(seconds: number): void {
  expect(Number.isFinite(seconds)).toBe(true);
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThan(DEFAULT_TIMEOUT_S);
}

describe('remote.ping probe by ICMP', () => {
  beforeAll(() => {
    ensureProgram('ping', 'iputils-ping');
    expect(hasProgram('ping')).toBe(true);
  }, 300_000);

  it('pings loopback with the ping program and reports the reference metrics', async () => {
    const outcome = await pingProbe(probeContext(ping(3)));
    expect(outcome.status).toMatch(/^method=icmp,sent=3,received=3,avg=\d+\.\d{3}ms$/);
    expect(outcome.available).toBe(true);
    const { available, average, minimum, maximum, count, method } = outcome.metrics;
    expect(available).toEqual({ type: 'n', data: 100, unit: 'percent' });
    expect(count).toEqual({ type: 'i', data: 3, unit: 'unknown' });
    expect(method).toEqual({ type: 's', data: 'icmp', unit: 'unknown' });
    for (const metric of [average, minimum, maximum]) expect(metric).toMatchObject({ type: 'n', unit: 'seconds' });
    const [min, avg, max] = [minimum, average, maximum].map((metric) => Number(metric?.data));
    expect(min).toBeGreaterThan(0);
    expect(min).toBeLessThanOrEqual(avg as number);
    expect(avg).toBeLessThanOrEqual(max as number);
    expectRoundTrip(max as number);
  });

  it('a host that never answers is unavailable with 0 percent and no round trips, within the timeout', async () => {
    const started = performance.now();
    const outcome = await pingProbe(probeContext(ping(2), { address: UNANSWERED, timeoutMs: 2_000 }));
    expect(performance.now() - started).toBeLessThan(2_000 + HANG_SLACK_MS);
    expect(outcome.available).toBe(false);
    expect(outcome.metrics['available']?.data).toBe(0);
    expect(outcome.metrics['average']).toBeUndefined();
    expect(outcome.status).toMatch(/^method=(icmp|tcp)/);
  });

  it('builds a bounded command line: numeric, count, 200 ms apart, deadline before the timeout', () => {
    expect(pingArguments('127.0.0.1', 5, 30_000)).toEqual(['-n', '-c', '5', '-i', '0.2', '-W', '1', '-w', '29', '--', '127.0.0.1']);
    expect(pingArguments('::1', 1, 2_000)).toEqual(['-n', '-c', '1', '-i', '0.2', '-W', '1', '-w', '1', '--', '::1']);
  });
});

describe('remote.ping probe by TCP', () => {
  const tcpOnly = createPingProbe({ program: MISSING_PROGRAM });

  it('falls back to TCP when there is no ping program: a reset from a closed port is a reply', async () => {
    const outcome = await tcpOnly(probeContext(ping(4)));
    expect(outcome.available).toBe(true);
    expect(outcome.status).toMatch(/^method=tcp,port=(7|80),sent=4,received=4,avg=\d+\.\d{3}ms$/);
    expect(outcome.metrics).toMatchObject({ available: { data: 100 }, count: { data: 4 }, method: { data: 'tcp' } });
    expectRoundTrip(Number(outcome.metrics['maximum']?.data));
  });

  it('knocks on the configured ports: a listening one is answered by connecting', async () => {
    const server = await startTcpServer(() => undefined);
    try {
      const probe = createPingProbe({ program: MISSING_PROGRAM, tcpPorts: [server.port] });
      const outcome = await probe(probeContext(ping(3)));
      expect(outcome.status).toMatch(new RegExp(`^method=tcp,port=${server.port},sent=3,received=3`));
      // Each knock connected: the server accepts it once the event loop gets to it.
      await vi.waitFor(() => expect(server.connections()).toBe(3), { timeout: 10_000, interval: 10 });
    } finally {
      await server.close();
    }
  });

  it('pings nobody answers are lost, and the run ends within the timeout', async () => {
    const silent = await startSilentPort();
    try {
      const probe = createPingProbe({ program: MISSING_PROGRAM, tcpPorts: [silent.port] });
      const started = performance.now();
      const outcome = await probe(probeContext(ping(2), { timeoutMs: 2_000 }));
      const elapsed = performance.now() - started;
      // Both pings were sent and each waited its share (750 ms) of the 1.5 s left before the exit
      // margin: the lower bound. The run's own deadline at the 2 s timeout ends it; the upper bound
      // only proves it did not hang, as timers run late on a loaded machine.
      expect(elapsed).toBeGreaterThan(1_400);
      expect(elapsed).toBeLessThan(2_000 + HANG_SLACK_MS);
      expect(outcome).toMatchObject({ available: false, status: 'method=tcp,sent=2,received=0', metrics: { available: { data: 0 }, count: { data: 2 } } });
      expect(outcome.metrics['average']).toBeUndefined();
    } finally {
      await silent.close();
    }
  });

  it('tries the next port when one drops the knock, and keeps the one that answered', async () => {
    const silent = await startSilentPort();
    const server = await startTcpServer(() => undefined);
    try {
      const probe = createPingProbe({ program: MISSING_PROGRAM, tcpPorts: [silent.port, server.port] });
      const outcome = await probe(probeContext(ping(3), { timeoutMs: 4_000 }));
      expect(outcome.status).toMatch(new RegExp(`^method=tcp,port=${server.port},sent=3,received=3`));
      // Each knock connected: the server accepts it once the event loop gets to it.
      await vi.waitFor(() => expect(server.connections()).toBe(3), { timeout: 10_000, interval: 10 });
    } finally {
      await Promise.all([silent.close(), server.close()]);
    }
  });

  it('an address the operator denied is not pinged', async () => {
    const outcome = await tcpOnly(probeContext(ping(2), { guard: new AddressGuard(['127.0.0.1']) }));
    expect(outcome).toMatchObject({ available: false, status: 'address 127.0.0.1 is denied by the operator (--check-deny)' });
  });

  it('stops when the runner aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await tcpOnly(probeContext(ping(5), { signal: controller.signal }));
    expect(outcome.available).toBe(false);
    expect(outcome.metrics['available']?.data).toBe(0);
  });
});
