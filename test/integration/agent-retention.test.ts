// Checks the 30-day agent retention (spec 2.1) with an injected clock: a real agent connected over TLS to an in-process endpoint, read through operations 1-3 over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentFleet } from '../../src/agent/client/agent-fleet.js';
import { loadAgentTls } from '../../src/agent/endpoint/agent-ca.js';
import { AgentEndpoint } from '../../src/agent/endpoint/agent-endpoint.js';
import { monitoringBackend } from '../../src/agent/endpoint/monitoring-backend.js';
import { AGENT_TOUCH_INTERVAL_MS } from '../../src/agent/agent-limits.js';
import { UpdateStore } from '../../src/agent/update/update-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { AGENT_RETENTION_MS } from '../../src/monitoring/monitoring-limits.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { quietAgentLogger as quiet, testFleet } from './agent-fixture.js';
import { base } from './monitoring-client.js';
import { until, UNTIL_TIMEOUT_MS } from './poll-until.js';

/** A whole hour near now: the endpoint's certificates are issued by this clock and checked by TLS against the real time. */
const START_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
/** The shortest heartbeat interval the endpoint allows, so heartbeats come quickly in real time. */
const HEARTBEAT_MS = 100;
const b = base('t1');

/** How often this file polls: heartbeats come every HEARTBEAT_MS. */
const POLL_MS = 10;

