// Tests one agent connection against a real TLS endpoint on 127.0.0.1: trust, hello, heartbeats, reconnects, and what the endpoint may ask.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_LINE_BYTES_MAX } from '../../../src/agent/agent-limits.js';
import { AgentConnection, type AgentConnectionOptions } from '../../../src/agent/client/agent-connection.js';
import { systemScheduler } from '../../../src/agent/client/agent-deps.js';
import { HostInfoReader } from '../../../src/agent/host-info/host-info-reader.js';
import { loadAgentTls, renewServerCertificate, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import type { HelloParams, HelloResult } from '../../../src/agent/protocol/messages.js';
import { recordingLogger, TestEndpoint, waitFor, type TestEndpointSettings } from './test-endpoint.js';

const GUID = '0b49b96d-24c9-45ca-c585-4040707f4880';
const HELLO: HelloParams = {
  token: 'a'.repeat(64) + ':1234',
  agent_id: 'agent.example.com',
  agent_name: 'Strata agent',
  process_version: '0.1.0',
  bundle_version: '0.1.0',
  features: [{ name: 'upgrades', version: '1.0.0' }],
};

let tls: AgentTlsMaterial;
let otherTls: AgentTlsMaterial;
/** A server certificate under `tls`'s root that names localhost only. */
let localhostOnly: AgentTlsMaterial;
let caDir: string;
const endpoints: TestEndpoint[] = [];
const connections: AgentConnection[] = [];

beforeAll(() => {
  caDir = mkdtempSync(join(tmpdir(), 'strata-agent-connection-'));
  tls = loadAgentTls({ dataDir: caDir, hosts: ['127.0.0.1', 'localhost'], clock: systemClock });
  localhostOnly = renewServerCertificate({ dataDir: caDir, hosts: ['localhost'], clock: systemClock });
  otherTls = loadAgentTls({ dataDir: undefined, hosts: ['127.0.0.1', 'localhost'], clock: systemClock });
});

afterAll(() => rmSync(caDir, { recursive: true, force: true }));

afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.stop()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.stop()));
});

async function endpointWith(material: AgentTlsMaterial = tls, settings: Partial<TestEndpointSettings> = {}): Promise<TestEndpoint> {
  const endpoint = await TestEndpoint.start(material, settings);
  endpoints.push(endpoint);
  return endpoint;
}

interface Recorded {
  readonly ready: HelloResult[];
  downs: number;
  changes: number;
  upgrades: number;
}

function connectionTo(endpoint: TestEndpoint, options: Partial<AgentConnectionOptions> = {}): { connection: AgentConnection; recorded: Recorded; logger: ReturnType<typeof recordingLogger> } {
  const recorded: Recorded = { ready: [], downs: 0, changes: 0, upgrades: 0 };
  const logger = recordingLogger();
  const connection = new AgentConnection({
    endpoint: { host: '127.0.0.1', port: endpoint.port },
    ca: tls.rootCert,
    guid: GUID,
    hello: () => HELLO,
    events: {
      onReady: (_c, hello) => void recorded.ready.push(hello),
      onDown: () => void (recorded.downs += 1),
      onScheduleChanged: () => void (recorded.changes += 1),
      onUpgradeRequest: () => void (recorded.upgrades += 1),
    },
    clock: systemClock,
    scheduler: systemScheduler,
    random: () => 0.5,
    logger,
    reconnectBaseMs: 20,
    reconnectMaxMs: 200,
    ...options,
  });
  connections.push(connection);
  connection.start();
  return { connection, recorded, logger };
}

