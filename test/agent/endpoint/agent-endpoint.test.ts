// Checks the agent endpoint's connections over real TLS on 127.0.0.1: hello, refusals and the close rules, timeouts, limits, replacement, foreign CAs, update downloads on the same port, and stop().
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentEndpoint } from '../../../src/agent/endpoint/agent-endpoint.js';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { ManualClock } from '../../../src/core/clock.js';
import { connectAgent, FakeBackend, helloOf, quietLogger, startEndpoint, until, type RunningEndpoint, type TestAgent } from './endpoint-fixtures.js';

// Near the wall clock: certificates issued by this clock are checked against the real time.
const clock = new ManualClock(Date.now());
let tls: AgentTlsMaterial;
let backend: FakeBackend;
const running: RunningEndpoint[] = [];
const agents: TestAgent[] = [];

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
});

beforeEach(() => {
  backend = new FakeBackend();
  backend.tokens.set('token-a', { tenant: 't1', tokenId: 'atA' });
  backend.tokens.set('token-b', { tenant: 't1', tokenId: 'atB' });
  backend.bind('t1', 'enWeb', 'web-1', false);
});

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.socket.destroy();
  for (const started of running.splice(0)) await started.endpoint.stop();
});

async function start(options: Parameters<typeof startEndpoint>[3] = {}): Promise<RunningEndpoint> {
  const started = await startEndpoint(backend, tls, clock, options);
  running.push(started);
  return started;
}

async function agent(port: number, source = 'guid-1'): Promise<TestAgent> {
  const made = await connectAgent(port, tls.rootCert, source);
  agents.push(made);
  return made;
}

/** The protocol error of a refused request (its details: code, message, type). */
async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { code: string; details: Record<string, unknown> },
  );
  expect(error?.code).toBe('AGENT_REQUEST_REFUSED');
  return error?.details ?? {};
}