describe('agent retention (spec 2.1) with an injected clock', () => {
  const clock = new ManualClock(START_MS);
  let h: Harness;
  let endpoint: AgentEndpoint;
  let port: number;
  let rootCert: string;
  let agentToken: string;
  const fleets: AgentFleet[] = [];

  beforeAll(async () => {
    h = await startHarness({ clock });
    const { monitoring, runtime } = h.app.strata;
    const tls = loadAgentTls({ dataDir: undefined, hosts: ['127.0.0.1', 'localhost'], clock });
    rootCert = tls.rootCert;
    endpoint = new AgentEndpoint({
      backend: monitoringBackend({ monitoring, runtime, updates: new UpdateStore(undefined) }),
      clock,
      logger: quiet,
      options: { listen: [{ zoneId: 'mzdfw', host: '127.0.0.1', port: 0 }], tls, heartbeatIntervalMs: HEARTBEAT_MS },
    });
    port = (await endpoint.start())[0]?.port as number;
    const alice = await h.token('alice');
    const created = await call(h, 'POST', `${b}/agent_tokens`, { token: alice, json: { label: 'retention' } });
    expect(created.status, created.text).toBe(201);
    agentToken = (await call(h, 'GET', `${b}/agent_tokens/${created.headers.get('x-object-id')}`, { token: alice })).json.token;
  });

  afterAll(async () => {
    await Promise.all(fleets.map((fleet) => fleet.stop()));
    await endpoint.stop();
    await h.close();
  });

  /** Starts the real agent (one connection) and waits for its hello. */
  async function connectAgent(agentId: string): Promise<AgentFleet> {
    let hellos = 0;
    const fleet = testFleet({ endpoints: [{ host: '127.0.0.1', port }], ca: rootCert, token: agentToken, agentId, guid: `guid-${agentId}`, onConnected: () => (hellos += 1) });
    fleets.push(fleet);
    fleet.start();
    await until(`${agentId} connected`, () => hellos === 1, UNTIL_TIMEOUT_MS, POLL_MS);
    return fleet;
  }

  /** Stops the agent and waits until its connection is gone from operation 3. */
  async function disconnect(fleet: AgentFleet, agentId: string): Promise<void> {
    await fleet.stop();
    await until(`${agentId} disconnected`, async () => (await get(`/agents/${agentId}/connections`)).json?.values?.length === 0, UNTIL_TIMEOUT_MS, POLL_MS);
  }

  /** A GET with a fresh token (tokens expire as the clock moves). */
  async function get(path: string) {
    return call(h, 'GET', `${b}${path}`, { token: await h.token('alice') });
  }

  async function listed(): Promise<{ id: string; last_connected: number }[]> {
    const res = await get('/agents');
    expect(res.status, res.text).toBe(200);
    return res.json.values;
  }

  /** Moves the clock and waits for a heartbeat the endpoint handled after the move. */
  async function advanceWithHeartbeat(deltaMs: number): Promise<void> {
    const before = endpoint.stats().heartbeats;
    clock.advance(deltaMs);
    await until('a heartbeat after the clock moved', () => endpoint.stats().heartbeats > before, UNTIL_TIMEOUT_MS, POLL_MS);
  }

  it('lists an agent after it connects, until 30 days after it last connected, then drops it from operations 1 to 3', async () => {
    const agentId = 'brief.example.com';
    const connectedMs = clock.now();
    const fleet = await connectAgent(agentId);
    expect(await listed()).toContainEqual({ id: agentId, last_connected: connectedMs });
    const connections = (await get(`/agents/${agentId}/connections`)).json.values;
    expect(connections).toEqual([expect.objectContaining({ agent_id: agentId, guid: `guid-${agentId}`, agent_ip: '127.0.0.1' })]);
    await disconnect(fleet, agentId);

    clock.set(connectedMs + AGENT_RETENTION_MS - 1);
    expect(await listed()).toContainEqual({ id: agentId, last_connected: connectedMs });
    expect((await get(`/agents/${agentId}`)).json).toEqual({ id: agentId, last_connected: connectedMs });
    expect((await get(`/agents/${agentId}/connections`)).json.values).toEqual([]);

    clock.set(connectedMs + AGENT_RETENTION_MS + 1);
    expect((await listed()).map((agent) => agent.id)).not.toContain(agentId);
    expect((await get(`/agents/${agentId}`)).status).toBe(404);
    expect((await get(`/agents/${agentId}/connections`)).status).toBe(404);
  });

  it('keeps an agent that stays connected listed past 30 days: heartbeats refresh last_connected at most every AGENT_TOUCH_INTERVAL_MS', async () => {
    const agentId = 'steady.example.com';
    const connectedMs = clock.now();
    const fleet = await connectAgent(agentId);
    for (let day = 1; day <= 31; day++) await advanceWithHeartbeat(DAY_MS);
    const touchedMs = connectedMs + 31 * DAY_MS;
    expect(await listed()).toContainEqual({ id: agentId, last_connected: touchedMs });
    // Within the touch interval a heartbeat leaves last_connected alone; at the interval it moves.
    await advanceWithHeartbeat(AGENT_TOUCH_INTERVAL_MS - 1);
    expect((await get(`/agents/${agentId}`)).json).toEqual({ id: agentId, last_connected: touchedMs });
    await advanceWithHeartbeat(1);
    expect((await get(`/agents/${agentId}`)).json).toEqual({ id: agentId, last_connected: touchedMs + AGENT_TOUCH_INTERVAL_MS });
    expect((await get(`/agents/${agentId}/connections`)).json.values).toHaveLength(1);
    // The agent connected earlier in this file, gone for over 30 days, is not listed; this one is.
    expect((await listed()).map((agent) => agent.id)).toEqual([agentId]);
    await disconnect(fleet, agentId);
  });

  it('counts the 30 days from the disconnect of a long-connected agent, not from its last hourly touch', async () => {
    const agentId = 'long.example.com';
    const fleet = await connectAgent(agentId);
    await advanceWithHeartbeat(2 * DAY_MS);
    // Connected until 30 minutes after the last touch, then gone.
    await advanceWithHeartbeat(30 * MINUTE_MS);
    const disconnectedMs = clock.now();
    await disconnect(fleet, agentId);

    clock.set(disconnectedMs + AGENT_RETENTION_MS - 1);
    expect((await listed()).map((agent) => agent.id)).toContain(agentId);
    expect((await get(`/agents/${agentId}`)).status).toBe(200);

    clock.set(disconnectedMs + AGENT_RETENTION_MS + 1);
    expect((await listed()).map((agent) => agent.id)).not.toContain(agentId);
    expect((await get(`/agents/${agentId}`)).status).toBe(404);
  });
});
