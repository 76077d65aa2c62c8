// Checks the remote.dns probe against a real UDP DNS server built with dns-packet: answers of each kind, NXDOMAIN, SERVFAIL, silence and refusal.
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket, { type Answer, type Question } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DNS_CHECK_ANSWER_LENGTH_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { dnsProbe, dnsServerOf } from '../../../src/monitoring/probes/dns-probe.js';
import { probeContext, remoteCheck } from './tcp-probe-harness.js';

/** How the test server treats a question. */
type Behaviour = { readonly answers: readonly Answer[] } | { readonly rcode: number } | 'silent';

const NXDOMAIN = 3;
const SERVFAIL = 2;
const REFUSED = 5;

const ZONE: Readonly<Record<string, Behaviour>> = {
  'A www.example.test': {
    answers: [
      { type: 'A', name: 'www.example.test', ttl: 300, data: '192.0.2.10' },
      { type: 'A', name: 'www.example.test', ttl: 60, data: '192.0.2.11' },
    ],
  },
  'AAAA www.example.test': { answers: [{ type: 'AAAA', name: 'www.example.test', ttl: 120, data: '2001:db8::10' }] },
  'TXT example.test': {
    answers: [
      { type: 'TXT', name: 'example.test', ttl: 60, data: ['v=spf1 ', '-all'] },
      { type: 'TXT', name: 'example.test', ttl: 60, data: ['hello'] },
    ],
  },
  'MX example.test': {
    answers: [
      { type: 'MX', name: 'example.test', ttl: 60, data: { preference: 10, exchange: 'mx1.example.test' } },
      { type: 'MX', name: 'example.test', ttl: 60, data: { preference: 20, exchange: 'mx2.example.test' } },
    ],
  },
  'SRV _sip._tcp.example.test': { answers: [{ type: 'SRV', name: '_sip._tcp.example.test', ttl: 60, data: { priority: 1, weight: 5, port: 5060, target: 'sip.example.test' } }] },
  'SOA example.test': {
    answers: [{ type: 'SOA', name: 'example.test', ttl: 60, data: { mname: 'ns1.example.test', rname: 'hostmaster.example.test', serial: 2024, refresh: 3600, retry: 600, expire: 86400, minimum: 60 } }],
  },
  'A big.example.test': {
    answers: Array.from({ length: 200 }, (_, i) => ({ type: 'A' as const, name: 'big.example.test', ttl: 60, data: `198.51.100.${i}` })),
  },
  'A empty.example.test': { answers: [] },
  'A broken.example.test': { rcode: SERVFAIL },
  'A private.example.test': { rcode: REFUSED },
  'A slow.example.test': 'silent',
};

/** A UDP DNS server on 127.0.0.1 answering from ZONE (NXDOMAIN for names it lacks) and counting queries. */
async function startDnsServer(): Promise<{ socket: Socket; port: number; queries: Question[] }> {
  const socket = createSocket('udp4');
  const queries: Question[] = [];
  socket.on('message', (message, peer) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (question === undefined) return;
    queries.push(question);
    const behaviour = ZONE[`${question.type} ${question.name}`] ?? { rcode: NXDOMAIN };
    if (behaviour === 'silent') return;
    const flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | ('rcode' in behaviour ? behaviour.rcode : 0);
    const answers = 'answers' in behaviour ? [...behaviour.answers] : [];
    const reply = dnsPacket.encode({ type: 'response', id: query.id ?? 0, flags, questions: query.questions ?? [], answers });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return { socket, port: (socket.address() as AddressInfo).port, queries };
}

let server: Awaited<ReturnType<typeof startDnsServer>>;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => new Promise<void>((resolve) => server.socket.close(() => resolve())));

const dns = (query: string, record_type?: string, port = server.port) => remoteCheck('remote.dns', { query, port, ...(record_type ? { record_type } : {}) });
const metric = (outcome: Awaited<ReturnType<typeof dnsProbe>>, name: string) => outcome.metrics[name]?.data;
/**
 * Generous slack over a query's timeout or abort that still proves it did not hang; a loaded machine
 * delays timers, so a tight bound proves nothing but the load.
 */
const HANG_SLACK_MS = 5_000;
/** The probe context's default timeout. */
const DEFAULT_TIMEOUT_MS = 5_000;

