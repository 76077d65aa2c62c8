// Checks live agent connections: the in-memory registry (ids, tenant and agent scoping, the bound, removal) and AgentService over it (touching last_connected, 404s after disconnect, marker pages, the agents a tenant may have).
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { ManualClock } from '../../src/core/clock.js';
import { AgentConnections, type ConnectionFields } from '../../src/monitoring/agent-connections.js';
import { AgentService } from '../../src/monitoring/agent-service.js';
import { AGENT_RETENTION_MS, AGENTS_PER_TENANT_MAX, ENTITIES_PER_TENANT_MAX } from '../../src/monitoring/monitoring-limits.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;

function fields(agentId: string, zoneId = 'mzdfw', agentIp = '192.0.2.7'): ConnectionFields {
  return { agentId, guid: '0b49b96d-24c9-45ca-8585-4040707f4880', processVersion: '1.2.3', bundleVersion: '4.5.6', agentIp, zoneId };
}

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'none';
}

describe('AgentConnections', () => {
  it('registers a connection under a fresh cn id, finds it, lists it, and removes it once', () => {
    const live = new AgentConnections();
    const made = live.add('t1', fields('ag1'), NOW_MS);
    expect(made).toEqual({ ...fields('ag1'), id: made.id, connectedMs: NOW_MS });
    expect(made.id).toMatch(/^cn[A-Za-z0-9]{8}$/);
    expect(live.get('t1', 'ag1', made.id)).toEqual(made);
    expect(live.list('t1', 'ag1', '', 10)).toEqual([made]);
    expect([live.size, live.countOf('t1', 'ag1')]).toEqual([1, 1]);
    expect(live.remove('t1', 'ag1', made.id)).toBe(true);
    expect(live.remove('t1', 'ag1', made.id)).toBe(false);
    expect(live.get('t1', 'ag1', made.id)).toBeUndefined();
    expect(live.list('t1', 'ag1', '', 10)).toEqual([]);
    expect([live.size, live.countOf('t1', 'ag1')]).toEqual([0, 0]);
  });

  it('gives every connection its own id, also of one agent in one zone', () => {
    const live = new AgentConnections();
    const ids = new Set(Array.from({ length: 200 }, () => live.add('t1', fields('ag1'), NOW_MS).id));
    expect(ids.size).toBe(200);
    expect(live.countOf('t1', 'ag1')).toBe(200);
  });

  it('scopes connections by tenant and agent: the same agent id in two tenants is two agents', () => {
    const live = new AgentConnections();
    const mine = live.add('t1', fields('ag1'), NOW_MS);
    const theirs = live.add('t2', fields('ag1'), NOW_MS);
    const other = live.add('t1', fields('ag2'), NOW_MS);
    expect(live.get('t2', 'ag1', mine.id)).toBeUndefined();
    expect(live.get('t1', 'ag2', mine.id)).toBeUndefined();
    expect(live.list('t1', 'ag1', '', 10).map((c) => c.id)).toEqual([mine.id]);
    expect(live.list('t2', 'ag1', '', 10).map((c) => c.id)).toEqual([theirs.id]);
    expect(live.list('t3', 'ag1', '', 10)).toEqual([]);
    // Removing under the wrong tenant or agent removes nothing.
    expect(live.remove('t2', 'ag1', mine.id)).toBe(false);
    expect(live.remove('t1', 'ag2', mine.id)).toBe(false);
    expect(live.size).toBe(3);
    expect(live.get('t1', 'ag2', other.id)).toEqual(other);
  });

  it('lists from a marker (inclusive), by id, at most limit', () => {
    const live = new AgentConnections();
    const ids = Array.from({ length: 7 }, () => live.add('t1', fields('ag1'), NOW_MS).id).sort();
    expect(live.list('t1', 'ag1', '', 3).map((c) => c.id)).toEqual(ids.slice(0, 3));
    expect(live.list('t1', 'ag1', ids[3] as string, 3).map((c) => c.id)).toEqual(ids.slice(3, 6));
    expect(live.list('t1', 'ag1', `${ids[6] as string}~`, 3)).toEqual([]);
    expect(live.list('t1', 'ag1', '', 0)).toEqual([]);
  });

  it('refuses the connection past its bound with AGENT_CONNECTIONS_OVER_LIMIT, and takes one again after a removal', () => {
    const live = new AgentConnections(2);
    const first = live.add('t1', fields('ag1'), NOW_MS);
    live.add('t2', fields('ag2'), NOW_MS);
    expect(codeOf(() => live.add('t3', fields('ag3'), NOW_MS))).toBe('AGENT_CONNECTIONS_OVER_LIMIT');
    expect(live.size).toBe(2);
    expect(live.list('t3', 'ag3', '', 10)).toEqual([]);
    live.remove('t1', 'ag1', first.id);
    expect(live.add('t3', fields('ag3'), NOW_MS).agentId).toBe('ag3');
    expect(live.size).toBe(2);
  });

  it('treats an invalid agent id or bound as a programmer error', () => {
    expect(() => new AgentConnections().add('t1', fields('bad id!'), NOW_MS)).toThrow(AssertionFailure);
    expect(() => new AgentConnections(0)).toThrow(AssertionFailure);
  });
});