describe('AgentConnection', () => {
  it('says hello with the token, agent id, versions and features, its guid as source, and becomes ready', async () => {
    const endpoint = await endpointWith();
    const { connection, recorded } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    const [hello] = endpoint.of('handshake.hello');
    expect(hello?.source).toBe(GUID);
    expect(hello?.params).toEqual(HELLO);
    expect(recorded.ready).toEqual([{ heartbeat_interval: 100, entity_id: 'enTest', channel: 'stable' }]);
    expect(connection.status()).toMatchObject({ endpoint: `127.0.0.1:${endpoint.port}`, state: 'ready', hellos: 1, failures: 0 });
  });

  it('sends heartbeats with its clock on the interval the endpoint gave', async () => {
    const endpoint = await endpointWith();
    const { connection } = connectionTo(endpoint);
    const before = Date.now();
    await waitFor(() => endpoint.of('heartbeat.post').length >= 3, 'three heartbeats');
    for (const beat of endpoint.of('heartbeat.post')) {
      expect(beat.source).toBe(GUID);
      expect(beat.params.timestamp).toBeGreaterThanOrEqual(before);
      expect(Number.isSafeInteger(beat.params.timestamp)).toBe(true);
    }
    await waitFor(() => connection.status().heartbeats >= 3, 'three answered heartbeats');
  });

  it('reconnects and says hello again after the endpoint closes the connection', async () => {
    const endpoint = await endpointWith();
    const { connection, recorded } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the first hello');
    endpoint.closeSessions();
    await waitFor(() => recorded.ready.length === 2, 'the second hello');
    expect(recorded.downs).toBe(1);
    expect(endpoint.of('handshake.hello').map((r) => r.connection)).toEqual([1, 2]);
    expect(connection.status()).toMatchObject({ state: 'ready', hellos: 2, failures: 1 });
  });

  it('refuses an endpoint whose certificate comes from another root: no hello is ever sent', async () => {
    const endpoint = await endpointWith(otherTls);
    const { connection } = connectionTo(endpoint);
    await waitFor(() => connection.status().failures >= 3, 'three refused attempts');
    expect(endpoint.requests).toEqual([]);
    expect(connection.ready).toBe(false);
    expect(connection.status().lastError).toMatch(/CERT|SIGNATURE|VERIFY|ISSUER/);
  });

  it('refuses a certificate that does not name the host it connected to', async () => {
    // Issued by the trusted root, but for localhost only; the agent connects to 127.0.0.1.
    const endpoint = await endpointWith(localhostOnly);
    const { connection } = connectionTo(endpoint);
    await waitFor(() => connection.status().failures >= 2, 'two refused attempts');
    expect(endpoint.requests).toEqual([]);
    expect(connection.status().lastError).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('connects by host name with SNI when the certificate names it', async () => {
    const endpoint = await endpointWith(localhostOnly);
    const { connection } = connectionTo(endpoint, { endpoint: { host: 'localhost', port: endpoint.port } });
    await waitFor(() => connection.ready, 'the hello over localhost');
    expect(connection.servername).toBe('localhost');
  });

  it('answers AGENT_METHOD_UNKNOWN to a method other than the four the endpoint may send, and keeps the connection', async () => {
    const endpoint = await endpointWith();
    const { connection } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    const session = [...endpoint.sessions.values()][0];
    for (const method of ['host_info.run', 'check.test', 'system.info', 'run.command']) {
      const error = await session?.request(method, { type: 'cpu' }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(StrataError);
      expect((error as StrataError).details).toMatchObject({ code: 400, type: 'AGENT_METHOD_UNKNOWN' });
    }
    const beats = endpoint.of('heartbeat.post').length;
    await waitFor(() => endpoint.of('heartbeat.post').length > beats, 'a heartbeat after the refusals');
    expect(connection.status().hellos).toBe(1);
  });

  it('answers host_info_types.get and host_info.get from its reader, and refuses an unknown type with 400 keeping the connection', async () => {
    const root = mkdtempSync(join(tmpdir(), 'strata-agent-host-'));
    try {
      writeFileSync(join(root, 'meminfo'), 'MemTotal: 2048 kB\nMemFree: 1024 kB\n');
      const endpoint = await endpointWith();
      const { connection } = connectionTo(endpoint, { hostInfo: new HostInfoReader(new ManualClock(77), { procRoot: root }) });
      await waitFor(() => connection.ready, 'the hello');
      const session = [...endpoint.sessions.values()][0];
      expect(await session?.request('host_info_types.get', {})).toEqual({ types: ['cpus', 'disks', 'filesystems', 'memory', 'network_interfaces', 'processes', 'system', 'who'] });
      expect(await session?.request('host_info.get', { type: 'memory' })).toMatchObject({ timestamp: 77, metrics: { total: 2048 * 1024, free: 1024 * 1024 }, error: null, truncated: null });
      expect(await session?.request('host_info.get', { type: 'cpus' })).toMatchObject({ timestamp: 77, metrics: [], error: expect.stringContaining('ENOENT') });
      const error = await session?.request('host_info.get', { type: 'sysctl' }).then(() => undefined, (e: unknown) => e);
      expect((error as StrataError).details).toMatchObject({ code: 400, type: 'AGENT_PARAMS_INVALID' });
      expect(connection.ready).toBe(true);
      expect(connection.status().hellos).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers check_schedule.changed and upgrade.request with {} and tells its owner', async () => {
    const endpoint = await endpointWith();
    const { connection, recorded } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    const session = [...endpoint.sessions.values()][0];
    expect(await session?.request('check_schedule.changed', {})).toEqual({});
    expect(await session?.request('upgrade.request', {})).toEqual({});
    await waitFor(() => recorded.changes === 1 && recorded.upgrades === 1, 'both events');
  });

  it('closes and reconnects when a request times out', async () => {
    const endpoint = await endpointWith(tls, { unanswered: ['config_file.post'] });
    const { connection, recorded } = connectionTo(endpoint, { requestTimeoutMs: 200 });
    await waitFor(() => connection.ready, 'the hello');
    const error = await connection.request('config_file.post', { config_data: 'x' }).then(() => undefined, (e: unknown) => e);
    expect((error as StrataError).code).toBe('AGENT_REQUEST_TIMEOUT');
    await waitFor(() => recorded.ready.length === 2, 'the reconnect');
    expect(recorded.downs).toBe(1);
  });

  it('keeps the connection when a request is too long to send: it is refused before anything is written', async () => {
    const endpoint = await endpointWith();
    const { connection, recorded } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    const error = await connection.request('config_file.post', { config_data: 'x'.repeat(AGENT_LINE_BYTES_MAX) }).then(() => undefined, (e: unknown) => e);
    expect((error as StrataError).code).toBe('AGENT_LINE_TOO_LONG');
    expect(connection.ready).toBe(true);
    expect(await connection.request('check_schedule.get', {})).toEqual({ checks: [] });
    expect(endpoint.of('config_file.post')).toEqual([]);
    expect(recorded.downs).toBe(0);
    expect(connection.status()).toMatchObject({ hellos: 1, failures: 0 });
  });

  it('refuses requests while not ready', async () => {
    const endpoint = await endpointWith(otherTls);
    const { connection } = connectionTo(endpoint);
    const error = await connection.request('check_schedule.get', {}).then(() => undefined, (e: unknown) => e);
    expect((error as StrataError).code).toBe('AGENT_CONNECTION_CLOSED');
  });

  it('never logs its token', async () => {
    const endpoint = await endpointWith();
    const { connection, logger } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    endpoint.closeSessions();
    await waitFor(() => connection.status().hellos === 2, 'the reconnect');
    expect(JSON.stringify(logger.lines)).not.toContain(HELLO.token);
  });

  it('stops for good: no reconnect after stop', async () => {
    const endpoint = await endpointWith();
    const { connection } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    await connection.stop();
    expect(connection.status().state).toBe('stopped');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(endpoint.of('handshake.hello')).toHaveLength(1);
  });

  it('stops by letting the endpoint read what was already sent, and tells its owner it is down once', async () => {
    const endpoint = await endpointWith();
    const { connection, recorded } = connectionTo(endpoint);
    await waitFor(() => connection.ready, 'the hello');
    // More than the kernel takes at once while the endpoint (in this process) cannot read: a socket destroyed at stop would lose the rest.
    const payload = 'x'.repeat(AGENT_LINE_BYTES_MAX - 1024);
    const sent = [1, 2, 3].map(() => connection.request('config_file.post', { config_data: payload }).then(() => undefined, (e: unknown) => e));
    await connection.stop();
    expect(connection.status()).toMatchObject({ state: 'stopped', readySinceMs: null });
    expect(recorded.downs).toBe(1);
    for (const outcome of await Promise.all(sent)) expect((outcome as StrataError).code).toBe('AGENT_CONNECTION_CLOSED');
    await waitFor(() => endpoint.of('config_file.post').length === 3, 'the requests sent before stop');
    for (const request of endpoint.of('config_file.post')) expect(request.params.config_data).toBe(payload);
    await connection.stop();
    expect(recorded.downs).toBe(1);
  });
});
