// Checks the suppression fields of the entity, check and alarm views: which target each record asks about, and the lookup's one moment for a whole read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { alarmView, checkView, entityView, suppressionLookup, type SuppressionLookup } from '../../../../src/http/apis/monitoring/monitoring-views.js';
import { openMonitoring, type MonitoringService } from '../../../../src/monitoring/monitoring-service.js';
import type { SuppressionTarget } from '../../../../src/monitoring/suppressions/suppression-service.js';

const T0 = 1_750_000_000_000;

describe('monitoring views: suppression fields', () => {
  let clock: ManualClock;
  let monitoring: MonitoringService;

  beforeEach(() => {
    clock = new ManualClock(T0);
    monitoring = openMonitoring({ dir: undefined, clock });
  });
  afterEach(() => monitoring.close());

  it('an entity asks about itself, a check about its entity and itself, an alarm about its entity, check, itself and plan', () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'web' });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu' });
    const planId = monitoring.notifications.createPlan('t1', { label: 'plan' });
    const alarmId = monitoring.entities.createAlarm('t1', entityId, { check_id: checkId, notification_plan_id: planId, criteria: 'return new AlarmStatus(OK);' });
    const asked: SuppressionTarget[] = [];
    const lookup: SuppressionLookup = (target) => {
      asked.push(target);
      return { active: ['spA'], scheduled: ['spB'] };
    };
    const entity = entityView(monitoring.entities.entity('t1', entityId), lookup);
    const check = checkView(monitoring.entities.check('t1', entityId, checkId), lookup);
    const alarm = alarmView(monitoring.entities.alarm('t1', entityId, alarmId), lookup);
    expect(asked).toEqual([{ entityId }, { entityId, checkId }, { entityId, checkId, alarmId, planId }]);
    for (const view of [entity, check, alarm]) expect(view).toMatchObject({ active_suppressions: ['spA'], scheduled_suppressions: ['spB'] });
    expect(Object.keys(alarm).slice(-4)).toEqual(['active_suppressions', 'scheduled_suppressions', 'created_at', 'updated_at']);
  });

  it('a lookup answers at the moment it was made, for every record of the read', () => {
    const entityId = monitoring.entities.createEntity('t1', { label: 'web' });
    const id = monitoring.suppressions.create('t1', { end_time: T0 + 1000, entities: [entityId] });
    const lookup = suppressionLookup(monitoring, 't1');
    clock.advance(5000);
    expect(lookup({ entityId })).toEqual({ active: [id], scheduled: [] });
    expect(suppressionLookup(monitoring, 't1')({ entityId })).toEqual({ active: [], scheduled: [] });
  });
});
