// Checks the agent backend over a real monitoring service, runtime, engine and update store: tokens, bound entities and agent checks (bounded), live connections, results stored and alarms evaluated (AGENT_BUSY when the engine queue is full), changes, bundle versions (cached).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_ENTITIES_MAX, AGENT_SCHEDULE_CHECKS_MAX, AGENT_UPDATE_VERSION_CACHE_MS } from '../../../src/agent/agent-limits.js';
import type { AgentBackend } from '../../../src/agent/endpoint/agent-backend.js';
import { monitoringBackend } from '../../../src/agent/endpoint/monitoring-backend.js';
import { resultTimestampBounds } from '../../../src/monitoring/runner/result-timestamp.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { ManualClock } from '../../../src/core/clock.js';
import { HOUR_MS } from '../../../src/core/time.js';
import { openFeeds, type Feeds } from '../../../src/feeds/feeds-service.js';
import type { MonitoringChange } from '../../../src/monitoring/change-feed.js';
import type { CheckResult, ResultMetric } from '../../../src/monitoring/check-result.js';
import { CHECK_SINK_PENDING_POINTS_MAX, CHECKS_PER_ENTITY_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { MonitoringRuntime } from '../../../src/monitoring/monitoring-runtime.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { openStore } from '../../../src/store.js';
import type { Store } from '../../../src/store-types.js';

/** A whole hour near now: the engine takes points near its clock only. */
const START_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const FIELDS = { agentId: 'web-1.example.com', guid: '0b49b96d-24c9-45ca-8585-4040707f4880', processVersion: '1.0.0', bundleVersion: '1.0.1', agentIp: '10.0.0.2', zoneId: 'mzdfw' };

const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('monitoringBackend', () => {
  let dir: string;
  let clock: ManualClock;
  let engine: Store;
  let feeds: Feeds;
  let monitoring: MonitoringService;
  let runtime: MonitoringRuntime;
  let updates: UpdateStore;
  /** Directory reads of latestVersion through the backend. */
  let versionReads: string[];
  let backend: AgentBackend;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-agent-backend-'));
    clock = new ManualClock(START_MS);
    engine = await openStore({ dir: join(dir, 'engine'), clock, workers: 0, background: false });
    feeds = openFeeds({ dir: undefined, clock, region: 'LOCAL' });
    monitoring = openMonitoring({ dir: undefined, clock });
    let txn = 0;
    runtime = new MonitoringRuntime({ monitoring, engine, feeds, clock, logger: quietLogger, newTxnId: () => `txn-${++txn}` });
    updates = new UpdateStore(dir);
    versionReads = [];
    const counted = {
      latestVersion: (channel: string) => {
        versionReads.push(channel);
        return updates.latestVersion(channel);
      },
    };
    backend = monitoringBackend({ monitoring, runtime, updates: counted, clock });
  });

  afterEach(async () => {
    await runtime.stop();
    await engine.close();
    feeds.close();
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authenticates a token value to its tenant and id until the token is deleted', () => {
    const tokenId = monitoring.agents.createToken('t1', { label: 'host' });
    const value = monitoring.agents.token('t1', tokenId).token;
    expect(backend.authenticate(value)).toEqual({ tenant: 't1', tokenId });
    expect(backend.authenticate(`${value}x`)).toBeUndefined();
    expect(backend.authenticate('')).toBeUndefined();
    monitoring.agents.deleteToken('t1', tokenId);
    expect(backend.authenticate(value)).toBeUndefined();
  });

  it('names at most AGENT_ENTITIES_MAX bound entities, sorted, of the tenant only', () => {
    const ids = Array.from({ length: AGENT_ENTITIES_MAX + 2 }, (_, i) => monitoring.entities.createEntity('t1', { label: `e${i}`, agent_id: FIELDS.agentId })).sort();
    monitoring.entities.createEntity('t2', { label: 'theirs', agent_id: FIELDS.agentId });
    expect(backend.entitiesOf('t1', FIELDS.agentId)).toEqual(ids.slice(0, AGENT_ENTITIES_MAX));
    expect(backend.entitiesOf('t1', 'nobody.example.com')).toEqual([]);
    expect(backend.entitiesOf('t2', FIELDS.agentId)).toHaveLength(1);
  });

  it('lists the agent checks of the entities with their entity, at most AGENT_SCHEDULE_CHECKS_MAX', () => {
    const entities = Array.from({ length: Math.ceil(AGENT_SCHEDULE_CHECKS_MAX / CHECKS_PER_ENTITY_MAX) + 1 }, (_, i) =>
      monitoring.entities.createEntity('t1', { label: `e${i}`, agent_id: FIELDS.agentId }),
    ).sort();
    for (const entity of entities) for (let i = 0; i < CHECKS_PER_ENTITY_MAX; i++) monitoring.entities.createCheck('t1', entity, { type: 'agent.cpu', disabled: i % 2 === 0 });
    const checks = backend.checksOf('t1', entities);
    expect(checks).toHaveLength(AGENT_SCHEDULE_CHECKS_MAX);
    expect(checks.every(({ entityId, check }) => check.entityId === entityId && check.doc.type === 'agent.cpu')).toBe(true);
    expect(checks.some(({ check }) => check.doc.disabled)).toBe(true);
    expect(checks[0]?.entityId).toBe(entities[0]);
    expect(backend.checksOf('t2', entities)).toEqual([]);
  });

  it('registers a live connection (touching last_connected), refreshes it, and removes it', () => {
    const id = backend.connected('t1', FIELDS);
    const agents = monitoring.agents;
    expect(agents.agent('t1', FIELDS.agentId).lastConnectedMs).toBe(START_MS);
    expect(agents.listConnections('t1', FIELDS.agentId, { limit: 10 }).values).toEqual([{ ...FIELDS, id, connectedMs: START_MS }]);
    clock.advance(HOUR_MS);
    backend.touch('t1', FIELDS.agentId);
    expect(agents.agent('t1', FIELDS.agentId).lastConnectedMs).toBe(START_MS + HOUR_MS);
    expect(() => agents.connection('t2', FIELDS.agentId, id)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    backend.disconnected('t1', FIELDS.agentId, id);
    backend.disconnected('t1', FIELDS.agentId, id);
    expect(agents.listConnections('t1', FIELDS.agentId, { limit: 10 }).values).toEqual([]);
  });

  it('stores an accepted result under bare metric names and evaluates the check\'s alarms', async () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'host', agent_id: FIELDS.agentId });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu' });
    const criteria = ":set consecutiveCount=1\nif (metric['usage_average'] > 90) { return new AlarmStatus(CRITICAL, 'hot'); } return new AlarmStatus(OK);";
    const alarmId = monitoring.entities.createAlarm('t1', entityId, { check_id: checkId, criteria, notification_plan_id: 'npTechnicalContactsEmail' });
    const check = backend.checksOf('t1', [entityId])[0]?.check;
    if (check === undefined) throw new Error('the agent check is not listed');
    expect(check.id).toBe(checkId);
    backend.accept('t1', check, {
      monitoringZoneId: 'mzdfw',
      timestampMs: START_MS,
      available: true,
      status: 'ok',
      metrics: { usage_average: { type: 'n', data: 97.5, unit: 'percent' }, user_percent_average: { type: 'n', data: 60, unit: 'percent' } },
    });
    await runtime.flush();
    const names = (await engine.listMetrics('t1', { limit: 100 })).metrics.map((m) => m.name).sort();
    expect(names).toEqual([`${entityId}.${checkId}.@run`, `${entityId}.${checkId}.usage_average`, `${entityId}.${checkId}.user_percent_average`]);
    expect(monitoring.store.changelogs.metricTypes('t1', entityId, checkId).get('usage_average')).toBe('n');
    const changes = monitoring.changelogs.list('t1', { fromMs: START_MS - HOUR_MS, toMs: START_MS + HOUR_MS, limit: 10 }).values;
    expect(changes).toEqual([expect.objectContaining({ alarmId, checkId, entityId, state: 'CRITICAL' })]);
  });

  it('refuses a result whose timestamp the engine would not take, taking none of it, with the engine\'s own bounds', async () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'host', agent_id: FIELDS.agentId });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu' });
    const check = backend.checksOf('t1', [entityId])[0]?.check;
    if (check === undefined) throw new Error('the agent check is not listed');
    const bounds = engine.timestampBounds();
    const post = (timestampMs: number) => () =>
      backend.accept('t1', check, { monitoringZoneId: 'mzdfw', timestampMs, available: true, status: 'ok', metrics: { usage_average: { type: 'n', data: 1, unit: 'percent' } } });
    const margin = resultTimestampBounds(bounds).oldestMs;
    for (const timestampMs of [0, margin - 1, bounds.newestMs + 1]) {
      expect(post(timestampMs)).toThrow(expect.objectContaining({ code: 'AGENT_PARAMS_INVALID', details: { field: 'timestamp' } }));
    }
    await runtime.flush();
    expect((await engine.listMetrics('t1', { limit: 10 })).metrics).toEqual([]);
    post(margin)();
    post(bounds.newestMs)();
    await runtime.flush();
    expect((await engine.listMetrics('t1', { limit: 10 })).metrics.map((m) => m.name)).toEqual([`${entityId}.${checkId}.@run`, `${entityId}.${checkId}.usage_average`]);
  });

  it('passes entity and check changes to subscribers, not alarm changes, until unsubscribed', () => {
    const seen: MonitoringChange[] = [];
    const unsubscribe = backend.subscribe((change) => seen.push(change));
    const entityId = monitoring.entities.createEntity('t1', { label: 'host' });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu' });
    monitoring.entities.createAlarm('t1', entityId, { check_id: checkId, criteria: 'return new AlarmStatus(OK);', notification_plan_id: 'npTechnicalContactsEmail' });
    monitoring.entities.updateEntity('t1', entityId, { agent_id: FIELDS.agentId });
    unsubscribe();
    monitoring.entities.updateEntity('t1', entityId, { agent_id: null });
    expect(seen.map((c) => `${c.kind}:${c.op}:${c.id}`)).toEqual([`entity:create:${entityId}`, `check:create:${checkId}`, `entity:update:${entityId}`]);
  });

  it("tells the agent_id an entity names now: null for none, undefined once it is gone", () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'host', agent_id: FIELDS.agentId });
    expect(backend.agentOfEntity('t1', entityId)).toBe(FIELDS.agentId);
    expect(backend.agentOfEntity('t2', entityId)).toBeUndefined();
    monitoring.entities.updateEntity('t1', entityId, { agent_id: null });
    expect(backend.agentOfEntity('t1', entityId)).toBeNull();
    monitoring.entities.deleteEntity('t1', entityId);
    expect(backend.agentOfEntity('t1', entityId)).toBeUndefined();
  });

  it('answers the newest published bundle version of a channel, null when none', () => {
    updates.publish('stable', '1.9', Buffer.from('old'), Buffer.from('sig'));
    updates.publish('stable', '1.10', Buffer.from('new'), Buffer.from('sig'));
    updates.publish('beta', '2.0', Buffer.from('beta'), Buffer.from('sig'));
    expect(backend.latestBundleVersion('stable')).toBe('1.10');
    expect(backend.latestBundleVersion('beta')).toBe('2.0');
    expect(backend.latestBundleVersion('nightly')).toBeNull();
  });

  it('reads the update directory at most once per AGENT_UPDATE_VERSION_CACHE_MS and channel: a new bundle is offered within it', () => {
    expect(backend.latestBundleVersion('stable')).toBeNull();
    updates.publish('stable', '1.10', Buffer.from('new'), Buffer.from('sig'));
    for (let i = 0; i < 100; i++) expect(backend.latestBundleVersion('stable')).toBeNull();
    expect(versionReads).toEqual(['stable']);
    clock.advance(AGENT_UPDATE_VERSION_CACHE_MS - 1);
    expect(backend.latestBundleVersion('stable')).toBeNull();
    clock.advance(1);
    expect(backend.latestBundleVersion('stable')).toBe('1.10');
    expect(backend.latestBundleVersion('beta')).toBeNull();
    expect(versionReads).toEqual(['stable', 'stable', 'beta']);
  });

  it('refuses a result with AGENT_BUSY, taking none of it, while the metrics queue to the engine is full; takes it again once written', async () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'host', agent_id: FIELDS.agentId });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu' });
    const check = backend.checksOf('t1', [entityId])[0]?.check;
    if (check === undefined) throw new Error('the agent check is not listed');
    const metrics: Record<string, ResultMetric> = {};
    for (let i = 0; i < 1_000; i++) metrics[`m${i}`] = { type: 'n', data: i, unit: 'unknown' };
    const result = (n: number): CheckResult => ({ monitoringZoneId: 'mzdfw', timestampMs: START_MS + n, available: true, status: 'ok', metrics });
    // One engine write is in flight at a time: results taken meanwhile wait in the queue until it is full.
    let taken = 0;
    let refusal: unknown;
    while (refusal === undefined && taken < 2 * (CHECK_SINK_PENDING_POINTS_MAX / 1_000)) {
      try {
        backend.accept('t1', check, result(taken));
        taken++;
      } catch (error) {
        refusal = error;
      }
    }
    expect(refusal).toMatchObject({ code: 'AGENT_BUSY', kind: 'unavailable' });
    expect(taken).toBeGreaterThanOrEqual(CHECK_SINK_PENDING_POINTS_MAX / 1_000);
    // Each result is its 1,000 metrics and its run point.
    expect(runtime.stats().sink).toMatchObject({ pointsDropped: 1_001 });
    await runtime.flush();
    expect(runtime.stats().sink).toMatchObject({ pointsWritten: taken * 1_001, pending: 0 });
    backend.accept('t1', check, result(taken));
    await runtime.flush();
    expect(runtime.stats().sink).toMatchObject({ pointsWritten: (taken + 1) * 1_001, pointsDropped: 1_001 });
    const series = await engine.query({ tenant: 't1', metric: `${entityId}.${checkId}.m7`, from: START_MS - 1, to: START_MS + 10_000, resolution: 'FULL' });
    expect(series.values).toHaveLength(taken + 1);
  });
});
