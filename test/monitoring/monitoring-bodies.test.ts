// Checks that the body schemas plus the services answer every body case of the HTTP tests (monitoring-crud) with the same key or code.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isStrataError } from '../../src/core/errors.js';
import { openMonitoring, type MonitoringService } from '../../src/monitoring/monitoring-service.js';
import type { AgentTokenCreate, AgentTokenUpdate } from '../../src/monitoring/schemas/agent-token-schema.js';
import type { AlarmCreate, AlarmUpdate } from '../../src/monitoring/schemas/alarm-schema.js';
import type { CheckCreate, CheckUpdate } from '../../src/monitoring/schemas/check-schema.js';
import type { EntityCreate, EntityUpdate } from '../../src/monitoring/schemas/entity-schema.js';
import type { JsonSchema } from '../../src/monitoring/schemas/json-schema.js';
import { MONITORING_BODY_SCHEMAS as BODIES } from '../../src/monitoring/schemas/monitoring-body-schemas.js';
import type { NotificationCreate, NotificationUpdate } from '../../src/monitoring/schemas/notification-schema.js';
import type { PlanCreate } from '../../src/monitoring/schemas/plan-schema.js';
import { schemaError } from './body-verdict.js';

/** What the API answers: the id (or 'ok') on success, else the field key, or the error code when no key is named. */
function answer<T>(schema: JsonSchema, body: unknown, call: (input: T) => string | void): string {
  const refused = schemaError(schema, body);
  if (refused !== undefined) return `key:${String(refused.details['key'])}`;
  try {
    return call(body as T) ?? 'ok';
  } catch (error) {
    if (!isStrataError(error)) throw error;
    return error.code === 'MONITORING_FIELD_INVALID' ? `key:${String(error.details['key'])}` : error.code;
  }
}

/** monitoring-client.ts's remote.http check body. */
function httpCheck(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { label: 'Website', type: 'remote.http', details: { url: 'https://example.com/', method: 'GET' }, monitoring_zones_poll: ['mzdfw', 'mzord'], target_alias: 'web', period: 60, timeout: 30, ...extra };
}