describe('AgentService live connections', () => {
  let store: MonitoringStore;
  let clock: ManualClock;
  let agents: AgentService;

  beforeEach(() => {
    store = new MonitoringStore(undefined);
    clock = new ManualClock(NOW_MS);
    agents = new AgentService(store, clock, randomBytes(32));
  });
  afterEach(() => store.close());

  it('connect registers the connection and records last_connected; touch moves it; disconnect removes the connection only', () => {
    const id = agents.connect('t1', fields('web-1.example.com', 'mzord', '10.0.0.2'));
    expect(agents.agent('t1', 'web-1.example.com')).toEqual({ id: 'web-1.example.com', lastConnectedMs: NOW_MS });
    expect(agents.connection('t1', 'web-1.example.com', id)).toMatchObject({ id, agentIp: '10.0.0.2', zoneId: 'mzord', connectedMs: NOW_MS });
    expect(agents.liveConnections()).toBe(1);
    clock.advance(60_000);
    agents.touch('t1', 'web-1.example.com');
    expect(agents.agent('t1', 'web-1.example.com').lastConnectedMs).toBe(NOW_MS + 60_000);
    // The connection keeps the time it was made.
    expect(agents.connection('t1', 'web-1.example.com', id).connectedMs).toBe(NOW_MS);
    agents.disconnect('t1', 'web-1.example.com', id);
    agents.disconnect('t1', 'web-1.example.com', id);
    expect(agents.liveConnections()).toBe(0);
    expect(codeOf(() => agents.connection('t1', 'web-1.example.com', id))).toBe('MONITORING_OBJECT_NOT_FOUND');
    expect(agents.listConnections('t1', 'web-1.example.com', { limit: 10 })).toEqual({ values: [], nextMarker: null });
    expect(agents.agent('t1', 'web-1.example.com').lastConnectedMs).toBe(NOW_MS + 60_000);
  });

  it("answers MONITORING_OBJECT_NOT_FOUND for an unlisted agent's connections and for another tenant's", () => {
    const id = agents.connect('t1', fields('ag1'));
    expect(codeOf(() => agents.listConnections('t2', 'ag1', { limit: 10 }))).toBe('MONITORING_OBJECT_NOT_FOUND');
    expect(codeOf(() => agents.connection('t2', 'ag1', id))).toBe('MONITORING_OBJECT_NOT_FOUND');
    agents.connect('t2', fields('ag1'));
    expect(agents.listConnections('t2', 'ag1', { limit: 10 }).values.map((c) => c.id)).not.toContain(id);
    expect(codeOf(() => agents.connection('t2', 'ag1', id))).toBe('MONITORING_OBJECT_NOT_FOUND');
    expect(codeOf(() => agents.listConnections('t1', 'nobody', { limit: 10 }))).toBe('MONITORING_OBJECT_NOT_FOUND');
  });

  it('pages an agent\'s connections by marker: the next marker is the first id of the next page', () => {
    const ids = [0, 1, 2, 3, 4].map((i) => agents.connect('t1', fields('ag1', `mz${i}`))).sort();
    const first = agents.listConnections('t1', 'ag1', { limit: 2 });
    expect(first.values.map((c) => c.id)).toEqual(ids.slice(0, 2));
    expect(first.nextMarker).toBe(ids[2]);
    const last = agents.listConnections('t1', 'ag1', { marker: ids[4] as string, limit: 2 });
    expect(last).toEqual({ values: [expect.objectContaining({ id: ids[4] })], nextMarker: null });
  });

  it('refuses a new agent id once the tenant has agentsMax agents, still connects known ones, and counts only agents within the retention', () => {
    expect(AGENTS_PER_TENANT_MAX).toBe(ENTITIES_PER_TENANT_MAX);
    const capped = new AgentService(store, clock, randomBytes(32), new AgentConnections(), 2);
    const first = capped.connect('t1', fields('ag1'));
    capped.connect('t1', fields('ag2'));
    expect(codeOf(() => capped.connect('t1', fields('ag3')))).toBe('AGENT_CONNECTIONS_OVER_LIMIT');
    const refused = (() => {
      try {
        capped.connect('t1', fields('ag3'));
      } catch (error) {
        return error as { details: unknown; message: string };
      }
      return undefined;
    })();
    expect(refused?.details).toEqual({ limit: 'tenant_agents', max: 2 });
    expect(refused?.message).toContain('ag3');
    // Nothing of the refused agent was kept: no row, no connection.
    expect(codeOf(() => capped.agent('t1', 'ag3'))).toBe('MONITORING_OBJECT_NOT_FOUND');
    expect(capped.liveConnections()).toBe(2);
    // Known agents connect again (another zone, or after a disconnect); other tenants have their own count.
    capped.disconnect('t1', 'ag1', first);
    capped.connect('t1', fields('ag1', 'mzord'));
    capped.connect('t1', fields('ag2', 'mziad'));
    capped.connect('t2', fields('ag3'));
    // An agent not seen within the retention no longer counts, and is a new one when it comes back.
    clock.advance(AGENT_RETENTION_MS - 1_000);
    capped.touch('t1', 'ag2');
    clock.advance(2_000);
    expect(capped.connect('t1', fields('ag3'))).toMatch(/^cn/);
    expect(codeOf(() => capped.connect('t1', fields('ag1')))).toBe('AGENT_CONNECTIONS_OVER_LIMIT');
  });

  it('leaves no agent row when the registry is full, and no connection when the store cannot record the agent', () => {
    const bounded = new AgentService(store, clock, randomBytes(32), new AgentConnections(1));
    bounded.connect('t1', fields('ag1'));
    expect(codeOf(() => bounded.connect('t1', fields('ag2')))).toBe('AGENT_CONNECTIONS_OVER_LIMIT');
    expect(codeOf(() => bounded.agent('t1', 'ag2'))).toBe('MONITORING_OBJECT_NOT_FOUND');
    store.close();
    expect(() => agents.connect('t1', fields('ag3'))).toThrow(/not open/);
    expect(agents.liveConnections()).toBe(0);
  });
});
