// Checks what a handshaken agent can do over real TLS: heartbeats (token re-checked once an interval, last_connected touched), schedule (from the hub's cache), metric posts and their refusals, check_schedule.changed pushes (one per agent), versions.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_REAUTH_INTERVAL_MS, AGENT_TOUCH_INTERVAL_MS } from '../../../src/agent/agent-limits.js';
import { INGEST_FUTURE_SKEW_MS } from '../../../src/core/limits.js';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import type { MetricsPostParams } from '../../../src/agent/protocol/messages.js';
import { ManualClock } from '../../../src/core/clock.js';
import { agentCheck, connectAgent, FakeBackend, helloOf, startEndpoint, until, type RunningEndpoint, type TestAgent } from './endpoint-fixtures.js';

// Near the wall clock: certificates issued by this clock are checked against the real time.
const clock = new ManualClock(Date.now());
let tls: AgentTlsMaterial;
let backend: FakeBackend;
let started: RunningEndpoint;
let client: TestAgent;

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
});

beforeEach(async () => {
  backend = new FakeBackend();
  backend.tokens.set('token-a', { tenant: 't1', tokenId: 'atA' });
  backend.bind('t1', 'enWeb', 'web-1', false);
  backend.addCheck('t1', agentCheck('enWeb', 'chCpu', 'agent.cpu', { details: {}, period: 30, timeout: 10 }), false);
  backend.addCheck('t1', agentCheck('enWeb', 'chDisk', 'agent.disk', { details: { target: '/dev/sda' }, disabled: true }), false);
  backend.addCheck('t1', agentCheck('enOther', 'chElse', 'agent.memory'), false);
  started = await startEndpoint(backend, tls, clock, { zones: ['mziad', 'mzord'] });
  client = await connectAgent(started.port('mziad'), tls.rootCert);
  await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
});

afterEach(async () => {
  client.socket.destroy();
  await started.endpoint.stop();
});

/** The protocol error of a refused request (its details: code, message, type). */
async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { code: string; details: Record<string, unknown> },
  );
  expect(error?.code).toBe('AGENT_REQUEST_REFUSED');
  return error?.details ?? {};
}

function post(extra: Partial<MetricsPostParams> = {}): MetricsPostParams {
  return {
    check_id: 'chCpu',
    check_type: 'agent.cpu',
    state: 'available',
    status: 'ok',
    timestamp: clock.now() - 1_000,
    metrics: [
      [null, { usage_average: { t: 'double', v: '12.5', u: 'percent' }, count: { t: 'uint32', v: '4', u: 'cpus' } }],
      ['cpu0', { usage: { t: 'gauge', v: '0x10', u: 'percent' } }],
    ],
    ...extra,
  };
}