describe('monitoring bodies as the HTTP API judges them', () => {
  let monitoring: MonitoringService;
  const t = 't1';

  beforeEach(() => {
    monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(1_790_000_000_000) });
  });
  afterEach(() => monitoring.close());

  it('names the entity field at fault', () => {
    const cases: [unknown, string][] = [
      [{}, 'label'],
      [{ label: '' }, 'label'],
      [{ label: 'x'.repeat(256) }, 'label'],
      [{ label: 'a', ip_addresses: { a: 'not-an-ip' } }, 'ip_addresses'],
      [{ label: 'a', metadata: { k: null } }, 'metadata'],
      [{ label: 'a', agent_id: 'bad id!' }, 'agent_id'],
      [{ label: 'a', managed: 'yes' }, 'managed'],
      [{ label: 'a', colour: 'red' }, 'colour'],
      [null, 'body'],
      [[], 'body'],
      ['text', 'body'],
    ];
    for (const [json, key] of cases) expect(answer<EntityCreate>(BODIES.entity.create, json, (input) => monitoring.entities.createEntity(t, input)), JSON.stringify(json)).toBe(`key:${key}`);
    const id = answer<EntityCreate>(BODIES.entity.create, { label: 'db-1', ip_addresses: { main: '2001:db8::1' }, metadata: { role: 'db' } }, (input) => monitoring.entities.createEntity(t, input));
    expect(answer<EntityUpdate>(BODIES.entity.update, { label: 'db-2', agent_id: 'db-1.example.com' }, (input) => monitoring.entities.updateEntity(t, id, input))).toBe('ok');
    expect(monitoring.entities.entity(t, id).doc).toMatchObject({ label: 'db-2', agent_id: 'db-1.example.com', metadata: { role: 'db' } });
  });

  it('validates checks: type, zones, target, period and timeout', () => {
    const entity = monitoring.entities.createEntity(t, { label: 'web', ip_addresses: { web: '192.0.2.1' } });
    const create = (json: unknown) => answer<CheckCreate>(BODIES.check.create, json, (input) => monitoring.entities.createCheck(t, entity, input));
    const cases: [Record<string, unknown>, string][] = [
      [httpCheck({ type: 'remote.telnet' }), 'type'],
      [httpCheck({ monitoring_zones_poll: ['mzxyz'] }), 'monitoring_zones_poll'],
      [httpCheck({ target_alias: 'nope' }), 'target_alias'],
      [httpCheck({ target_hostname: 'example.com' }), 'target_alias'],
      [httpCheck({ period: 29 }), 'period'],
      [httpCheck({ period: 1801 }), 'period'],
      [httpCheck({ timeout: 60 }), 'timeout'],
      [httpCheck({ details: { url: 'ftp://example.com' } }), 'details.url'],
      [httpCheck({ details: { url: 'https://example.com', method: 'PATCH' } }), 'details.method'],
    ];
    for (const [json, key] of cases) expect(create(json), JSON.stringify(json)).toBe(`key:${key}`);
    const id = create(httpCheck({ period: 30, timeout: 29 }));
    expect(monitoring.entities.check(t, entity, id).doc).toMatchObject({ type: 'remote.http', period: 30, timeout: 29, disabled: false });
    expect(monitoring.entities.check(t, entity, id).doc.details).toEqual({ url: 'https://example.com/', method: 'GET', follow_redirects: true, include_body: false });
    const agent = create({ type: 'agent.disk', details: { target: '/dev/sda1' } });
    expect(monitoring.entities.check(t, entity, agent).doc).toMatchObject({ monitoring_zones_poll: null, target_alias: null });
    const update = (json: unknown) => answer<CheckUpdate>(BODIES.check.update, json, (input) => monitoring.entities.updateCheck(t, entity, id, input));
    expect(update({ type: 'agent.cpu' })).toBe('key:type');
    expect(update({ label: 'renamed', disabled: true })).toBe('ok');
    expect(monitoring.entities.check(t, entity, id).doc).toMatchObject({ label: 'renamed', disabled: true, period: 30 });
    const updateEntity = (json: unknown) => answer<EntityUpdate>(BODIES.entity.update, json, (input) => monitoring.entities.updateEntity(t, entity, input));
    expect(updateEntity({ ip_addresses: { other: '192.0.2.9' } })).toBe('key:ip_addresses');
    expect(updateEntity({ ip_addresses: { web: '192.0.2.2', other: '192.0.2.9' } })).toBe('ok');
  });

  it('parses alarm criteria and checks that the check and plan exist', () => {
    const entity = monitoring.entities.createEntity(t, { label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
    const check = monitoring.entities.createCheck(t, entity, httpCheck() as unknown as CheckCreate);
    const notification = monitoring.notifications.createNotification(t, { label: 'ops', type: 'email', details: { address: 'ops@example.com' } });
    const plan = monitoring.notifications.createPlan(t, { label: 'plan', critical_state: [notification] });
    const create = (json: unknown) => answer<AlarmCreate>(BODIES.alarm.create, json, (input) => monitoring.entities.createAlarm(t, entity, input));
    const broken = { check_id: check, notification_plan_id: plan, criteria: "if (metric['a'] > 1) {\n  return new AlarmStatus(BROKEN);\n}" };
    expect(create(broken)).toBe('MONITORING_ALARM_PARSE_FAILED');
    const alarm = create({ check_id: check, notification_plan_id: plan, criteria: ':set consecutiveCount=3\nif (metric["duration"] < 50) { return OK } return WARNING' });
    expect(monitoring.entities.alarm(t, entity, alarm).doc).toMatchObject({ check_id: check });
    expect(create({ check_id: 'chNope', notification_plan_id: plan })).toBe('key:check_id');
    expect(create({ check_id: check, notification_plan_id: 'npNope' })).toBe('key:notification_plan_id');
    expect(create({ check_id: check })).toBe('key:notification_plan_id');
    const update = (json: unknown) => answer<AlarmUpdate>(BODIES.alarm.update, json, (input) => monitoring.entities.updateAlarm(t, entity, alarm, input));
    expect(update({ criteria: 'return' })).toBe('MONITORING_ALARM_PARSE_FAILED');
    expect(update({ check_id: 'chOther' })).toBe('key:check_id');
    expect(update({ check_id: check, label: 'renamed' })).toBe('ok');
  });

  it('keeps notifications and plans consistent', () => {
    const nt = answer<NotificationCreate>(BODIES.notification.create, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/x' } }, (input) => monitoring.notifications.createNotification(t, input));
    const update = (json: unknown) => answer<NotificationUpdate>(BODIES.notification.update, json, (input) => monitoring.notifications.updateNotification(t, nt, input));
    expect(update({ type: 'sms' })).toBe('key:details.phone_number');
    expect(update({ type: 'sms', details: { phone_number: '+15551234567' } })).toBe('ok');
    const createPlan = (json: unknown) => answer<PlanCreate>(BODIES.plan.create, json, (input) => monitoring.notifications.createPlan(t, input));
    expect(createPlan({ label: 'p', warning_state: ['ntNope'] })).toBe('key:warning_state');
    const plan = createPlan({ label: 'p', ok_state: [nt] });
    expect(monitoring.notifications.plan(t, plan).doc).toMatchObject({ critical_state: [], warning_state: [], ok_state: [nt], metadata: null });
  });

  it('issues agent tokens with a label, which an update may clear', () => {
    const id = answer<AgentTokenCreate>(BODIES.agentToken.create, { label: 'host-1' }, (input) => monitoring.agents.createToken(t, input));
    expect(monitoring.agents.token(t, id).label).toBe('host-1');
    expect(answer<AgentTokenUpdate>(BODIES.agentToken.update, {}, (input) => monitoring.agents.updateToken(t, id, input))).toBe('ok');
    expect(monitoring.agents.token(t, id).label).toBe('host-1');
    expect(answer<AgentTokenUpdate>(BODIES.agentToken.update, { label: null }, (input) => monitoring.agents.updateToken(t, id, input))).toBe('ok');
    expect(monitoring.agents.token(t, id).label).toBeNull();
    expect(answer<AgentTokenCreate>(BODIES.agentToken.create, { label: '' }, (input) => monitoring.agents.createToken(t, input))).toBe('key:label');
    expect(answer<AgentTokenCreate>(BODIES.agentToken.create, { name: 'x' }, (input) => monitoring.agents.createToken(t, input))).toBe('key:name');
  });
});