describe('remote.dns probe', () => {
  it('asks the target server for A records (the default) and reports answer, count, ttl, rcode and rtt', async () => {
    const outcome = await dnsProbe(probeContext(dns('www.example.test')));
    expect(outcome.available).toBe(true);
    expect(outcome.status).toMatch(/^rcode=NOERROR,answers=2,rtt=\d+\.\dms$/);
    expect(outcome.metrics).toMatchObject({
      answer: { type: 's', data: '192.0.2.10 192.0.2.11' },
      answer_count: { type: 'i', data: 2 },
      ttl: { type: 'I', data: 60, unit: 'seconds' },
      rcode: { type: 's', data: 'NOERROR' },
      rtt: { type: 'n', unit: 'milliseconds' },
      duration: { type: 'I', unit: 'milliseconds' },
    });
    // A loopback round trip, inflated by event-loop lag under load: positive, and within the timeout.
    expect(Number(metric(outcome, 'rtt'))).toBeGreaterThan(0);
    expect(Number(metric(outcome, 'rtt'))).toBeLessThan(DEFAULT_TIMEOUT_MS);
    expect(server.queries.at(-1)).toMatchObject({ type: 'A', name: 'www.example.test' });
  });

  it('renders AAAA, TXT, MX, SRV and SOA answers', async () => {
    const answer = async (query: string, type: string) => metric(await dnsProbe(probeContext(dns(query, type))), 'answer');
    expect(await answer('www.example.test', 'AAAA')).toBe('2001:db8::10');
    expect(await answer('example.test', 'TXT')).toBe('v=spf1 -all hello');
    expect(await answer('example.test', 'MX')).toBe('10 mx1.example.test 20 mx2.example.test');
    expect(await answer('_sip._tcp.example.test', 'SRV')).toBe('1 5 5060 sip.example.test');
    expect(await answer('example.test', 'SOA')).toBe('ns1.example.test hostmaster.example.test 2024 3600 600 86400 60');
  });

  it('an answer of any response code ran the check: NXDOMAIN, an empty NOERROR, SERVFAIL and REFUSED are available with their rcode', async () => {
    const cases: [string, string][] = [
      ['nowhere.example.test', 'NXDOMAIN'],
      ['empty.example.test', 'NOERROR'],
      ['broken.example.test', 'SERVFAIL'],
      ['private.example.test', 'REFUSED'],
    ];
    for (const [query, rcode] of cases) {
      const outcome = await dnsProbe(probeContext(dns(query)));
      expect(outcome).toMatchObject({ available: true, status: expect.stringMatching(new RegExp(`^rcode=${rcode},answers=0,`)) });
      expect(outcome.metrics).toMatchObject({ rcode: { data: rcode }, answer: { data: '' }, answer_count: { data: 0 } });
    }
  });

  it('cuts a long answer to the answer limit', async () => {
    const outcome = await dnsProbe(probeContext(dns('big.example.test')));
    expect(metric(outcome, 'answer_count')).toBe(200);
    expect(String(metric(outcome, 'answer'))).toHaveLength(DNS_CHECK_ANSWER_LENGTH_MAX);
  });

  it('a server that stays silent is unavailable at the timeout, asked once', async () => {
    const before = server.queries.length;
    const started = performance.now();
    const outcome = await dnsProbe(probeContext(dns('slow.example.test'), { timeoutMs: 400 }));
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ available: false, status: `no answer from the DNS server on port ${server.port} before the timeout` });
    expect(outcome.metrics['rcode']).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(400 + HANG_SLACK_MS);
    expect(server.queries.length - before).toBe(1);
  });

  it('the runner aborting ends a query at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    // An aborted query and a timed-out one say the same, so only time tells them apart: the timeout
    // is far beyond the bound, which leaves seconds of slack for a loaded machine.
    const outcome = await dnsProbe(probeContext(dns('slow.example.test'), { timeoutMs: 30_000, signal: controller.signal }));
    expect(performance.now() - started).toBeLessThan(100 + HANG_SLACK_MS);
    expect(outcome).toMatchObject({ available: false, status: `no answer from the DNS server on port ${server.port} before the timeout` });
  });

  it('a port nobody answers on is unavailable', async () => {
    const closed = createSocket('udp4');
    await new Promise<void>((resolve) => closed.bind(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await dnsProbe(probeContext(dns('www.example.test', 'A', port), { timeoutMs: 1_000 }));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe(`DNS server refused the connection on port ${port}`);
  });

  it('asks nothing of an address the operator denied', async () => {
    const before = server.queries.length;
    const outcome = await dnsProbe(probeContext(dns('www.example.test'), { guard: new AddressGuard(['127.0.0.0/8']) }));
    expect(outcome).toMatchObject({ available: false, status: 'address 127.0.0.1 is denied by the operator (--check-deny)' });
    expect(server.queries.length).toBe(before);
  });

  it('names servers as the resolver takes them, IPv6 in brackets', () => {
    expect(dnsServerOf('192.0.2.53', 53)).toBe('192.0.2.53:53');
    expect(dnsServerOf('2001:db8::53', 5353)).toBe('[2001:db8::53]:5353');
  });
});