describe('AgentSession methods', () => {
  it('lists the agent checks of the bound entities, disabled ones included, from the cache the hello loaded', async () => {
    let loads = 0;
    const checksOf = backend.checksOf.bind(backend);
    backend.checksOf = (tenant, entityIds) => {
      loads++;
      return checksOf(tenant, entityIds);
    };
    for (let i = 0; i < 3; i++) await client.peer.request('check_schedule.get', {});
    expect(loads).toBe(0);
    expect(await client.peer.request('check_schedule.get', { blah: 1 })).toEqual({
      checks: [
        { id: 'chCpu', type: 'agent.cpu', details: {}, period: 30, timeout: 10, disabled: false },
        { id: 'chDisk', type: 'agent.disk', details: { target: '/dev/sda' }, period: 60, timeout: 30, disabled: true },
      ],
    });
  });

  it('hands a metrics post to the backend with bare metric names and the listener zone', async () => {
    expect(await client.peer.request('check_metrics.post', post())).toEqual({});
    expect(await client.peer.request('check_metrics.post', post({ state: 'unavailable', status: 'collector failed', metrics: [] }))).toEqual({});
    expect(backend.accepted.map((a) => [a.tenant, a.check.id])).toEqual([
      ['t1', 'chCpu'],
      ['t1', 'chCpu'],
    ]);
    expect(backend.accepted[0]?.result).toEqual({
      monitoringZoneId: 'mziad',
      timestampMs: clock.now() - 1_000,
      available: true,
      status: 'ok',
      metrics: {
        usage_average: { type: 'n', data: 12.5, unit: 'percent' },
        count: { type: 'I', data: 4, unit: 'cpus' },
        'cpu0.usage': { type: 'n', data: 16, unit: 'percent' },
      },
    });
    expect(backend.accepted[1]?.result).toMatchObject({ available: false, status: 'collector failed', metrics: {} });
    expect(started.endpoint.stats()).toMatchObject({ metricPosts: 2, metricsAccepted: 3 });
  });

  it('refuses posts for an unknown, disabled or retyped check, or too far ahead, with a 400 and keeps the connection', async () => {
    backend.engineBounds = { oldestMs: 0, newestMs: clock.now() + INGEST_FUTURE_SKEW_MS };
    for (const params of [post({ check_id: 'chNope' }), post({ check_id: 'chDisk', check_type: 'agent.disk' }), post({ check_type: 'agent.memory' }), post({ check_id: 'chElse', check_type: 'agent.memory' })]) {
      expect(await refusal(client.peer.request('check_metrics.post', params))).toMatchObject({ code: 400, type: 'AGENT_CHECK_UNKNOWN' });
    }
    expect(await refusal(client.peer.request('check_metrics.post', post({ timestamp: clock.now() + INGEST_FUTURE_SKEW_MS + 1 })))).toMatchObject({ code: 400, type: 'AGENT_PARAMS_INVALID' });
    expect(await refusal(client.peer.request('check_metrics.post', { check_id: 'chCpu' }))).toMatchObject({ code: 400, type: 'AGENT_PARAMS_INVALID' });
    expect(await refusal(client.peer.request('host_info.get', {}))).toMatchObject({ code: 400, type: 'AGENT_METHOD_UNKNOWN' });
    expect(backend.accepted).toEqual([]);
    expect(client.peer.closed).toBe(false);
    expect(await client.peer.request('check_metrics.post', post({ timestamp: clock.now() + INGEST_FUTURE_SKEW_MS }))).toEqual({});
    expect(started.endpoint.stats().protocolErrors).toBe(7);
  });

  it('answers heartbeats with its clock and touches last_connected at most once an interval', async () => {
    expect(await client.peer.request('heartbeat.post', { timestamp: 5 })).toEqual({ timestamp: clock.now() });
    expect(backend.touches).toEqual([]);
    clock.advance(AGENT_TOUCH_INTERVAL_MS);
    expect(await client.peer.request('heartbeat.post', { timestamp: 6 })).toEqual({ timestamp: clock.now() });
    await client.peer.request('heartbeat.post', { timestamp: 7 });
    expect(backend.touches).toEqual(['t1/web-1']);
    expect(started.endpoint.stats().heartbeats).toBe(3);
  });

  it('looks the token up again on a heartbeat at most once every AGENT_REAUTH_INTERVAL_MS', async () => {
    const lookups: string[] = [];
    const authenticate = backend.authenticate.bind(backend);
    backend.authenticate = (token) => {
      lookups.push(token);
      return authenticate(token);
    };
    await client.peer.request('heartbeat.post', { timestamp: 1 });
    clock.advance(AGENT_REAUTH_INTERVAL_MS - 1);
    await client.peer.request('heartbeat.post', { timestamp: 2 });
    expect(lookups).toEqual([]);
    clock.advance(1);
    await client.peer.request('heartbeat.post', { timestamp: 3 });
    await client.peer.request('heartbeat.post', { timestamp: 4 });
    expect(lookups).toEqual(['token-a']);
    clock.advance(AGENT_REAUTH_INTERVAL_MS);
    await client.peer.request('heartbeat.post', { timestamp: 5 });
    expect(lookups).toEqual(['token-a', 'token-a']);
  });

  it('closes the session at the first heartbeat that looks the token up after it was deleted (within AGENT_REAUTH_INTERVAL_MS)', async () => {
    backend.tokens.delete('token-a');
    expect(await client.peer.request('heartbeat.post', { timestamp: 5 })).toEqual({ timestamp: clock.now() });
    clock.advance(AGENT_REAUTH_INTERVAL_MS);
    expect(await refusal(client.peer.request('heartbeat.post', { timestamp: 6 }))).toMatchObject({ code: 401, type: 'AGENT_TOKEN_INVALID' });
    await client.closed;
    expect(backend.live.size).toBe(0);
  });

  it('answers config_file.post with {} and the update versions with the newest published one', async () => {
    expect(await client.peer.request('config_file.post', { config_data: 'x' })).toEqual({});
    expect(await client.peer.request('bundle_upgrade.get_version', { noop: 1 })).toEqual({ version: null });
    backend.latest = '1.4.2';
    expect(await client.peer.request('binary_upgrade.get_version', { noop: 1 })).toEqual({ version: '1.4.2' });
  });
});

