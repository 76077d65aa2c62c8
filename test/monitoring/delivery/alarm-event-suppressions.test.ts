// Checks the suppression fields of the spec 6.1 payload's records: the ids the service gives for the change's entity, check and alarm, or null without them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { buildAlarmEvent, type AlarmEventInput } from '../../../src/monitoring/delivery/alarm-event.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

const T0 = 1_750_000_000_000;
const HOUR_MS = 3_600_000;

describe('buildAlarmEvent with suppressions', () => {
  let monitoring: MonitoringService;
  let input: AlarmEventInput;
  let ids: { entityId: string; checkId: string; alarmId: string; planId: string };

  beforeEach(() => {
    monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(T0) });
    const entityId = monitoring.entities.createEntity('acme', { label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
    const checkId = monitoring.entities.createCheck('acme', entityId, {
      type: 'remote.http',
      details: { url: 'https://example.com/' },
      monitoring_zones_poll: ['mzord'],
      target_alias: 'web',
    });
    const planId = monitoring.notifications.createPlan('acme', { label: 'plan' });
    const alarmId = monitoring.entities.createAlarm('acme', entityId, { check_id: checkId, notification_plan_id: planId, criteria: 'return new AlarmStatus(CRITICAL);' });
    ids = { entityId, checkId, alarmId, planId };
    input = {
      tenant: 'acme',
      entity: monitoring.entities.entity('acme', entityId),
      check: monitoring.entities.check('acme', entityId, checkId),
      alarm: monitoring.entities.alarm('acme', entityId, alarmId),
      transition: { state: 'CRITICAL', previousState: 'OK', status: 'down', zoneId: 'mzord', timestampMs: T0 },
      result: { monitoringZoneId: 'mzord', timestampMs: T0, available: false, status: 'down', metrics: {} },
      observations: [],
      logEntryId: '6da55310-4200-41e1-aaaf-cd4c8801b6b1',
    };
  });
  afterEach(() => monitoring.close());

  it('each record carries the ids of the suppressions naming it: the entity its own, the check also its own, the alarm all four', () => {
    const s = monitoring.suppressions;
    const later = s.create('acme', { start_time: T0 + HOUR_MS, end_time: T0 + 2 * HOUR_MS, entities: [ids.entityId] });
    const onCheck = s.create('acme', { end_time: T0 + HOUR_MS, checks: [`${ids.entityId}:${ids.checkId}`] });
    const onPlan = s.create('acme', { end_time: T0 + HOUR_MS, notification_plans: [ids.planId] });
    const event = buildAlarmEvent({ ...input, suppressions: s.eventIds('acme', ids, T0) });
    const fields = (record: unknown): unknown => {
      const r = record as Record<string, unknown>;
      return [r['active_suppressions'], r['scheduled_suppressions']];
    };
    expect(fields(event.entity)).toEqual([[], [later]]);
    expect(fields(event.check)).toEqual([[onCheck], [later]]);
    expect(fields(event.alarm)).toEqual([[onCheck, onPlan].sort(), [later]]);
    expect(JSON.parse(JSON.stringify(event)).alarm.active_suppressions).toEqual([onCheck, onPlan].sort());
  });

  it('with none covering, the lists are empty; without the field, check and alarm say null and the entity has no such keys', () => {
    const none = buildAlarmEvent({ ...input, suppressions: monitoring.suppressions.eventIds('acme', ids, T0) });
    for (const record of [none.entity, none.check, none.alarm]) expect(record).toMatchObject({ active_suppressions: [], scheduled_suppressions: [] });
    const unset = buildAlarmEvent(input);
    expect(unset.check).toMatchObject({ active_suppressions: null, scheduled_suppressions: null });
    expect(unset.alarm).toMatchObject({ active_suppressions: null, scheduled_suppressions: null });
    expect(unset.entity).not.toHaveProperty('active_suppressions');
  });
});
