// Checks host info over real TLS on 127.0.0.1: the endpoint attaches to the broker while it runs, asks a real agent connection reading fixture files, keeps tenants apart, and answers a silent or vanishing agent with a timeout or not connected.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentConnection } from '../../../src/agent/client/agent-connection.js';
import { systemScheduler } from '../../../src/agent/client/agent-deps.js';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import { AgentEndpoint } from '../../../src/agent/endpoint/agent-endpoint.js';
import { HostInfoReader } from '../../../src/agent/host-info/host-info-reader.js';
import { RpcPeer } from '../../../src/agent/protocol/rpc-peer.js';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { HostInfoBroker } from '../../../src/monitoring/agent-host-info.js';
import { FakeBackend, helloOf, quietLogger, until } from './endpoint-fixtures.js';

const clock = new ManualClock(Date.now());
const quiet = { ...quietLogger, debug: () => undefined };
let tls: AgentTlsMaterial;
let procRoot: string;
let backend: FakeBackend;
let broker: HostInfoBroker;
let endpoint: AgentEndpoint;
let port: number;
const connections: AgentConnection[] = [];
const sockets: { destroy(): void }[] = [];

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
  procRoot = mkdtempSync(join(tmpdir(), 'strata-endpoint-host-'));
  writeFileSync(join(procRoot, 'meminfo'), 'MemTotal: 4096 kB\nMemFree: 1024 kB\nMemAvailable: 2048 kB\n');
});

afterAll(() => rmSync(procRoot, { recursive: true, force: true }));

beforeEach(async () => {
  backend = new FakeBackend();
  backend.tokens.set('token-1', { tenant: 't1', tokenId: 'at1' });
  backend.tokens.set('token-2', { tenant: 't2', tokenId: 'at2' });
  broker = new HostInfoBroker();
  endpoint = new AgentEndpoint({ backend, clock, logger: quietLogger, options: { tls, listen: [{ zoneId: 'mzdfw', host: '127.0.0.1', port: 0 }], heartbeatIntervalMs: 1000 }, hostInfo: broker });
  port = (await endpoint.start())[0]?.port as number;
});

afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.stop()));
  for (const socket of sockets.splice(0)) socket.destroy();
  await endpoint.stop();
});

/** A real agent connection with `token` as `agentId`, reading the fixture /proc; resolves once its hello succeeded. */
async function realAgent(token: string, agentId: string, stampMs: number): Promise<AgentConnection> {
  const connection = new AgentConnection({
    endpoint: { host: '127.0.0.1', port },
    ca: tls.rootCert,
    guid: `guid-${agentId}-${token}`,
    hello: () => helloOf(token, agentId),
    events: { onReady: () => undefined, onDown: () => undefined, onScheduleChanged: () => undefined, onUpgradeRequest: () => undefined },
    clock: systemClock,
    scheduler: systemScheduler,
    random: () => 0.5,
    logger: quiet,
    hostInfo: new HostInfoReader(new ManualClock(stampMs), { procRoot }),
  });
  connections.push(connection);
  connection.start();
  await until(() => connection.ready);
  return connection;
}

/** A protocol client that says hello and then answers requests with `onRequest`. */
async function rawAgent(agentId: string, onRequest: (method: string, socket: { destroy(): void }) => unknown): Promise<RpcPeer> {
  const socket = connect({ host: '127.0.0.1', port, ca: tls.rootCert, rejectUnauthorized: true });
  sockets.push(socket);
  await once(socket, 'secureConnect');
  const peer = new RpcPeer({ socket, self: `guid-raw-${agentId}`, peer: 'endpoint', onRequest: (method) => onRequest(method, socket) });
  await peer.request('handshake.hello', helloOf('token-1', agentId));
  return peer;
}

describe('host info through the agent endpoint', () => {
  it('is attached to the broker while it runs and detached when it stops', async () => {
    expect(broker.current()).toBe(endpoint.hostInfo);
    await endpoint.stop();
    expect(broker.current()).toBeUndefined();
    await expect(broker.get('t1', 'web-1', 'memory')).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED' });
  });

  it('reads a connected agent\'s host info and types over its connection', async () => {
    await realAgent('token-1', 'web-1', 4242);
    expect(await broker.get('t1', 'web-1', 'memory')).toEqual({ timestamp: 4242, info: expect.objectContaining({ total: 4096 * 1024, free: 1024 * 1024, actual_free: 2048 * 1024 }) });
    expect(await broker.types('t1', 'web-1', 99)).toEqual({ timestamp: 99, info: { types: ['cpus', 'disks', 'filesystems', 'memory', 'network_interfaces', 'processes', 'system', 'who'] } });
    // The agent could not read /proc/stat: an empty list and the reason, still a 200 answer.
    expect(await broker.get('t1', 'web-1', 'cpus')).toEqual({ timestamp: 4242, info: [], error: expect.stringContaining('ENOENT') });
  });

  it('keeps tenants apart: the same agent id in two tenants is two agents, each reaching its own', async () => {
    await realAgent('token-1', 'shared.example.com', 1);
    await expect(broker.get('t2', 'shared.example.com', 'memory')).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED' });
    await realAgent('token-2', 'shared.example.com', 2);
    expect((await broker.get('t1', 'shared.example.com', 'memory')).timestamp).toBe(1);
    expect((await broker.get('t2', 'shared.example.com', 'memory')).timestamp).toBe(2);
  });

  it('answers AGENT_REQUEST_TIMEOUT when the agent does not answer in time, and the session stays', async () => {
    await rawAgent('silent-1', (method) => (method.startsWith('host_info') ? new Promise(() => undefined) : {}));
    broker.setTimeoutMs(150);
    await expect(broker.get('t1', 'silent-1', 'processes')).rejects.toMatchObject({ code: 'AGENT_REQUEST_TIMEOUT', details: { timeoutMs: 150 } });
    expect(endpoint.stats().sessions).toBe(1);
  });

  it('answers not connected when the agent\'s only connection closes before it answers, and passes an agent\'s refusal on', async () => {
    await rawAgent('vanishing-1', (method, socket) => {
      if (method === 'host_info.get') socket.destroy();
      return new Promise(() => undefined);
    });
    await expect(broker.get('t1', 'vanishing-1', 'memory')).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED' });
    // An agent from before host info (or the reference's other agents) answers 400 AGENT_METHOD_UNKNOWN.
    await rawAgent('old-agent', (method) => {
      throw new StrataError('AGENT_METHOD_UNKNOWN', `the agent does not implement ${method}`);
    });
    await expect(broker.get('t1', 'old-agent', 'memory')).rejects.toMatchObject({ code: 'AGENT_REQUEST_REFUSED', details: { code: 400, type: 'AGENT_METHOD_UNKNOWN' } });
    expect(endpoint.stats().sessions).toBe(1);
  });
});
