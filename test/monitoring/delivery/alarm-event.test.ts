// Owns the tests of the spec 6.1 payload: built from real stored objects, checked key by key against spec 6.1 and 2.7.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { alarmEventId, buildAlarmEvent, type AlarmEventInput } from '../../../src/monitoring/delivery/alarm-event.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';

const T0 = 1_700_000_000_000;

/** Spec 6.1 top-level keys. */
const TOP_KEYS = ['event_id', 'log_entry_id', 'details', 'entity', 'check', 'alarm', 'tenant_id'];
/** Spec 6.1 details keys, plus previous_state (Strata's documented addition). */
const DETAIL_KEYS = ['target', 'timestamp', 'metrics', 'state', 'status', 'txn_id', 'collector_address_v4', 'collector_address_v6', 'observations', 'previous_state'];
/** Spec 2.7 record fields. */
const ENTITY_KEYS = ['id', 'label', 'ip_addresses', 'metadata', 'managed', 'uri', 'agent_id', 'created_at', 'updated_at'];
const CHECK_KEYS = [
  'id', 'label', 'type', 'details', 'monitoring_zones_poll', 'timeout', 'period', 'target_alias', 'target_hostname', 'target_resolver', 'disabled',
  'metadata', 'confd_name', 'confd_hash', 'active_suppressions', 'scheduled_suppressions', 'created_at', 'updated_at',
];
const ALARM_KEYS = [
  'id', 'label', 'check_id', 'entity_id', 'criteria', 'disabled', 'notification_plan_id', 'metadata', 'confd_name', 'confd_hash',
  'active_suppressions', 'scheduled_suppressions', 'created_at', 'updated_at',
];

const sorted = (keys: readonly string[]): string[] => [...keys].sort();

