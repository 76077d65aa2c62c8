// Checks the account limits over a real monitoring file: defaults, configuration, usage counts (defaults aside), and every create refused exactly at its limit.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { isStrataError } from '../../../src/core/errors.js';
import { DEFAULT_RESOURCE_LIMITS, LIMITED_RESOURCES, resolveResourceLimits, type ResourceLimits } from '../../../src/monitoring/account/account-limits.js';
import { ACCOUNT_RESOURCE_LIMIT_MAX, CHECKS_PER_ENTITY_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

const clock = new ManualClock(1_790_000_000_000);
let opened: MonitoringService | undefined;

function open(limits?: Partial<ResourceLimits>): MonitoringService {
  opened = openMonitoring({ dir: undefined, clock, ...(limits !== undefined ? { limits } : {}) });
  return opened;
}

afterEach(() => opened?.close());

/** The error `work` throws (it must throw). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** Inserts a suppression row as the suppression service stores one, ending at `endMs` (the count reads the table; it counts those not ended). */
function insertSuppression(m: MonitoringService, tenant: string, id: string, endMs = clock.now() + 3_600_000): void {
  m.store.db.prepare('INSERT INTO mon_suppression (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?)').run(tenant, id, JSON.stringify({ end_time: endMs }), 0, 0);
}

describe('account limits', () => {
  it('defaults to the reference (checks 1000, alarms 10000) and the earlier tenant bounds for the rest', () => {
    expect(DEFAULT_RESOURCE_LIMITS).toEqual({ entities: 10_000, checks: 1_000, alarms: 10_000, notifications: 1_000, notification_plans: 1_000, suppressions: 1_000 });
    expect(open().limits.resources).toEqual(DEFAULT_RESOURCE_LIMITS);
    expect(resolveResourceLimits({ checks: 5, suppressions: 0, alarms: undefined })).toEqual({ ...DEFAULT_RESOURCE_LIMITS, checks: 5, suppressions: 0 });
  });

  it('refuses configured values that are not integers from 0 to ACCOUNT_RESOURCE_LIMIT_MAX, or name no limit', () => {
    for (const bad of [{ checks: -1 }, { checks: 1.5 }, { alarms: ACCOUNT_RESOURCE_LIMIT_MAX + 1 }, { widgets: 3 }, { entities: Number.NaN }]) {
      const error = thrown(() => resolveResourceLimits(bad));
      expect(isStrataError(error) && error.code, JSON.stringify(bad)).toBe('CONFIG_INVALID');
      expect(String((error as Error).message)).toMatch(/^limits\./);
    }
    expect(() => open({ checks: -3 })).toThrow(/limits\.checks/);
  });

  it("counts the tenant's own objects of each kind, the default notification and plan aside, and no other tenant's", () => {
    const m = open();
    m.notifications.ensureDefaults('t1');
    expect(m.limits.usage('t1')).toEqual({ entities: 0, checks: 0, alarms: 0, notifications: 0, notification_plans: 0, suppressions: 0 });
    const entity = m.entities.createEntity('t1', { label: 'e', ip_addresses: { web: '192.0.2.1' } });
    const check = m.entities.createCheck('t1', entity, { type: 'agent.cpu' });
    m.entities.createCheck('t1', entity, { type: 'agent.memory' });
    m.entities.createAlarm('t1', entity, { check_id: check, notification_plan_id: 'npTechnicalContactsEmail', criteria: 'return new AlarmStatus(OK);' });
    const n = m.notifications.createNotification('t1', { label: 'n', type: 'email', details: { address: 'a@example.com' } });
    m.notifications.createPlan('t1', { label: 'p', critical_state: [n] });
    insertSuppression(m, 't1', 'spA');
    m.entities.createEntity('t2', { label: 'theirs' });
    expect(m.limits.usage('t1')).toEqual({ entities: 1, checks: 2, alarms: 1, notifications: 1, notification_plans: 1, suppressions: 1 });
    expect(m.limits.usage('t2')).toMatchObject({ entities: 1, checks: 0 });
  });

  it('refuses each create exactly at its limit with MONITORING_LIMIT_REACHED naming the kind and the limit; deleting makes room again', () => {
    const m = open({ entities: 2, checks: 3, alarms: 2, notifications: 2, notification_plans: 1, suppressions: 1 });
    const limited = (work: () => unknown, type: string, limit: number): void => {
      expect(thrown(work)).toMatchObject({ code: 'MONITORING_LIMIT_REACHED', details: { type, limit } });
    };
    const e1 = m.entities.createEntity('t1', { label: 'e1' });
    const e2 = m.entities.createEntity('t1', { label: 'e2' });
    limited(() => m.entities.createEntity('t1', { label: 'e3' }), 'Entity', 2);
    // Another tenant has limits of its own.
    m.entities.createEntity('t2', { label: 'theirs' });
    const c1 = m.entities.createCheck('t1', e1, { type: 'agent.cpu' });
    m.entities.createCheck('t1', e1, { type: 'agent.memory' });
    m.entities.createCheck('t1', e2, { type: 'agent.cpu' });
    limited(() => m.entities.createCheck('t1', e2, { type: 'agent.disk', details: { target: '/' } }), 'Check', 3);
    const alarm = { check_id: c1, notification_plan_id: 'npTechnicalContactsEmail', criteria: 'return new AlarmStatus(OK);' };
    const a1 = m.entities.createAlarm('t1', e1, alarm);
    m.entities.createAlarm('t1', e1, alarm);
    limited(() => m.entities.createAlarm('t1', e1, alarm), 'Alarm', 2);
    m.notifications.createNotification('t1', { label: 'n1', type: 'managed' });
    const n2 = m.notifications.createNotification('t1', { label: 'n2', type: 'managed' });
    limited(() => m.notifications.createNotification('t1', { label: 'n3', type: 'managed' }), 'Notification', 2);
    m.notifications.createPlan('t1', { label: 'p1' });
    limited(() => m.notifications.createPlan('t1', { label: 'p2' }), 'NotificationPlan', 1);
    insertSuppression(m, 't1', 'spA');
    limited(() => m.limits.ensureRoom('t1', 'suppressions'), 'Suppression', 1);
    expect(m.limits.usage('t1')).toEqual({ entities: 2, checks: 3, alarms: 2, notifications: 2, notification_plans: 1, suppressions: 1 });
    // A refused create changed nothing, and a delete frees its place.
    m.entities.deleteAlarm('t1', e1, a1);
    m.entities.createAlarm('t1', e1, alarm);
    m.notifications.deleteNotification('t1', n2);
    m.notifications.createNotification('t1', { label: 'again', type: 'managed' });
    expect(m.limits.usage('t1')).toEqual({ entities: 2, checks: 3, alarms: 2, notifications: 2, notification_plans: 1, suppressions: 1 });
  });

  it('counts a suppression only until its end_time (exclusive): an ended one holds no place', () => {
    const m = open({ suppressions: 2 });
    const now = clock.now();
    insertSuppression(m, 't1', 'spEnded', now - 1);
    insertSuppression(m, 't1', 'spEndsNow', now);
    insertSuppression(m, 't1', 'spLater', now + 1);
    insertSuppression(m, 't2', 'spTheirs');
    expect(m.limits.usage('t1').suppressions).toBe(1);
    m.limits.ensureRoom('t1', 'suppressions');
    insertSuppression(m, 't1', 'spLater2', now + 2);
    expect(m.limits.usage('t1').suppressions).toBe(2);
    expect(thrown(() => m.limits.ensureRoom('t1', 'suppressions'))).toMatchObject({ code: 'MONITORING_LIMIT_REACHED', details: { type: 'Suppression', limit: 2 } });
  });

  it('keeps the per-entity check bound besides the account limit', () => {
    const m = open({ checks: CHECKS_PER_ENTITY_MAX + 10 });
    const entity = m.entities.createEntity('t1', { label: 'e' });
    for (let i = 0; i < CHECKS_PER_ENTITY_MAX; i++) m.entities.createCheck('t1', entity, { type: 'agent.cpu' });
    expect(thrown(() => m.entities.createCheck('t1', entity, { type: 'agent.cpu' }))).toMatchObject({ details: { type: 'Check', limit: CHECKS_PER_ENTITY_MAX } });
    m.entities.createCheck('t1', m.entities.createEntity('t1', { label: 'f' }), { type: 'agent.cpu' });
    expect(m.limits.usage('t1').checks).toBe(CHECKS_PER_ENTITY_MAX + 1);
  });

  it('a limit of 0 allows no object of the kind', () => {
    const m = open({ notification_plans: 0 });
    expect(thrown(() => m.notifications.createPlan('t1', { label: 'p' }))).toMatchObject({ code: 'MONITORING_LIMIT_REACHED', details: { type: 'NotificationPlan', limit: 0 } });
    // The default plan is still there to be read and used.
    expect(m.notifications.plan('t1', 'npTechnicalContactsEmail').id).toBe('npTechnicalContactsEmail');
  });

  it('counts with one index range per kind (the primary key), never a scan of other tenants', () => {
    const m = open();
    for (const table of ['mon_entity', 'mon_check', 'mon_alarm', 'mon_notification', 'mon_plan', 'mon_suppression']) {
      const plan = m.store.db.prepare(`EXPLAIN QUERY PLAN SELECT count(*) AS n FROM ${table} WHERE tenant = ?`).all('t1') as { detail: string }[];
      expect(plan.map((row) => row.detail).join(' '), table).toMatch(/SEARCH .*USING (PRIMARY KEY|COVERING INDEX)/);
    }
    expect(LIMITED_RESOURCES).toHaveLength(6);
  });
});
