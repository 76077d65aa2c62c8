// Property tests of live agent connections: after any run of connects and disconnects, marker pages of each agent's connections concatenate to exactly its live ids in order, and no tenant or agent sees another's.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AgentConnections } from '../../src/monitoring/agent-connections.js';
import { AgentService } from '../../src/monitoring/agent-service.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;
const TENANTS = ['t1', 't2', 't3'] as const;
const AGENTS = ['ag1', 'ag2', 'web-1.example.com'] as const;

/** One step: connect (tenant, agent) or disconnect the n-th connection still live (modulo how many are). */
type Step = { readonly op: 'connect'; readonly tenant: number; readonly agent: number } | { readonly op: 'disconnect'; readonly pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('connect' as const), tenant: fc.nat(TENANTS.length - 1), agent: fc.nat(AGENTS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('disconnect' as const), pick: fc.nat() }) },
);

interface Live {
  readonly tenant: string;
  readonly agentId: string;
  readonly id: string;
}

/** Runs the steps against the service, returning the model: the connections that should be live. */
function run(agents: AgentService, steps: readonly Step[]): Live[] {
  const live: Live[] = [];
  for (const step of steps) {
    if (step.op === 'connect') {
      const tenant = TENANTS[step.tenant] as string;
      const agentId = AGENTS[step.agent] as string;
      const id = agents.connect(tenant, { agentId, guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '192.0.2.1', zoneId: 'mzdfw' });
      live.push({ tenant, agentId, id });
    } else if (live.length > 0) {
      const [gone] = live.splice(step.pick % live.length, 1);
      if (gone !== undefined) agents.disconnect(gone.tenant, gone.agentId, gone.id);
    }
  }
  return live;
}

/** Walks every page of an agent's connections through the service, following nextMarker. */
function walk(agents: AgentService, tenant: string, agentId: string, limit: number): string[][] {
  const pages: string[][] = [];
  let marker: string | undefined;
  for (let guard = 0; guard < 1_000; guard++) {
    const page = agents.listConnections(tenant, agentId, marker === undefined ? { limit } : { marker, limit });
    pages.push(page.values.map((c) => c.id));
    if (page.nextMarker === null) return pages;
    marker = page.nextMarker;
  }
  throw new Error('paging did not end');
}

describe('AgentService live connections (property)', () => {
  it('pages concatenate to the sorted live ids of exactly that tenant and agent; full pages but the last', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 60 }), fc.integer({ min: 1, max: 7 }), (steps, limit) => {
        const store = new MonitoringStore(undefined);
        try {
          const agents = new AgentService(store, new ManualClock(NOW_MS), randomBytes(32), new AgentConnections());
          const live = run(agents, steps);
          expect(agents.liveConnections()).toBe(live.length);
          for (const tenant of TENANTS) {
            for (const agentId of AGENTS) {
              const expected = live.filter((c) => c.tenant === tenant && c.agentId === agentId).map((c) => c.id).sort();
              const connected = steps.some((s) => s.op === 'connect' && TENANTS[s.tenant] === tenant && AGENTS[s.agent] === agentId);
              if (!connected) {
                // Never connected: the agent is not listed, so neither are connections (another tenant's included).
                expect(() => agents.listConnections(tenant, agentId, { limit })).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
                continue;
              }
              const pages = walk(agents, tenant, agentId, limit);
              expect(pages.flat()).toEqual(expected);
              expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
              for (const id of expected) expect(agents.connection(tenant, agentId, id).agentId).toBe(agentId);
            }
          }
          // No id is reachable under another tenant or agent.
          for (const c of live) {
            for (const tenant of TENANTS) {
              for (const agentId of AGENTS) {
                if (tenant === c.tenant && agentId === c.agentId) continue;
                expect(() => agents.connection(tenant, agentId, c.id)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
              }
            }
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the registry alone: list from any marker is the sorted ids >= marker, cut at limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.string({ maxLength: 11 }), fc.integer({ min: 0, max: 40 }), (count, marker, limit) => {
        const registry = new AgentConnections();
        const fields = { agentId: 'ag1', guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '192.0.2.1', zoneId: 'mzdfw' };
        const ids = Array.from({ length: count }, () => registry.add('t1', fields, NOW_MS).id);
        registry.add('t2', fields, NOW_MS);
        const expected = ids.filter((id) => id >= marker).sort().slice(0, limit);
        expect(registry.list('t1', 'ag1', marker, limit).map((c) => c.id)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
