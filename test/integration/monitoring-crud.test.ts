// Checks the monitoring CRUD resources over real HTTP: 201/204 semantics, validation, 404s, children, 405, 413.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create, createTree, expectFault, httpCheck } from './monitoring-client.js';

describe('monitoring CRUD over HTTP', () => {
  let h: Harness;
  let alice: string;
  const b = base('t1');

  beforeAll(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
  });
  afterAll(async () => h.close());

  it('creates, reads, updates and deletes an entity', async () => {
    const id = await create(h, alice, `${b}/entities`, { label: 'db-1', ip_addresses: { main: '2001:db8::1' }, metadata: { role: 'db' } });
    expect(id).toMatch(/^en[A-Za-z0-9]{8}$/);
    const got = await call(h, 'GET', `${b}/entities/${id}`, { token: alice });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ id, label: 'db-1', ip_addresses: { main: '2001:db8::1' }, metadata: { role: 'db' }, agent_id: null, managed: false, uri: null });
    expect(Number.isInteger(got.json.created_at) && got.json.created_at === got.json.updated_at).toBe(true);
    const put = await call(h, 'PUT', `${b}/entities/${id}`, { token: alice, json: { label: 'db-2', agent_id: 'db-1.example.com' } });
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    expect(put.headers.get('location')).toBe(`${h.url}${b}/entities/${id}`);
    const after = await call(h, 'GET', `${b}/entities/${id}`, { token: alice });
    expect(after.json).toMatchObject({ label: 'db-2', agent_id: 'db-1.example.com', metadata: { role: 'db' } });
    expect((await call(h, 'DELETE', `${b}/entities/${id}`, { token: alice })).status).toBe(204);
    expectFault(await call(h, 'GET', `${b}/entities/${id}`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'DELETE', `${b}/entities/${id}`, { token: alice }), 404, 'notFoundError');
  });

  it('names the field at fault in validation errors', async () => {
    const cases: [unknown, string][] = [
      [{}, 'label'],
      [{ label: '' }, 'label'],
      [{ label: 'x'.repeat(256) }, 'label'],
      [{ label: 'a', ip_addresses: { a: 'not-an-ip' } }, 'ip_addresses'],
      [{ label: 'a', metadata: { k: null } }, 'metadata'],
      [{ label: 'a', agent_id: 'bad id!' }, 'agent_id'],
      [{ label: 'a', managed: 'yes' }, 'managed'],
      [{ label: 'a', colour: 'red' }, 'colour'],
    ];
    for (const [json, key] of cases) {
      const res = await call(h, 'POST', `${b}/entities`, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key });
      expect(res.json.message).toBe(`Validation error for key '${key}'`);
    }
    const notJson = await call(h, 'POST', `${b}/entities`, { token: alice, body: '{oops', type: 'application/json' });
    expectFault(notJson, 400, 'badRequest');
  });

  it('validates checks: type, zones, target, period and timeout', async () => {
    const entity = await create(h, alice, `${b}/entities`, { label: 'web', ip_addresses: { web: '192.0.2.1' } });
    const checks = `${b}/entities/${entity}/checks`;
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
    for (const [json, key] of cases) {
      const res = await call(h, 'POST', checks, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details.key).toBe(key);
    }
    const id = await create(h, alice, checks, httpCheck({ period: 30, timeout: 29 }));
    const got = await call(h, 'GET', `${checks}/${id}`, { token: alice });
    expect(got.json).toMatchObject({ id, entity_id: entity, type: 'remote.http', period: 30, timeout: 29, disabled: false });
    expect(got.json.details).toEqual({ url: 'https://example.com/', method: 'GET', follow_redirects: true, include_body: false });
    const agent = await create(h, alice, checks, { type: 'agent.disk', details: { target: '/dev/sda1' } });
    expect((await call(h, 'GET', `${checks}/${agent}`, { token: alice })).json).toMatchObject({ monitoring_zones_poll: null, target_alias: null });
    const changeType = await call(h, 'PUT', `${checks}/${id}`, { token: alice, json: { type: 'agent.cpu' } });
    expect(changeType.json.details.key).toBe('type');
    expect((await call(h, 'PUT', `${checks}/${id}`, { token: alice, json: { label: 'renamed', disabled: true } })).status).toBe(204);
    expect((await call(h, 'GET', `${checks}/${id}`, { token: alice })).json).toMatchObject({ label: 'renamed', disabled: true, period: 30 });
    const dropTarget = await call(h, 'PUT', `${b}/entities/${entity}`, { token: alice, json: { ip_addresses: { other: '192.0.2.9' } } });
    expectFault(dropTarget, 400, 'badRequest');
    expect(dropTarget.json.details.key).toBe('ip_addresses');
    expect((await call(h, 'PUT', `${b}/entities/${entity}`, { token: alice, json: { ip_addresses: { web: '192.0.2.2', other: '192.0.2.9' } } })).status).toBe(204);
  });

  it('parses alarm criteria and answers alarmParseError with line, column and token', async () => {
    const tree = await createTree(h, alice, 't1');
    const alarms = `${b}/entities/${tree.entity}/alarms`;
    const bad = await call(h, 'POST', alarms, {
      token: alice,
      json: { check_id: tree.check, notification_plan_id: tree.plan, criteria: "if (metric['a'] > 1) {\n  return new AlarmStatus(BROKEN);\n}" },
    });
    expectFault(bad, 400, 'alarmParseError');
    expect(bad.json.details).toMatchObject({ error_line: 2, error_column: 26, error_token: 'BROKEN', error_position: 48 });
    const shorthand = await create(h, alice, alarms, { check_id: tree.check, notification_plan_id: tree.plan, criteria: ':set consecutiveCount=3\nif (metric["duration"] < 50) { return OK } return WARNING' });
    expect((await call(h, 'GET', `${alarms}/${shorthand}`, { token: alice })).json).toMatchObject({ entity_id: tree.entity, check_id: tree.check });
    const missingCheck = await call(h, 'POST', alarms, { token: alice, json: { check_id: 'chNope', notification_plan_id: tree.plan } });
    expect(missingCheck.json.details.key).toBe('check_id');
    const missingPlan = await call(h, 'POST', alarms, { token: alice, json: { check_id: tree.check, notification_plan_id: 'npNope' } });
    expect(missingPlan.json.details.key).toBe('notification_plan_id');
    const badUpdate = await call(h, 'PUT', `${alarms}/${tree.alarm}`, { token: alice, json: { criteria: 'return' } });
    expectFault(badUpdate, 400, 'alarmParseError');
  });

  it('refuses to delete objects that still have children, with childrenExistError', async () => {
    const tree = await createTree(h, alice, 't1');
    const entityRes = await call(h, 'DELETE', `${b}/entities/${tree.entity}`, { token: alice });
    expectFault(entityRes, 400, 'childrenExistError');
    expect(entityRes.json.details).toMatchObject({ type: 'Check', message: 'Child checks remaining' });
    expectFault(await call(h, 'DELETE', `${b}/entities/${tree.entity}/checks/${tree.check}`, { token: alice }), 400, 'childrenExistError');
    expectFault(await call(h, 'DELETE', `${b}/notification_plans/${tree.plan}`, { token: alice }), 400, 'childrenExistError');
    expectFault(await call(h, 'DELETE', `${b}/notifications/${tree.notification}`, { token: alice }), 400, 'childrenExistError');
    for (const path of [`entities/${tree.entity}/alarms/${tree.alarm}`, `notification_plans/${tree.plan}`, `notifications/${tree.notification}`]) {
      expect((await call(h, 'DELETE', `${b}/${path}`, { token: alice })).status).toBe(204);
    }
    const entityAgain = await call(h, 'DELETE', `${b}/entities/${tree.entity}`, { token: alice });
    expect(entityAgain.json.details.type).toBe('Check');
    expect((await call(h, 'DELETE', `${b}/entities/${tree.entity}/checks/${tree.check}`, { token: alice })).status).toBe(204);
    expect((await call(h, 'DELETE', `${b}/entities/${tree.entity}`, { token: alice })).status).toBe(204);
  });

  it('answers parentNotFoundError under a missing entity and notFoundError for missing children', async () => {
    expectFault(await call(h, 'GET', `${b}/entities/enMissing/checks`, { token: alice }), 404, 'parentNotFoundError');
    expectFault(await call(h, 'POST', `${b}/entities/enMissing/checks`, { token: alice, json: httpCheck() }), 404, 'parentNotFoundError');
    const entity = await create(h, alice, `${b}/entities`, { label: 'e' });
    const missing = await call(h, 'GET', `${b}/entities/${entity}/alarms/alMissing`, { token: alice });
    expectFault(missing, 404, 'notFoundError');
    expect(missing.json.details).toMatchObject({ type: 'Alarm', key: 'alMissing' });
  });

  it('keeps notifications and plans consistent', async () => {
    const nt = await create(h, alice, `${b}/notifications`, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/x' } });
    const got = await call(h, 'GET', `${b}/notifications/${nt}`, { token: alice });
    // A webhook's url is a secret as a whole (docs/monitoring-api.md, "Notification secrets").
    expect(got.json).toMatchObject({ id: nt, label: 'hook', type: 'webhook', details: { url: '[redacted]' } });
    const badType = await call(h, 'PUT', `${b}/notifications/${nt}`, { token: alice, json: { type: 'sms' } });
    expect(badType.json.details.key).toBe('details.phone_number');
    expect((await call(h, 'PUT', `${b}/notifications/${nt}`, { token: alice, json: { type: 'sms', details: { phone_number: '+15551234567' } } })).status).toBe(204);
    const unknownMember = await call(h, 'POST', `${b}/notification_plans`, { token: alice, json: { label: 'p', warning_state: ['ntNope'] } });
    expect(unknownMember.json.details.key).toBe('warning_state');
    const plan = await create(h, alice, `${b}/notification_plans`, { label: 'p', ok_state: [nt] });
    expect((await call(h, 'GET', `${b}/notification_plans/${plan}`, { token: alice })).json).toMatchObject({ critical_state: [], warning_state: [], ok_state: [nt], metadata: null });
  });

  it('issues agent tokens whose value is shown on GET and stored only as a hash', async () => {
    const id = await create(h, alice, `${b}/agent_tokens`, { label: 'host-1' });
    expect(id).toMatch(/^at/);
    const got = await call(h, 'GET', `${b}/agent_tokens/${id}`, { token: alice });
    expect(got.json).toMatchObject({ id, label: 'host-1' });
    expect(got.json.token).toMatch(/^[0-9a-f]{64}:t1$/);
    expect(h.app.strata.monitoring.agents.tokenOf(got.json.token)).toEqual({ tenant: 't1', tokenId: id });
    expect((await call(h, 'PUT', `${b}/agent_tokens/${id}`, { token: alice, json: { label: null } })).status).toBe(204);
    const listed = await call(h, 'GET', `${b}/agent_tokens`, { token: alice });
    expect(listed.json.values.find((v: { id: string }) => v.id === id)).toMatchObject({ label: null, token: got.json.token });
    expect((await call(h, 'DELETE', `${b}/agent_tokens/${id}`, { token: alice })).status).toBe(204);
    expect(h.app.strata.monitoring.agents.tokenOf(got.json.token)).toBeUndefined();
  });

  it('answers 401 without a token, 403 for observers writing and for other tenants, 405 with Allow, 413 for big bodies', async () => {
    expectFault(await call(h, 'GET', `${b}/entities`), 401, 'unauthorizedError');
    expectFault(await call(h, 'GET', `${b}/entities`, { token: 'bogus' }), 401, 'unauthorizedError');
    const olga = await h.token('olga');
    expect((await call(h, 'GET', `${b}/entities`, { token: olga })).status).toBe(200);
    expectFault(await call(h, 'POST', `${b}/entities`, { token: olga, json: { label: 'x' } }), 403, 'forbiddenError');
    const bob = await h.token('bob');
    expectFault(await call(h, 'GET', `${b}/entities`, { token: bob }), 403, 'forbiddenError');
    const patch = await call(h, 'PATCH', `${b}/entities`, { token: alice, json: {} });
    expectFault(patch, 405, 'methodNotAllowedError');
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
    const big = await call(h, 'POST', `${b}/entities`, { token: alice, json: { label: 'x', metadata: { k: 'v'.repeat(300_000) } } });
    expectFault(big, 413, 'requestTooLargeError');
  });
});
