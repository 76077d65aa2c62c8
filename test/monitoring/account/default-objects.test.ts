// Checks every tenant's default notification and plan through the monitoring service on disk: materialized on first use, listed, protected, the plan updatable, outside the limits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { isStrataError } from '../../../src/core/errors.js';
import {
  DEFAULT_NOTIFICATION_DOC,
  DEFAULT_NOTIFICATION_ID,
  DEFAULT_PLAN_DOC,
  DEFAULT_PLAN_ID,
} from '../../../src/monitoring/account/default-objects.js';
import { NOTIFICATIONS_PER_TENANT_MAX, PLANS_PER_TENANT_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

const START_MS = 1_790_000_000_000;
const ALL = { limit: 1000 };

/** The code of the StrataError `work` throws ('ok' when it does not throw). */
function codeOf(work: () => unknown): string {
  try {
    work();
    return 'ok';
  } catch (error) {
    if (isStrataError(error)) return error.code;
    throw error;
  }
}

/** Rows of a tenant's default objects, read with SQL (no service call, which would materialize them). */
function defaultRows(monitoring: MonitoringService, tenant: string): { notifications: number; plans: number; members: number } {
  const db = monitoring.store.db;
  const one = (sql: string, ...args: string[]): number => (db.prepare(sql).get(...args) as { n: number }).n;
  return {
    notifications: one('SELECT count(*) AS n FROM mon_notification WHERE tenant = ? AND id = ?', tenant, DEFAULT_NOTIFICATION_ID),
    plans: one('SELECT count(*) AS n FROM mon_plan WHERE tenant = ? AND id = ?', tenant, DEFAULT_PLAN_ID),
    members: one('SELECT count(*) AS n FROM mon_plan_member WHERE tenant = ? AND plan_id = ?', tenant, DEFAULT_PLAN_ID),
  };
}

describe('default notification and plan', () => {
  let dir: string;
  let clock: ManualClock;
  let monitoring: MonitoringService;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-defaults-'));
    clock = new ManualClock(START_MS);
    monitoring = openMonitoring({ dir, clock });
  });
  afterEach(() => {
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists both for a brand-new tenant, with the reference fields and the time of first use', () => {
    expect(defaultRows(monitoring, 't1')).toEqual({ notifications: 0, plans: 0, members: 0 });
    clock.advance(5);
    const notifications = monitoring.notifications.listNotifications('t1', ALL).values;
    expect(notifications).toEqual([{ id: DEFAULT_NOTIFICATION_ID, entityId: null, doc: DEFAULT_NOTIFICATION_DOC, createdMs: START_MS + 5, updatedMs: START_MS + 5 }]);
    expect(DEFAULT_NOTIFICATION_DOC).toEqual({ label: 'Technical Contacts - Email', type: 'technicalContactsEmail', details: {}, metadata: null });
    clock.advance(5);
    const plans = monitoring.notifications.listPlans('t1', ALL).values;
    expect(plans).toEqual([{ id: DEFAULT_PLAN_ID, entityId: null, doc: DEFAULT_PLAN_DOC, createdMs: START_MS + 5, updatedMs: START_MS + 5 }]);
    expect(DEFAULT_PLAN_DOC).toEqual({
      label: 'Technical Contacts - Email',
      critical_state: [DEFAULT_NOTIFICATION_ID],
      warning_state: [DEFAULT_NOTIFICATION_ID],
      ok_state: [DEFAULT_NOTIFICATION_ID],
      metadata: null,
    });
    // The plan's member is recorded like any plan's, and only t1 was touched.
    expect(defaultRows(monitoring, 't1')).toEqual({ notifications: 1, plans: 1, members: 1 });
    expect(monitoring.store.docs.plansNaming('t1', DEFAULT_NOTIFICATION_ID)).toBe(1);
    expect(defaultRows(monitoring, 't2')).toEqual({ notifications: 0, plans: 0, members: 0 });
  });

  it('materializes them before every read, write and alarm reference of a new tenant', () => {
    const firstUses: [string, (tenant: string) => unknown][] = [
      ['notification', (t) => monitoring.notifications.notification(t, DEFAULT_NOTIFICATION_ID)],
      ['notificationWithSecrets', (t) => monitoring.notifications.notificationWithSecrets(t, DEFAULT_NOTIFICATION_ID)],
      ['plan', (t) => monitoring.notifications.plan(t, DEFAULT_PLAN_ID)],
      ['createNotification', (t) => monitoring.notifications.createNotification(t, { label: 'n', type: 'managed' })],
      ['createPlan', (t) => monitoring.notifications.createPlan(t, { label: 'p', ok_state: [DEFAULT_NOTIFICATION_ID] })],
      ['updatePlan', (t) => monitoring.notifications.updatePlan(t, DEFAULT_PLAN_ID, { label: 'mine' })],
      ['ensureDefaults', (t) => monitoring.notifications.ensureDefaults(t)],
      [
        'createAlarm',
        (t) => {
          const entity = monitoring.entities.createEntity(t, { label: 'e' });
          const check = monitoring.entities.createCheck(t, entity, { type: 'agent.cpu' });
          return monitoring.entities.createAlarm(t, entity, { check_id: check, notification_plan_id: DEFAULT_PLAN_ID });
        },
      ],
    ];
    for (const [name, use] of firstUses) {
      const tenant = `t-${name}`;
      expect(codeOf(() => use(tenant)), name).toBe('ok');
      expect(defaultRows(monitoring, tenant), name).toEqual({ notifications: 1, plans: 1, members: 1 });
    }
  });

  it('an alarm naming the default plan works on a tenant that never touched notifications (the fog scenario)', () => {
    const entity = monitoring.entities.createEntity('fog', { label: 'web' });
    const check = monitoring.entities.createCheck('fog', entity, { type: 'agent.cpu' });
    const alarm = monitoring.entities.createAlarm('fog', entity, { check_id: check, notification_plan_id: DEFAULT_PLAN_ID });
    expect(monitoring.entities.alarm('fog', entity, alarm).doc.notification_plan_id).toBe(DEFAULT_PLAN_ID);
    expect(codeOf(() => monitoring.notifications.deletePlan('fog', DEFAULT_PLAN_ID))).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
  });

  it('defaults written inside a transaction that rolls back are written again by the next call', () => {
    const entity = monitoring.entities.createEntity('t1', { label: 'e' });
    const check = monitoring.entities.createCheck('t1', entity, { type: 'agent.cpu' });
    // The reference check materializes the defaults inside the alarm's transaction, then the unknown plan rolls it back.
    expect(codeOf(() => monitoring.entities.createAlarm('t1', entity, { check_id: check, notification_plan_id: 'npNoSuchPlan' }))).toBe('MONITORING_FIELD_INVALID');
    expect(defaultRows(monitoring, 't1')).toEqual({ notifications: 0, plans: 0, members: 0 });
    expect(monitoring.notifications.listPlans('t1', ALL).values.map((p) => p.id)).toEqual([DEFAULT_PLAN_ID]);
    expect(defaultRows(monitoring, 't1')).toEqual({ notifications: 1, plans: 1, members: 1 });
  });

  it('refuses to delete either default or change the default notification, with MONITORING_DEFAULT_OBJECT_PROTECTED', () => {
    const n = monitoring.notifications;
    expect(codeOf(() => n.deleteNotification('t1', DEFAULT_NOTIFICATION_ID))).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
    expect(codeOf(() => n.deletePlan('t1', DEFAULT_PLAN_ID))).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
    expect(codeOf(() => n.updateNotification('t1', DEFAULT_NOTIFICATION_ID, { label: 'renamed' }))).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
    expect(codeOf(() => n.updateNotification('t1', DEFAULT_NOTIFICATION_ID, { metadata: { a: 'b' } }))).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
    expect(n.notification('t1', DEFAULT_NOTIFICATION_ID).doc).toEqual(DEFAULT_NOTIFICATION_DOC);
    expect(n.plan('t1', DEFAULT_PLAN_ID).doc).toEqual(DEFAULT_PLAN_DOC);
    // Other objects keep their rules: an unknown id is still not found.
    expect(codeOf(() => n.deleteNotification('t1', 'ntNoSuchOne'))).toBe('MONITORING_OBJECT_NOT_FOUND');
  });

  it('lets the default plan be updated (a webhook added), keeps the update across a reopen, and records its members', () => {
    const hook = monitoring.notifications.createNotification('t1', { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/x' } });
    clock.advance(1000);
    monitoring.notifications.updatePlan('t1', DEFAULT_PLAN_ID, { critical_state: [DEFAULT_NOTIFICATION_ID, hook] });
    const updated = monitoring.notifications.plan('t1', DEFAULT_PLAN_ID);
    expect(updated.doc.critical_state).toEqual([DEFAULT_NOTIFICATION_ID, hook]);
    expect(updated.doc.ok_state).toEqual([DEFAULT_NOTIFICATION_ID]);
    expect(updated.updatedMs).toBe(START_MS + 1000);
    expect(codeOf(() => monitoring.notifications.deleteNotification('t1', hook))).toBe('MONITORING_CHILDREN_EXIST');
    monitoring.close();
    monitoring = openMonitoring({ dir, clock });
    // A new process materializes again (INSERT OR IGNORE): the update stays, and so do its members.
    expect(monitoring.notifications.plan('t1', DEFAULT_PLAN_ID)).toEqual(updated);
    expect(codeOf(() => monitoring.notifications.deleteNotification('t1', hook))).toBe('MONITORING_CHILDREN_EXIST');
    // Dropping the webhook again frees it.
    monitoring.notifications.updatePlan('t1', DEFAULT_PLAN_ID, { critical_state: [DEFAULT_NOTIFICATION_ID] });
    expect(codeOf(() => monitoring.notifications.deleteNotification('t1', hook))).toBe('ok');
  });

  it('leaves the per-tenant limits to the tenant own objects', () => {
    const n = monitoring.notifications;
    monitoring.store.transaction(() => {
      for (let i = 0; i < NOTIFICATIONS_PER_TENANT_MAX; i++) n.createNotification('t1', { label: `n${i}`, type: 'managed' });
      for (let i = 0; i < PLANS_PER_TENANT_MAX; i++) n.createPlan('t1', { label: `p${i}` });
    });
    let refused: unknown;
    try {
      n.createNotification('t1', { label: 'one too many', type: 'managed' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'MONITORING_LIMIT_REACHED', details: { type: 'Notification', limit: NOTIFICATIONS_PER_TENANT_MAX } });
    expect(() => n.createPlan('t1', { label: 'one too many' })).toThrow(expect.objectContaining({ code: 'MONITORING_LIMIT_REACHED', details: { type: 'NotificationPlan', limit: PLANS_PER_TENANT_MAX } }));
    expect(monitoring.store.docs.count('mon_notification', { tenant: 't1' })).toBe(NOTIFICATIONS_PER_TENANT_MAX + 1);
    expect(monitoring.store.docs.count('mon_plan', { tenant: 't1' })).toBe(PLANS_PER_TENANT_MAX + 1);
  });
});
