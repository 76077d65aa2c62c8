// Checks the overview view's data over a real monitoring file: paging by entity id, the entity filter, redacted checks, latest states of live alarms only, tenants apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AlarmStateStore } from '../../src/monitoring/alarms/alarm-state-store.js';
import { REDACTED_SECRET } from '../../src/monitoring/detail-secrets.js';
import { openMonitoring, type MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { MonitoringOverview, type OverviewRequest } from '../../src/monitoring/overview.js';

const START_MS = 1_790_000_000_000;
const SECRET = 'hunter2-overview-secret';

describe('MonitoringOverview', () => {
  let dir: string;
  let monitoring: MonitoringService;
  let overview: MonitoringOverview;
  let states: AlarmStateStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-overview-'));
    monitoring = openMonitoring({ dir, clock: new ManualClock(START_MS) });
    states = new AlarmStateStore(monitoring.store.db);
    overview = new MonitoringOverview(monitoring, states);
  });
  afterEach(() => {
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An entity with one remote.http check (holding a password) and `alarms` alarms on it. */
  function entityWith(tenant: string, label: string, alarms: number): { entity: string; check: string; alarms: string[] } {
    const entity = monitoring.entities.createEntity(tenant, { label, ip_addresses: { web: '192.0.2.1' } });
    const check = monitoring.entities.createCheck(tenant, entity, {
      type: 'remote.http',
      details: { url: 'http://192.0.2.1/', auth_user: 'u', auth_password: SECRET },
      monitoring_zones_poll: ['mzdfw'],
      target_alias: 'web',
    });
    const notification = monitoring.notifications.createNotification(tenant, { label: 'n', type: 'email', details: { address: 'a@example.com' } });
    const plan = monitoring.notifications.createPlan(tenant, { label: 'p', critical_state: [notification] });
    const ids: string[] = [];
    for (let i = 0; i < alarms; i++) ids.push(monitoring.entities.createAlarm(tenant, entity, { check_id: check, notification_plan_id: plan, criteria: 'return new AlarmStatus(OK);' }));
    return { entity, check, alarms: ids };
  }

  function walk(tenant: string, request: Omit<OverviewRequest, 'marker'>): string[][] {
    const pages: string[][] = [];
    let marker: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = overview.page(tenant, { ...request, ...(marker !== undefined ? { marker } : {}) });
      pages.push(page.values.map((item) => item.entity.id));
      if (page.nextMarker === null) break;
      marker = page.nextMarker;
    }
    return pages;
  }

  it('pages every entity once, in id order, with its checks and alarms', () => {
    const made = Array.from({ length: 5 }, (_, i) => entityWith('t1', `e${i}`, i % 3));
    const ids = made.map((m) => m.entity).sort();
    const pages = walk('t1', { limit: 2 });
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(ids);
    const all = overview.page('t1', { limit: 10 }).values;
    for (const item of all) {
      const m = made.find((x) => x.entity === item.entity.id);
      expect(item.checks.map((c) => c.id)).toEqual([m?.check]);
      expect(item.alarms.map((a) => a.id)).toEqual([...(m?.alarms ?? [])].sort());
      expect(item.states).toEqual([]);
    }
  });

  it('shows checks with their secrets redacted', () => {
    entityWith('t1', 'e', 0);
    const [item] = overview.page('t1', { limit: 10 }).values;
    expect(item?.checks[0]?.doc.details['auth_password']).toBe(REDACTED_SECRET);
    expect(JSON.stringify(item)).not.toContain(SECRET);
  });

  it('filters by entity ids: sorted, deduplicated, missing ids skipped, paged from the marker', () => {
    const made = Array.from({ length: 4 }, (_, i) => entityWith('t1', `e${i}`, 0).entity).sort();
    const [a, b, , d] = made as [string, string, string, string];
    const asked = [d, 'enMissing', a, d, b];
    expect(walk('t1', { limit: 2, entityIds: asked })).toEqual([[a, b], [d]]);
    expect(overview.page('t1', { limit: 5, entityIds: ['enMissing'] })).toEqual({ values: [], nextMarker: null });
    expect(overview.page('t1', { limit: 5, entityIds: [a], marker: b }).values).toEqual([]);
  });

  it('gives the latest state of each live alarm and skips rows of deleted alarms', () => {
    const m = entityWith('t1', 'e', 2);
    const [first, second] = m.alarms as [string, string];
    states.put('t1', { entityId: m.entity, alarmId: first, checkId: m.check, state: 'CRITICAL', previousState: 'OK', status: 'down', zoneId: 'mzdfw', timestampMs: START_MS });
    states.put('t1', { entityId: m.entity, alarmId: second, checkId: m.check, state: 'OK', previousState: null, status: 'fine', zoneId: 'mzdfw', timestampMs: START_MS });
    states.put('t1', { entityId: m.entity, alarmId: 'alGone', checkId: m.check, state: 'WARNING', previousState: 'OK', status: 'old', zoneId: null, timestampMs: START_MS });
    const [item] = overview.page('t1', { limit: 10 }).values;
    expect(item?.states.map((s) => [s.alarmId, s.state, s.previousState])).toEqual(
      [
        [first, 'CRITICAL', 'OK'],
        [second, 'OK', null],
      ].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)),
    );
  });

  it('keeps tenants apart', () => {
    const mine = entityWith('t1', 'mine', 1);
    const theirs = entityWith('t2', 'theirs', 1);
    expect(overview.page('t1', { limit: 10 }).values.map((i) => i.entity.id)).toEqual([mine.entity]);
    expect(overview.page('t2', { limit: 10, entityIds: [mine.entity] }).values).toEqual([]);
    expect(overview.page('t1', { limit: 10, entityIds: [theirs.entity] }).values).toEqual([]);
  });
});