describe('buildAlarmEvent', () => {
  let monitoring: MonitoringService;
  let clock: ManualClock;
  let input: AlarmEventInput;

  beforeEach(() => {
    clock = new ManualClock(T0);
    monitoring = openMonitoring({ dir: undefined, clock });
    const entityId = monitoring.entities.createEntity('acme', { label: 'web-1', ip_addresses: { web: '192.0.2.10' }, metadata: { team: 'ops' } });
    clock.advance(1000);
    const checkId = monitoring.entities.createCheck('acme', entityId, {
      label: 'Home page',
      type: 'remote.http',
      details: { url: 'https://example.com/', method: 'GET', auth_user: 'bob', auth_password: 'hunter2-secret' },
      monitoring_zones_poll: ['mzdfw', 'mzord'],
      target_alias: 'web',
      period: 60,
      timeout: 30,
    });
    const plan = monitoring.notifications.createPlan('acme', { label: 'plan' });
    clock.advance(1000);
    const alarmId = monitoring.entities.createAlarm('acme', entityId, { check_id: checkId, notification_plan_id: plan, label: 'Down', criteria: 'return new AlarmStatus(CRITICAL, "down");' });
    const result: CheckResult = {
      monitoringZoneId: 'mzord',
      timestampMs: T0 + 5000,
      available: true,
      status: 'code=500',
      metrics: { code: { type: 's', data: '500', unit: 'unknown' }, duration: { type: 'I', data: 12, unit: 'milliseconds' } },
    };
    input = {
      tenant: 'acme',
      entity: monitoring.entities.entity('acme', entityId),
      check: monitoring.entities.check('acme', entityId, checkId),
      alarm: monitoring.entities.alarm('acme', entityId, alarmId),
      transition: { state: 'CRITICAL', previousState: 'OK', status: 'down', zoneId: 'mzord', timestampMs: T0 + 5000 },
      result,
      observations: [
        { zoneId: 'mzdfw', state: 'CRITICAL', status: 'down', timestampMs: T0 + 4000 },
        { zoneId: 'mzord', state: 'CRITICAL', status: 'down', timestampMs: T0 + 5000 },
      ],
      logEntryId: '6da55310-4200-41e1-aaaf-cd4c8801b6b1',
      txnId: '.txn-eval-1',
    };
  });

  afterEach(() => monitoring.close());

  it('has exactly the top-level keys of spec 6.1, and the event id in its six colon-separated parts', () => {
    const event = buildAlarmEvent(input);
    expect(sorted(Object.keys(event))).toEqual(sorted(TOP_KEYS));
    const { entity, check, alarm } = input;
    expect(event.event_id).toBe(`acme:${entity.id}:${alarm.id}:${check.id}:${T0 + 5000}:CRITICAL`);
    expect(event.event_id.split(':')).toEqual(['acme', entity.id, alarm.id, check.id, String(T0 + 5000), 'CRITICAL']);
    expect(alarmEventId('t', 'e', 'a', 'c', 7, 'OK')).toBe('t:e:a:c:7:OK');
    expect(event.log_entry_id).toBe(input.logEntryId);
    expect(event.tenant_id).toBe('acme');
  });

  it('details: target, time, metrics with type/data/unit, state, status, txn, collector and observations', () => {
    const details = buildAlarmEvent(input)['details'] as Record<string, unknown>;
    expect(sorted(Object.keys(details))).toEqual(sorted(DETAIL_KEYS));
    expect(details).toEqual({
      target: '192.0.2.10',
      timestamp: T0 + 5000,
      metrics: { code: { type: 's', data: '500', unit: 'unknown' }, duration: { type: 'I', data: 12, unit: 'milliseconds' } },
      state: 'CRITICAL',
      previous_state: 'OK',
      status: 'down',
      txn_id: '.txn-eval-1',
      collector_address_v4: '127.0.0.1',
      collector_address_v6: null,
      observations: [
        { monitoring_zone_id: 'mzdfw', state: 'CRITICAL', status: 'down', timestamp: T0 + 4000, collectorState: 'UP' },
        { monitoring_zone_id: 'mzord', state: 'CRITICAL', status: 'down', timestamp: T0 + 5000, collectorState: 'UP' },
      ],
    });
  });

  it('keeps a metric whatever its name, __proto__ included (metrics are own properties)', () => {
    const metrics = JSON.parse('{"__proto__": {"type": "n", "data": 1.5, "unit": "unknown"}, "constructor": {"type": "s", "data": "x", "unit": "unknown"}}') as CheckResult['metrics'];
    const details = buildAlarmEvent({ ...input, result: { ...input.result, metrics } })['details'] as Record<string, unknown>;
    const sent = JSON.parse(JSON.stringify(details['metrics'])) as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(sent, '__proto__')?.value).toEqual({ type: 'n', data: 1.5, unit: 'unknown' });
  });

  it('entity record: exactly the spec 2.7 fields', () => {
    const entity = buildAlarmEvent(input)['entity'] as Record<string, unknown>;
    expect(sorted(Object.keys(entity))).toEqual(sorted(ENTITY_KEYS));
    expect(entity).toEqual({
      id: input.entity.id,
      label: 'web-1',
      ip_addresses: { web: '192.0.2.10' },
      metadata: { team: 'ops' },
      managed: false,
      uri: null,
      agent_id: null,
      created_at: T0,
      updated_at: T0,
    });
  });

  it('check record: exactly the spec 2.7 fields, secrets redacted, unset targets as empty strings', () => {
    const check = buildAlarmEvent(input)['check'] as Record<string, unknown>;
    expect(sorted(Object.keys(check))).toEqual(sorted(CHECK_KEYS));
    expect(check).toMatchObject({
      id: input.check.id,
      label: 'Home page',
      type: 'remote.http',
      monitoring_zones_poll: ['mzdfw', 'mzord'],
      timeout: 30,
      period: 60,
      target_alias: 'web',
      target_hostname: '',
      target_resolver: '',
      disabled: false,
      metadata: null,
      confd_name: null,
      confd_hash: null,
      active_suppressions: null,
      scheduled_suppressions: null,
      created_at: T0 + 1000,
      updated_at: T0 + 1000,
    });
    const details = check['details'] as Record<string, unknown>;
    expect(details).toMatchObject({ url: 'https://example.com/', method: 'GET', follow_redirects: true, include_body: false, auth_user: 'bob' });
    expect(details['auth_password']).not.toBe('hunter2-secret');
    expect(JSON.stringify(buildAlarmEvent(input))).not.toContain('hunter2-secret');
  });

  it('redacts secrets even when handed a check read with them', () => {
    const { entity, check } = input;
    const withSecrets = monitoring.entities.checkWithSecrets('acme', entity.id, check.id);
    expect(JSON.stringify(withSecrets)).toContain('hunter2-secret');
    expect(JSON.stringify(buildAlarmEvent({ ...input, check: withSecrets }))).not.toContain('hunter2-secret');
  });

  it('alarm record: exactly the spec 2.7 fields', () => {
    const alarm = buildAlarmEvent(input)['alarm'] as Record<string, unknown>;
    expect(sorted(Object.keys(alarm))).toEqual(sorted(ALARM_KEYS));
    expect(alarm).toEqual({
      id: input.alarm.id,
      label: 'Down',
      check_id: input.check.id,
      entity_id: input.entity.id,
      criteria: 'return new AlarmStatus(CRITICAL, "down");',
      disabled: false,
      notification_plan_id: input.alarm.doc.notification_plan_id,
      metadata: null,
      confd_name: null,
      confd_hash: null,
      active_suppressions: null,
      scheduled_suppressions: null,
      created_at: T0 + 2000,
      updated_at: T0 + 2000,
    });
  });

  it('a hostname target, a first state, a named collector and the default txn id', () => {
    const check = { ...input.check, doc: { ...input.check.doc, target_alias: null, target_hostname: 'www.example.com', target_resolver: 'IPv4' as const } };
    const event = buildAlarmEvent({ ...input, check, transition: { ...input.transition, previousState: null }, txnId: undefined, collectorAddress: '198.51.100.7' });
    const details = event['details'] as Record<string, unknown>;
    expect(details['target']).toBe('www.example.com');
    expect(details['previous_state']).toBeNull();
    expect(details['collector_address_v4']).toBe('198.51.100.7');
    expect(details['txn_id']).toBe(`txn.${input.logEntryId}`);
    expect((event['check'] as Record<string, unknown>)['target_resolver']).toBe('IPv4');
  });

  it('agent checks have no target and poll no zones', () => {
    const check = { ...input.check, doc: { ...input.check.doc, type: 'agent.cpu' as const, details: {}, target_alias: null, target_hostname: null, monitoring_zones_poll: null } };
    const event = buildAlarmEvent({ ...input, check });
    expect((event['details'] as Record<string, unknown>)['target']).toBeNull();
    expect((event['check'] as Record<string, unknown>)['monitoring_zones_poll']).toEqual([]);
  });

  it('survives a JSON round trip unchanged (it is stored in the outbox as JSON)', () => {
    const event = buildAlarmEvent(input);
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
