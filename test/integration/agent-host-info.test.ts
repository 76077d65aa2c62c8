// End to end over loopback: a real server with its agent endpoint started as `strata serve` starts it (TLS from the data directory), real agents, and the host info routes read over HTTP: live answers, tenants apart, 404, 400 and 503.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentConnection } from '../../src/agent/client/agent-connection.js';
import { systemScheduler } from '../../src/agent/client/agent-deps.js';
import type { AgentEndpoint } from '../../src/agent/endpoint/agent-endpoint.js';
import { HostInfoReader } from '../../src/agent/host-info/host-info-reader.js';
import { RpcPeer } from '../../src/agent/protocol/rpc-peer.js';
import { startAgentEndpoint } from '../../src/cli/serve-agents.js';
import { ManualClock, systemClock } from '../../src/core/clock.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { freePorts, quietAgentLogger as quiet, testFleet } from './agent-fixture.js';
import { base, create, expectFault } from './monitoring-client.js';
import { until } from './poll-until.js';

const TYPES = ['cpus', 'disks', 'filesystems', 'memory', 'network_interfaces', 'processes', 'system', 'who'];
const HOST_AGENT = 'host-a.example.com';

describe('agent host info over HTTP, from live agents', () => {
  let h: Harness;
  let endpoint: AgentEndpoint;
  let ports: number[];
  let rootCert: string;
  let fixtureProc: string;
  const tokens: Record<string, string> = {};
  const agentTokens: Record<string, string> = {};
  const stops: (() => Promise<void>)[] = [];
  const sockets: { destroy(): void }[] = [];

  const get = (user: 'alice' | 'bob' | 'olga', tenant: string, path: string) => call(h, 'GET', `${base(tenant)}${path}`, { token: tokens[user] as string });

  beforeAll(async () => {
    h = await startHarness({});
    for (const user of ['alice', 'bob', 'olga'] as const) tokens[user] = await h.token(user);
    ports = await freePorts(3);
    // As `strata serve` starts it: TLS material created in the data directory, one listener per zone, the broker attached.
    endpoint = (await startAgentEndpoint(h.app, { agentEndpoint: true, agentHost: '127.0.0.1', agentPorts: ports, agentHeartbeatMs: 1_000, data: h.dir }, pino({ level: 'silent' }))) as AgentEndpoint;
    rootCert = readFileSync(join(h.dir, 'agent-ca', 'root.crt'), 'utf8');
    for (const [user, tenant] of [['alice', 't1'], ['bob', 't2']] as const) {
      const id = await create(h, tokens[user] as string, `${base(tenant)}/agent_tokens`, { label: 'hosts' });
      agentTokens[tenant] = (await get(user, tenant, `/agent_tokens/${id}`)).json.token;
    }
    fixtureProc = mkdtempSync(join(tmpdir(), 'strata-host-info-it-'));
    writeFileSync(join(fixtureProc, 'meminfo'), 'MemTotal: 4096 kB\nMemFree: 1024 kB\n');
    // The real agent of tenant t1, reading this host, over its three zone connections.
    const fleet = testFleet({ endpoints: ports.map((port) => ({ host: '127.0.0.1', port })), ca: rootCert, token: agentTokens.t1 as string, agentId: HOST_AGENT, guid: 'guid-host-a' });
    fleet.start();
    stops.push(() => fleet.stop());
    await until('three connections of the agent', async () => (await get('alice', 't1', `/agents/${HOST_AGENT}/connections`)).json?.values?.length === 3);
  }, 30_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const stop of stops) await stop();
    await endpoint.stop();
    await h.close();
    rmSync(fixtureProc, { recursive: true, force: true });
  });

  /** A real agent connection (one zone) reading fixture files, as `agentId` of `tenant`. */
  async function fixtureAgent(tenant: string, agentId: string): Promise<AgentConnection> {
    const connection = new AgentConnection({
      endpoint: { host: '127.0.0.1', port: ports[0] as number },
      ca: rootCert,
      guid: `guid-${tenant}-${agentId}`,
      hello: () => ({ token: agentTokens[tenant] as string, agent_id: agentId, agent_name: 'fixture', process_version: '1.0.0', bundle_version: '1.0.0', features: [] }),
      events: { onReady: () => undefined, onDown: () => undefined, onScheduleChanged: () => undefined, onUpgradeRequest: () => undefined },
      clock: systemClock,
      scheduler: systemScheduler,
      random: () => 0.5,
      logger: quiet,
      hostInfo: new HostInfoReader(new ManualClock(1_700_000_000_000), { procRoot: fixtureProc }),
    });
    connection.start();
    stops.push(() => connection.stop());
    await until(`${agentId} of ${tenant} connected`, () => connection.ready);
    return connection;
  }

  it('answers every type live from the connected agent, read from this host', async () => {
    const types = await get('alice', 't1', `/agents/${HOST_AGENT}/host_info_types`);
    expect(types.status, types.text).toBe(200);
    expect(types.json).toEqual({ timestamp: expect.any(Number), info: { types: TYPES } });
    const before = Date.now();
    for (const type of TYPES) {
      const res = await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/${type}`);
      expect(res.status, `${type}: ${res.text}`).toBe(200);
      expect(res.json.error, type).toBeUndefined();
      expect(Array.isArray(res.json.info), type).toBe(!['memory', 'system'].includes(type));
      expect(res.json.timestamp).toBeGreaterThanOrEqual(before - 1_000);
    }
    const memory = (await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/memory`)).json.info;
    const meminfoKb = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
    expect(memory.total).toBe(meminfoKb * 1024);
    const system = (await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/system`)).json.info;
    expect(system).toMatchObject({ name: 'Linux', version: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim() });
    // The agent runs in this process: it lists this process.
    const processes = (await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/processes`)).json.info;
    expect(processes.find((p: { pid: number }) => p.pid === process.pid)).toMatchObject({ pid: process.pid, exe_name: expect.any(String), state_threads: expect.any(Number) });
    const cpus = (await get('olga', 't1', `/agents/${HOST_AGENT}/host_info/cpus`)).json.info;
    expect(cpus.length).toBe(readFileSync('/proc/stat', 'utf8').split('\n').filter((line) => /^cpu\d+ /.test(line)).length);
  });

  it('keeps tenants apart: another tenant never reaches the agent, and its own agent of the same id answers for it', async () => {
    expectFault(await get('bob', 't2', `/agents/${HOST_AGENT}/host_info/memory`), 404, 'notFoundError');
    expectFault(await get('bob', 't2', `/agents/${HOST_AGENT}/host_info_types`), 404, 'notFoundError');
    // The token of t1 cannot name t2's account.
    expectFault(await call(h, 'GET', `${base('t2')}/agents/${HOST_AGENT}/host_info/memory`, { token: tokens.alice as string }), 403, 'forbiddenError');
    await fixtureAgent('t2', HOST_AGENT);
    const theirs = await get('bob', 't2', `/agents/${HOST_AGENT}/host_info/memory`);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.json).toEqual({ timestamp: 1_700_000_000_000, info: expect.objectContaining({ total: 4096 * 1024, free: 1024 * 1024 }) });
    const ours = await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/memory`);
    expect(ours.json.info.total).not.toBe(4096 * 1024);
  });

  it('answers 404 for an unknown agent, 400 for an unknown type, 400 agentNotConnected for an agent that left', async () => {
    const missing = await get('alice', 't1', '/agents/nobody.example.com/host_info/memory');
    expectFault(missing, 404, 'notFoundError');
    expect(missing.json.details.code).toBe('MONITORING_OBJECT_NOT_FOUND');
    for (const type of ['sysctl', 'network_interaces', 'CPU']) {
      const res = await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/${type}`);
      expectFault(res, 400, 'badRequest');
      expect(res.json.details.field).toBe('type');
    }
    const leaving = await fixtureAgent('t1', 'leaving.example.com');
    expect((await get('alice', 't1', '/agents/leaving.example.com/host_info/memory')).status).toBe(200);
    await leaving.stop();
    await until('the connection gone', async () => (await get('alice', 't1', '/agents/leaving.example.com/connections')).json.values.length === 0);
    const gone = await get('alice', 't1', '/agents/leaving.example.com/host_info/memory');
    expectFault(gone, 400, 'agentNotConnected');
    expect(gone.json.details).toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED', agentId: 'leaving.example.com' });
  });

  it('answers 503 with Retry-After when the agent does not answer in time', async () => {
    const socket = connect({ host: '127.0.0.1', port: ports[1] as number, ca: rootCert, rejectUnauthorized: true });
    sockets.push(socket);
    await once(socket, 'secureConnect');
    const peer = new RpcPeer({ socket, self: 'guid-silent', peer: 'endpoint', onRequest: () => new Promise(() => undefined) });
    await peer.request('handshake.hello', { token: agentTokens.t1, agent_id: 'silent.example.com', agent_name: 'silent', process_version: '1', bundle_version: '1', features: [] });
    h.app.strata.monitoring.hostInfo.setTimeoutMs(300);
    try {
      const res = await get('alice', 't1', '/agents/silent.example.com/host_info/processes');
      expectFault(res, 503, 'systemFailureError');
      expect(res.json.details).toMatchObject({ code: 'AGENT_REQUEST_TIMEOUT', timeoutMs: 300 });
      expect(res.headers.get('retry-after')).not.toBeNull();
      // The agent that answers is not held up by the one that does not.
      expect((await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/memory`)).status).toBe(200);
    } finally {
      h.app.strata.monitoring.hostInfo.setTimeoutMs(10_000);
    }
  });

  it('shows both routes in the OpenAPI document', async () => {
    const paths = Object.keys((await call(h, 'GET', '/openapi.json')).json.paths);
    for (const suffix of ['/agents/{agentId}/host_info_types', '/agents/{agentId}/host_info/{type}']) expect(paths.some((p) => p.endsWith(suffix)), suffix).toBe(true);
  });

  it('answers 400 agentNotConnected for every agent once the endpoint stopped', async () => {
    await endpoint.stop();
    const res = await get('alice', 't1', `/agents/${HOST_AGENT}/host_info/memory`);
    expectFault(res, 400, 'agentNotConnected');
  });
});
