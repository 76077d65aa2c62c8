// Checks the alarmsByNp view's store and service: SQLite answers a page from the plan index, pages by alarm id, tenants and plans stay apart, a missing plan is refused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlarmDoc } from '../../../src/monitoring/alarm-rules.js';
import { AlarmsByPlan, alarmOfPlanView } from '../../../src/monitoring/control/alarms-by-plan.js';
import { ALARM_BY_KEY_SQL, ALARMS_OF_PLAN_SQL, AlarmsByPlanStore } from '../../../src/monitoring/control/alarms-by-plan-store.js';
import { notFound } from '../../../src/monitoring/monitoring-errors.js';
import { MonitoringStore } from '../../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;

/** Stores an alarm of `entityId` using `planId`. */
function putAlarm(store: MonitoringStore, tenant: string, entityId: string, id: string, planId: string, label: string | null = null): void {
  const doc: AlarmDoc = { check_id: `ch${id}`, notification_plan_id: planId, criteria: 'return new AlarmStatus(OK);', label, disabled: false, metadata: null };
  store.docs.insert('mon_alarm', { tenant, entityId }, id, doc, NOW_MS, { checkId: doc.check_id, planId });
}

describe('AlarmsByPlanStore', () => {
  let store: MonitoringStore;
  beforeEach(() => {
    store = new MonitoringStore(undefined);
  });
  afterEach(() => store.close());

  it('reads a page from the plan index alone, then each alarm by its primary key', () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((row) => row.detail);
    const ids = plan(ALARMS_OF_PLAN_SQL, 't1', 'npA', '', 10);
    // The ids come from the (tenant, plan_id, id) index in id order from the marker on: no table row is read and nothing is sorted.
    expect(ids).toEqual(['SEARCH mon_alarm USING COVERING INDEX mon_alarm_plan_id (tenant=? AND plan_id=? AND id>?)']);
    expect(plan(ALARM_BY_KEY_SQL, 't1', 'enA', 'alA')).toEqual(['SEARCH mon_alarm USING PRIMARY KEY (tenant=? AND entity_id=? AND id=?)']);
  });

  it('lists the alarms of one plan of one tenant by id, from the marker on, across entities', () => {
    putAlarm(store, 't1', 'enB', 'alC', 'npA', 'third');
    putAlarm(store, 't1', 'enA', 'alA', 'npA', 'first');
    putAlarm(store, 't1', 'enA', 'alB', 'npOther');
    putAlarm(store, 't1', 'enC', 'alB2', 'npA');
    putAlarm(store, 't2', 'enA', 'alA0', 'npA');
    const byPlan = new AlarmsByPlanStore(store.db);
    expect(byPlan.list('t1', 'npA', '', 10).map((a) => [a.entityId, a.id])).toEqual([
      ['enA', 'alA'],
      ['enC', 'alB2'],
      ['enB', 'alC'],
    ]);
    expect(byPlan.list('t1', 'npA', 'alB', 1).map((a) => a.id)).toEqual(['alB2']);
    expect(byPlan.list('t1', 'npA', 'alD', 10)).toEqual([]);
    expect(byPlan.list('t2', 'npA', '', 10).map((a) => a.id)).toEqual(['alA0']);
    const first = byPlan.list('t1', 'npA', '', 1)[0];
    expect(first).toBeDefined();
    expect(alarmOfPlanView(first!)).toEqual({
      id: 'alA',
      entity_id: 'enA',
      check_id: 'chalA',
      notification_plan_id: 'npA',
      criteria: 'return new AlarmStatus(OK);',
      label: 'first',
      disabled: false,
    });
  });

  it('follows an alarm moved to another plan', () => {
    putAlarm(store, 't1', 'enA', 'alA', 'npA');
    const doc: AlarmDoc = { check_id: 'chalA', notification_plan_id: 'npB', criteria: null, label: null, disabled: true, metadata: null };
    store.docs.update('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA', doc, NOW_MS + 1, { checkId: 'chalA', planId: 'npB' });
    const byPlan = new AlarmsByPlanStore(store.db);
    expect(byPlan.list('t1', 'npA', '', 10)).toEqual([]);
    expect(byPlan.list('t1', 'npB', '', 10).map((a) => alarmOfPlanView(a))).toEqual([
      { id: 'alA', entity_id: 'enA', check_id: 'chalA', notification_plan_id: 'npB', criteria: null, label: null, disabled: true },
    ]);
  });
});

describe('AlarmsByPlan', () => {
  it('pages by alarm id with the next marker, and refuses a plan that does not exist', () => {
    const store = new MonitoringStore(undefined);
    try {
      for (const id of ['al3', 'al1', 'al2']) putAlarm(store, 't1', `en${id}`, id, 'npA');
      const view = new AlarmsByPlan({
        db: store.db,
        plan: (_tenant, planId) => {
          if (planId !== 'npA') throw notFound('NotificationPlan', planId);
        },
      });
      const first = view.page('t1', 'npA', { limit: 2 });
      expect([first.values.map((a) => a.id), first.nextMarker]).toEqual([['al1', 'al2'], 'al3']);
      const second = view.page('t1', 'npA', { limit: 2, marker: 'al3' });
      expect([second.values.map((a) => a.id), second.nextMarker]).toEqual([['al3'], null]);
      expect(() => view.page('t1', 'npMissing', { limit: 2 })).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    } finally {
      store.close();
    }
  });
});