describe('AgentHub pushes', () => {
  it('pushes check_schedule.changed when a check of a bound entity changes, and the cache follows', async () => {
    // Changes of entities the agent is not bound to, and of alarms, push nothing.
    backend.addCheck('t1', agentCheck('enOther', 'chElse2', 'agent.memory'));
    backend.emit({ kind: 'alarm', op: 'create', tenant: 't1', entityId: 'enWeb', id: 'alX' });
    backend.addCheck('t1', agentCheck('enWeb', 'chLoad', 'agent.load_average'));
    await client.receivedAtLeast(1);
    expect(await client.peer.request('check_metrics.post', post({ check_id: 'chLoad', check_type: 'agent.load_average' }))).toEqual({});
    // What the endpoint wrote before answering the post has arrived: exactly one push.
    expect(client.received).toEqual([{ method: 'check_schedule.changed', params: {} }]);
    expect(started.endpoint.stats().schedulePushes).toBe(1);
  });

  it('coalesces a burst of changes into few pushes, keeping the connection', async () => {
    for (let i = 0; i < 100; i++) backend.addCheck('t1', agentCheck('enWeb', `chBurst${i}`, 'agent.network'));
    await client.receivedAtLeast(1);
    const schedule = (await client.peer.request('check_schedule.get', {})) as { checks: unknown[] };
    expect(schedule.checks).toHaveLength(102);
    expect(client.peer.closed).toBe(false);
    // One push answered, then one for every change that came meanwhile: at most two for one burst.
    await client.receivedAtLeast(2);
    expect(await client.peer.request('heartbeat.post', { timestamp: 1 })).toEqual({ timestamp: clock.now() });
    expect(client.received).toHaveLength(2);
    expect(started.endpoint.stats().schedulePushes).toBe(2);
  });

  it('pushes when an entity gets bound to the agent or unbound from it, not when its schedule stays the same', async () => {
    backend.addCheck('t1', agentCheck('enDb', 'chMem', 'agent.memory'), false);
    backend.bind('t1', 'enDb', 'web-1');
    await client.receivedAtLeast(1);
    expect(await client.peer.request('check_schedule.get', {})).toMatchObject({ checks: [{ id: 'chCpu' }, { id: 'chDisk' }, { id: 'chMem' }] });
    // A change that leaves the schedule as it was (a relabelled entity) pushes nothing; the unbind does.
    backend.emit({ kind: 'entity', op: 'update', tenant: 't1', entityId: 'enWeb', id: 'enWeb' });
    backend.bind('t1', 'enDb', null);
    await client.receivedAtLeast(2);
    expect(await refusal(client.peer.request('check_metrics.post', post({ check_id: 'chMem', check_type: 'agent.memory' })))).toMatchObject({ type: 'AGENT_CHECK_UNKNOWN' });
    expect(client.received).toHaveLength(2);
  });

  it('pushes to one session of the agent (it fetches its one schedule once) when a bound entity is deleted; every session sees the change', async () => {
    const ord = await connectAgent(started.port('mzord'), tls.rootCert);
    try {
      await ord.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
      backend.entities.delete('t1/enWeb');
      backend.emit({ kind: 'entity', op: 'delete', tenant: 't1', entityId: 'enWeb', id: 'enWeb' });
      await client.receivedAtLeast(1);
      expect(await ord.peer.request('check_schedule.get', {})).toEqual({ checks: [] });
      expect(await refusal(client.peer.request('check_metrics.post', post()))).toMatchObject({ type: 'AGENT_CHECK_UNKNOWN' });
      // What the endpoint wrote before these answers has arrived: the first session's push only.
      expect([client.received.length, ord.received.length]).toEqual([1, 0]);
      expect(started.endpoint.stats()).toMatchObject({ sessions: 2, schedulePushes: 1 });
    } finally {
      ord.socket.destroy();
    }
  });

  it('pushes to the other session of the agent when the first one is gone', async () => {
    const ord = await connectAgent(started.port('mzord'), tls.rootCert);
    try {
      await ord.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
      client.socket.destroy();
      await until(() => started.endpoint.stats().sessions === 1);
      backend.addCheck('t1', agentCheck('enWeb', 'chLoad', 'agent.load_average'));
      await ord.receivedAtLeast(1);
      expect(ord.received).toEqual([{ method: 'check_schedule.changed', params: {} }]);
    } finally {
      ord.socket.destroy();
    }
  });
});