describe('AgentEndpoint handshake', () => {
  it('answers a hello with the interval, the first bound entity and the channel, and registers the connection', async () => {
    const { port, endpoint } = await start({ heartbeatIntervalMs: 5_000, channel: 'beta' });
    const client = await agent(port(), 'guid-7');
    expect(await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'))).toEqual({ heartbeat_interval: 5_000, entity_id: 'enWeb', channel: 'beta' });
    const [connection] = [...backend.live.values()];
    expect(connection).toMatchObject({ tenant: 't1', fields: { agentId: 'web-1', guid: 'guid-7', processVersion: '1.0.0', bundleVersion: '1.0.1', agentIp: '127.0.0.1', zoneId: 'mzdfw' } });
    expect(endpoint.stats()).toMatchObject({ connections: 1, handshaking: 0, sessions: 1, hellos: 1 });
    // An agent bound to no entity gets entity_id null.
    const other = await agent(port(), 'guid-8');
    expect(await other.peer.request('handshake.hello', helloOf('token-a', 'db-1'))).toMatchObject({ entity_id: null, channel: 'beta' });
  });

  it('refuses a wrong token with AGENT_TOKEN_INVALID and closes', async () => {
    const { port, endpoint } = await start();
    const client = await agent(port());
    expect(await refusal(client.peer.request('handshake.hello', helloOf('token-x', 'web-1')))).toMatchObject({ code: 401, type: 'AGENT_TOKEN_INVALID' });
    await client.closed;
    expect(backend.live.size).toBe(0);
    expect(endpoint.stats()).toMatchObject({ refused: 1, protocolErrors: 1, sessions: 0 });
  });

  it('keeps a connection whose hello params are malformed (400) until a good hello', async () => {
    const { port } = await start();
    const client = await agent(port());
    expect(await refusal(client.peer.request('handshake.hello', { token: 'token-a' }))).toMatchObject({ code: 400, type: 'AGENT_PARAMS_INVALID' });
    expect(await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'))).toMatchObject({ entity_id: 'enWeb' });
    expect(await refusal(client.peer.request('handshake.hello', helloOf('token-a', 'web-1')))).toMatchObject({ code: 400 });
  });

  it('closes a connection that sends another request before its hello', async () => {
    const { port } = await start();
    const client = await agent(port());
    expect(await refusal(client.peer.request('heartbeat.post', { timestamp: 1 }))).toMatchObject({ code: 401, type: 'AGENT_HANDSHAKE_REQUIRED' });
    await client.closed;
    expect(client.peer.closed).toBe(true);
  });

  it('closes a connection that sends nothing, or no complete hello, within the hello timeout', async () => {
    // The deadline runs from TCP accept and agent() waits for TLS: it must leave the handshake seconds
    // on a loaded machine. The test waits for the closes, so it takes about this long.
    const { port, endpoint } = await start({ helloTimeoutMs: 2_000 });
    const silent = await agent(port());
    const partial = await agent(port());
    partial.socket.write('{"v":"1","id":0,"source":"a"');
    await Promise.all([silent.closed, partial.closed]);
    await until(() => endpoint.stats().connections === 0);
    expect(backend.live.size).toBe(0);
  });

  it('closes a handshaken connection silent for three heartbeat intervals, and keeps one that heartbeats', async () => {
    // Closing the busy one would take three 500 ms ticks in a row without one of its heartbeats (sent every
    // 100 ms), so a loaded event loop cannot; the idle one closes after about 1.5 s.
    const heartbeatIntervalMs = 500;
    const { port } = await start({ heartbeatIntervalMs });
    const idle = await agent(port(), 'guid-1');
    const busy = await agent(port(), 'guid-2');
    await idle.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    await busy.peer.request('handshake.hello', helloOf('token-a', 'db-1'));
    const beat = setInterval(() => void busy.peer.request('heartbeat.post', { timestamp: clock.now() }).catch(() => undefined), heartbeatIntervalMs / 5);
    try {
      await idle.closed;
      expect(busy.peer.closed).toBe(false);
      expect([...backend.live.values()].map((c) => c.fields.agentId)).toEqual(['db-1']);
    } finally {
      clearInterval(beat);
    }
  });
});

describe('AgentEndpoint limits and replacement', () => {
  it('refuses a hello beyond the per-token limit with AGENT_CONNECTIONS_OVER_LIMIT, other tokens unaffected', async () => {
    const { port, endpoint } = await start({ tokenConnectionsMax: 1 });
    const first = await agent(port(), 'g1');
    await first.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    const second = await agent(port(), 'g2');
    expect(await refusal(second.peer.request('handshake.hello', helloOf('token-a', 'db-1')))).toMatchObject({ code: 413, type: 'AGENT_CONNECTIONS_OVER_LIMIT' });
    await second.closed;
    const third = await agent(port(), 'g3');
    await third.peer.request('handshake.hello', helloOf('token-b', 'db-1'));
    expect(endpoint.stats()).toMatchObject({ sessions: 2, refused: 1 });
  });

  it('refuses a hello beyond the endpoint limit with AGENT_CONNECTIONS_OVER_LIMIT', async () => {
    const { port } = await start({ connectionsMax: 1 });
    const first = await agent(port(), 'g1');
    await first.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    const second = await agent(port(), 'g2');
    expect(await refusal(second.peer.request('handshake.hello', helloOf('token-b', 'db-1')))).toMatchObject({ code: 413, type: 'AGENT_CONNECTIONS_OVER_LIMIT' });
    await second.closed;
    expect(first.peer.closed).toBe(false);
  });

  it('drops a new TCP connection at once while pendingHandshakesMax connections are not handshaken', async () => {
    const { port, endpoint } = await start({ pendingHandshakesMax: 1 });
    await agent(port(), 'g1');
    const refused = connect({ host: '127.0.0.1', port: port(), ca: tls.rootCert });
    const outcome = await new Promise<string>((resolve) => {
      refused.once('secureConnect', () => resolve('connected'));
      refused.once('error', () => resolve('error'));
      refused.once('close', () => resolve('closed'));
    });
    refused.destroy();
    expect(outcome).not.toBe('connected');
    expect(endpoint.stats()).toMatchObject({ refused: 1, handshaking: 1 });
  });

  it('replaces the older connection of the same agent and zone; another zone keeps its own', async () => {
    const { port } = await start({ zones: ['mzdfw', 'mzord'], tokenConnectionsMax: 2 });
    const older = await agent(port('mzdfw'), 'g1');
    await older.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    const [olderId] = [...backend.live.keys()];
    const ord = await agent(port('mzord'), 'g1');
    await ord.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    const newer = await agent(port('mzdfw'), 'g1');
    await newer.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    await older.closed;
    expect(backend.disconnects).toEqual([olderId]);
    expect([...backend.live.values()].map((c) => c.fields.zoneId).sort()).toEqual(['mzdfw', 'mzord']);
    expect(await newer.peer.request('heartbeat.post', { timestamp: 1 })).toEqual({ timestamp: clock.now() });
    expect(ord.peer.closed).toBe(false);
  });
});

describe('AgentEndpoint transport', () => {
  it('fails the TLS handshake of a client that trusts another root', async () => {
    const { port, endpoint } = await start();
    const foreign = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
    const client = connect({ host: '127.0.0.1', port: port(), ca: foreign.rootCert, rejectUnauthorized: true });
    const error = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      client.once('secureConnect', () => reject(new Error('the handshake succeeded')));
      client.once('error', resolve);
    });
    expect(error.code).toMatch(/CERT|VERIFY|SIGNATURE/);
    await until(() => endpoint.stats().connections === 0);
    expect(endpoint.stats().sessions).toBe(0);
  });

  it('serves GET /upgrades/... over the same TLS port as the protocol', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-endpoint-updates-'));
    try {
      const updates = new UpdateStore(dir);
      updates.publish('stable', '1.2.0', Buffer.from('bundle bytes'), Buffer.from('signature'));
      const { port } = await start({ updates });
      const client = await agent(port());
      await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
      const fetch = (path: string): Promise<{ status: number; body: string }> =>
        new Promise((resolve, reject) => {
          get({ host: '127.0.0.1', port: port(), path, ca: tls.rootCert, agent: false }, (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          }).on('error', reject);
        });
      expect(await fetch('/upgrades/stable/1.2.0/bundle')).toEqual({ status: 200, body: 'bundle bytes' });
      expect(await fetch('/upgrades/stable/1.2.0/bundle.sig')).toEqual({ status: 200, body: 'signature' });
      expect((await fetch('/upgrades/stable/9.9.9/bundle')).status).toBe(404);
      expect(await client.peer.request('heartbeat.post', { timestamp: 1 })).toEqual({ timestamp: clock.now() });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stop() closes every connection, reports each session disconnected and stops listening', async () => {
    const started = await start({ zones: ['mzdfw', 'mzord'] });
    const { port, endpoint } = started;
    const a = await agent(port('mzdfw'), 'g1');
    const b = await agent(port('mzord'), 'g2');
    const pending = await agent(port('mzord'), 'g3');
    await a.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    await b.peer.request('handshake.hello', helloOf('token-b', 'db-1'));
    const ids = [...backend.live.keys()].sort();
    await Promise.all([endpoint.stop(), endpoint.stop()]);
    await Promise.all([a.closed, b.closed, pending.closed]);
    expect(backend.disconnects.sort()).toEqual(ids);
    expect(backend.live.size).toBe(0);
    expect(backend.subscribers).toBe(0);
    expect(endpoint.stats()).toMatchObject({ connections: 0, sessions: 0 });
    const refusedTcp = connectTcp(port('mzdfw'), '127.0.0.1');
    const code = await new Promise<string | undefined>((resolve) => refusedTcp.once('error', (error: NodeJS.ErrnoException) => resolve(error.code)));
    expect(code).toBe('ECONNREFUSED');
  });

  it('start() refuses an address in use with CONFIG_INVALID and leaves nothing listening', async () => {
    const { port } = await start();
    const clash = new AgentEndpoint({ backend, clock, logger: quietLogger, options: { tls, listen: [{ zoneId: 'mzord', host: '127.0.0.1', port: port() }] } });
    await expect(clash.start()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(backend.subscribers).toBe(1);
  });
});
