// Checks the agent lookups of EntityService: entities bound to an agent (through the mon_entity_agent index) and their agent checks, per tenant, bounded, secrets redacted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AGENT_CHECKS_OF_SQL, ENTITIES_OF_AGENT_SQL } from '../../src/monitoring/doc-store.js';
import { openMonitoring, type MonitoringService } from '../../src/monitoring/monitoring-service.js';

const START_MS = 1_790_000_000_000;

/** The detail lines of SQLite's plan for a statement. */
function planOf(monitoring: MonitoringService, sql: string, ...params: unknown[]): string {
  const rows = monitoring.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((row) => row.detail).join('\n');
}

describe('EntityService agent lookups', () => {
  let monitoring: MonitoringService;

  beforeEach(() => {
    monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(START_MS) });
  });
  afterEach(() => monitoring.close());

  it('finds the entities whose agent_id names the agent, sorted, in the tenant only, at most limit', () => {
    const { entities } = monitoring;
    const bound = [0, 1, 2, 3].map((i) => entities.createEntity('t1', { label: `web-${i}`, agent_id: 'web.example.com' })).sort();
    entities.createEntity('t1', { label: 'free' });
    entities.createEntity('t1', { label: 'other', agent_id: 'db.example.com' });
    const theirs = entities.createEntity('t2', { label: 'theirs', agent_id: 'web.example.com' });
    expect(entities.entitiesOfAgent('t1', 'web.example.com', 16)).toEqual(bound);
    expect(entities.entitiesOfAgent('t1', 'web.example.com', 2)).toEqual(bound.slice(0, 2));
    expect(entities.entitiesOfAgent('t2', 'web.example.com', 16)).toEqual([theirs]);
    expect(entities.entitiesOfAgent('t3', 'web.example.com', 16)).toEqual([]);
    // Agent ids match exactly: no case folding, no prefix.
    expect(entities.entitiesOfAgent('t1', 'WEB.example.com', 16)).toEqual([]);
    expect(entities.entitiesOfAgent('t1', 'web', 16)).toEqual([]);
  });

  it('follows updates: unbinding, rebinding and deleting an entity', () => {
    const { entities } = monitoring;
    const a = entities.createEntity('t1', { label: 'a', agent_id: 'ag1' });
    const b = entities.createEntity('t1', { label: 'b', agent_id: 'ag1' });
    entities.updateEntity('t1', a, { agent_id: null });
    expect(entities.entitiesOfAgent('t1', 'ag1', 16)).toEqual([b]);
    entities.updateEntity('t1', a, { agent_id: 'ag2' });
    expect(entities.entitiesOfAgent('t1', 'ag2', 16)).toEqual([a]);
    // An update that leaves agent_id out keeps the binding.
    entities.updateEntity('t1', a, { label: 'renamed' });
    expect(entities.entitiesOfAgent('t1', 'ag2', 16)).toEqual([a]);
    entities.deleteEntity('t1', b);
    expect(entities.entitiesOfAgent('t1', 'ag1', 16)).toEqual([]);
  });

  it('answers the agent lookup from the mon_entity_agent index, without a sort; the checks from the key', () => {
    expect(planOf(monitoring, ENTITIES_OF_AGENT_SQL, 't1', 'ag1', 16)).toMatch(/SEARCH mon_entity USING (COVERING )?INDEX mon_entity_agent/);
    expect(planOf(monitoring, ENTITIES_OF_AGENT_SQL, 't1', 'ag1', 16)).not.toMatch(/TEMP B-TREE/);
    expect(planOf(monitoring, AGENT_CHECKS_OF_SQL, 't1', 'en1', 100)).toMatch(/SEARCH mon_check USING PRIMARY KEY \(tenant=\? AND entity_id=\?\)/);
    expect(planOf(monitoring, AGENT_CHECKS_OF_SQL, 't1', 'en1', 100)).not.toMatch(/TEMP B-TREE/);
  });

  it('lists the agent checks of the entities, disabled ones included, remote ones not, in entity order then by id', () => {
    const { entities } = monitoring;
    const first = entities.createEntity('t1', { label: 'a', agent_id: 'ag1', ip_addresses: { web: '192.0.2.1' } });
    const second = entities.createEntity('t1', { label: 'b', agent_id: 'ag1' });
    const cpu = entities.createCheck('t1', first, { type: 'agent.cpu' });
    const memory = entities.createCheck('t1', first, { type: 'agent.memory', disabled: true });
    entities.createCheck('t1', first, { type: 'remote.ping', monitoring_zones_poll: ['mzdfw'], target_alias: 'web' });
    const disk = entities.createCheck('t1', second, { type: 'agent.disk', details: { target: '/dev/sda1' } });
    const checks = entities.agentChecksOf('t1', [second, first]);
    expect(checks.map((c) => c.id)).toEqual([disk, ...[cpu, memory].sort()]);
    expect(checks.map((c) => c.entityId)).toEqual([second, first, first]);
    expect(checks.find((c) => c.id === memory)?.doc).toMatchObject({ type: 'agent.memory', disabled: true });
    expect(checks.find((c) => c.id === disk)?.doc.details).toEqual({ target: '/dev/sda1' });
    expect(entities.agentChecksOf('t1', [])).toEqual([]);
    expect(entities.agentChecksOf('t1', ['enNope'])).toEqual([]);
    // Another tenant naming these entity ids gets nothing.
    expect(entities.agentChecksOf('t2', [first, second])).toEqual([]);
  });

  it('redacts check secrets, as every read but the check runner does', () => {
    const { entities } = monitoring;
    const entity = entities.createEntity('t1', { label: 'db', agent_id: 'ag1' });
    entities.createCheck('t1', entity, { type: 'agent.mysql', details: { username: 'monitor', password: 's3cret' } });
    const [check] = entities.agentChecksOf('t1', [entity]);
    expect(check?.doc.details).toEqual({ username: 'monitor', password: '[redacted]' });
    expect(JSON.stringify(monitoring.store.db.prepare('SELECT doc FROM mon_check').all())).not.toContain('s3cret');
  });
});
