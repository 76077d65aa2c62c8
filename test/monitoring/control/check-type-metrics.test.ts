// Checks the metrics /check_types lists against what the collectors and probes really produce: every metric a run writes is listed with its type and unit, and every listed one is written by some run.
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorFor, COLLECTED_CHECK_TYPES } from '../../../src/agent/collectors/collector-registry.js';
import { flattenMetrics, typeCodeOf } from '../../../src/agent/protocol/wire-metrics.js';
import type { ResultMetrics } from '../../../src/monitoring/check-result.js';
import { checkTypes } from '../../../src/monitoring/control/check-type-catalogue.js';
import { CHECK_TYPE_METRICS, metricEntry } from '../../../src/monitoring/control/check-type-metrics.js';
import { dnsProbe } from '../../../src/monitoring/probes/dns-probe.js';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import { createPingProbe } from '../../../src/monitoring/probes/ping-probe.js';
import { tcpProbe } from '../../../src/monitoring/probes/tcp-probe.js';
import { FixtureRoot } from '../../agent/collectors/proc-fixtures.js';
import { httpCheck, startServer } from '../probes/http-probe-harness.js';
import { probeContext, remoteCheck, selfSignedCertificate, startTcpServer } from '../probes/tcp-probe-harness.js';

const NOW_MS = 1_763_700_000_000;

/** What runs of one type wrote: each metric's name, type code and unit. */
type Seen = Map<string, { type: string; unit: string }>;

/** Asserts every metric seen is listed for `type` with the same type code and unit, and every listed metric was seen. */
function expectListed(type: string, seen: Seen): void {
  for (const [name, { type: code, unit }] of seen) {
    const entry = metricEntry(type, name);
    expect(entry, `${type} lists ${name}`).toBeDefined();
    expect({ name, type: code, unit }).toEqual({ name, type: entry?.type, unit: entry?.unit });
  }
  const listed = (CHECK_TYPE_METRICS[type] ?? []).map((entry) => entry.name);
  const covered = listed.filter((name) => [...seen.keys()].some((seenName) => metricEntry(type, seenName)?.name === name));
  expect(covered, `${type}: every listed metric is produced by some run`).toEqual(listed);
}

function record(seen: Seen, metrics: ResultMetrics): void {
  for (const [name, metric] of Object.entries(metrics)) seen.set(name, { type: metric.type, unit: metric.unit });
}

describe('metrics of the agent types', () => {
  const root = new FixtureRoot(undefined, { 'class/net/eth0/carrier': '1\n' });
  afterAll(() => root.remove());
  const targets: Readonly<Record<string, string>> = { 'agent.disk': 'vda', 'agent.filesystem': '/', 'agent.network': 'eth0' };

  it.each([...COLLECTED_CHECK_TYPES])('%s: the collector on fixture files writes exactly the listed metrics', async (type) => {
    const collector = collectorFor(type, root);
    const details = targets[type] === undefined ? {} : { target: targets[type] };
    const collected = await collector.collect(details, NOW_MS);
    expect(collected.status).toBe('success');
    const seen: Seen = new Map();
    const [, wire] = collected.metrics[0] ?? [null, {}];
    // The endpoint stores what flattenMetrics reads, with the type code of each wire type.
    expect(() => flattenMetrics(collected.metrics)).not.toThrow();
    for (const [name, metric] of Object.entries(wire)) seen.set(name, { type: typeCodeOf(metric.t), unit: metric.u ?? 'unknown' });
    expectListed(type, seen);
  });

  it('lists metrics for every type in the catalogue, and for no other', () => {
    expect(Object.keys(CHECK_TYPE_METRICS).sort()).toEqual(checkTypes().map((type) => type.id));
  });
});

describe('metrics of the remote types', () => {
  it('remote.http: a run with body and body_matches writes exactly the listed metrics', async () => {
    const server = await startServer((_req, res) => res.end('<title>Up</title> all good'));
    try {
      const check = httpCheck({ url: server.url('/'), body: 'all \\w+', body_matches: { title: '<title>\\w+', gone: 'absent' } });
      const outcome = await httpProbe(probeContext(check));
      expect(outcome.available).toBe(true);
      const seen: Seen = new Map();
      record(seen, outcome.metrics);
      expect([...seen.keys()].filter((name) => name.startsWith('body_match')).sort()).toEqual(['body_match', 'body_match_gone', 'body_match_title']);
      expectListed('remote.http', seen);
    } finally {
      await server.close();
    }
  });

  describe('remote.tcp', () => {
    let tls: TlsServer;
    let port: number;
    beforeAll(async () => {
      tls = createTlsServer(selfSignedCertificate(), (socket) => {
        socket.write('* OK ready\r\n');
        socket.on('data', () => socket.end('a1 OK done\r\n'));
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', () => resolve()));
      port = (tls.address() as AddressInfo).port;
      return () => new Promise<void>((resolve) => tls.close(() => resolve()));
    }, 300_000);

    it('a TLS exchange with banner and reply writes exactly the listed metrics', async () => {
      const check = remoteCheck('remote.tcp', { port, ssl: true, banner_match: '^\\* OK', send_body: 'a1 NOOP\r\n', body_match: 'a1 OK' });
      const outcome = await tcpProbe(probeContext(check, { hostname: 'localhost' }));
      expect(outcome.available).toBe(true);
      const seen: Seen = new Map();
      record(seen, outcome.metrics);
      expectListed('remote.tcp', seen);
    });
  });

  it('remote.ping: TCP pings of a listening port write exactly the listed metrics', async () => {
    const server = await startTcpServer(() => undefined);
    try {
      const probe = createPingProbe({ program: '/nonexistent/ping', tcpPorts: [server.port] });
      const outcome = await probe(probeContext(remoteCheck('remote.ping', { count: 2 })));
      expect(outcome.available).toBe(true);
      const seen: Seen = new Map();
      record(seen, outcome.metrics);
      expectListed('remote.ping', seen);
    } finally {
      await server.close();
    }
  });

  it('remote.dns: an A answer writes exactly the listed metrics', async () => {
    const socket = createSocket('udp4');
    socket.on('message', (message, peer) => {
      const query = dnsPacket.decode(message);
      const answers = [{ type: 'A' as const, name: 'www.example.test', ttl: 300, data: '192.0.2.10' }];
      const reply = dnsPacket.encode({ type: 'response', id: query.id ?? 0, flags: dnsPacket.RECURSION_AVAILABLE, questions: query.questions ?? [], answers });
      socket.send(reply, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    try {
      const port = (socket.address() as AddressInfo).port;
      const outcome = await dnsProbe(probeContext(remoteCheck('remote.dns', { query: 'www.example.test', port })));
      expect(outcome.available).toBe(true);
      const seen: Seen = new Map();
      record(seen, outcome.metrics);
      expectListed('remote.dns', seen);
    } finally {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    }
  });
});
