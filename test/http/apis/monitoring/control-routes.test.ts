// Checks the control surface through real HTTP on 127.0.0.1: /check_types, /alarm_examples (with filling one into an alarm the API accepts) and /views/alarmsByNp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_ID } from '../../../../src/monitoring/account/default-objects.js';
import { call, startHarness, type Harness } from '../../harness.js';
import { base, create, createTree, expectFault, httpCheck } from '../../../integration/monitoring-client.js';

const b = base('t1');
let h: Harness;
let alice: string;
let olga: string;
let bob: string;

beforeAll(async () => {
  h = await startHarness({});
  [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
});
afterAll(async () => h.close());

/** Asserts a 400 field error naming `key`. */
function expectFieldError(res: Awaited<ReturnType<typeof call>>, key: string): void {
  expectFault(res, 400, 'badRequest');
  expect(res.json.details).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key });
}

describe('GET /check_types', () => {
  it('lists the ten types Strata runs, paged like notification_types', async () => {
    const res = await call(h, 'GET', `${b}/check_types`, { token: olga });
    expect(res.status).toBe(200);
    expect(res.json.values.map((t: { id: string }) => t.id)).toEqual([
      'agent.cpu', 'agent.disk', 'agent.filesystem', 'agent.load_average', 'agent.memory', 'agent.network',
      'remote.dns', 'remote.http', 'remote.ping', 'remote.tcp',
    ]);
    expect(res.json.metadata).toEqual({ count: 10, limit: 100, marker: null, next_marker: null, next_href: null });
    const page = await call(h, 'GET', `${b}/check_types?limit=2&marker=agent.memory`, { token: alice });
    expect(page.json.values.map((t: { id: string }) => t.id)).toEqual(['agent.memory', 'agent.network']);
    expect(page.json.metadata).toMatchObject({ count: 2, limit: 2, marker: 'agent.memory', next_marker: 'remote.dns', next_href: `${h.url}${b}/check_types?limit=2&marker=remote.dns` });
    const next = await call(h, 'GET', page.json.metadata.next_href.slice(h.url.length), { token: alice });
    expect(next.json.values.map((t: { id: string }) => t.id)).toEqual(['remote.dns', 'remote.http']);
  });

  it('shows one type in the reference shape, with its fields and metrics; 404 for types Strata does not run', async () => {
    const dns = await call(h, 'GET', `${b}/check_types/remote.dns`, { token: alice });
    expect(dns.status).toBe(200);
    expect(dns.json).toMatchObject({ id: 'remote.dns', type: 'remote', category: 'remote' });
    expect(dns.json.fields.map((f: { name: string; optional: boolean }) => [f.name, f.optional])).toEqual([
      ['query', false],
      ['record_type', true],
      ['port', true],
    ]);
    expect(dns.json).not.toHaveProperty('supported_platforms');
    expect(dns.json.metrics).toContainEqual(expect.objectContaining({ name: 'rcode', type: 's', unit: 'unknown' }));
    const disk = await call(h, 'GET', `${b}/check_types/agent.disk`, { token: alice });
    expect(disk.json).toMatchObject({ id: 'agent.disk', type: 'agent', category: 'agent', supported_platforms: ['Linux'], fields: [{ name: 'target', optional: false }] });
    for (const id of ['agent.plugin', 'agent.mysql', 'remote.ssh', 'nope']) expectFault(await call(h, 'GET', `${b}/check_types/${id}`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${b}/check_types`, { token: alice, json: {} }), 405, 'methodNotAllowedError');
  });

  it('needs a token of the tenant', async () => {
    expectFault(await call(h, 'GET', `${b}/check_types`), 401, 'unauthorizedError');
    expectFault(await call(h, 'GET', `${b}/check_types/remote.http`, { token: bob }), 403, 'forbiddenError');
  });
});

describe('/alarm_examples', () => {
  it('lists at least 14 examples by id, paged, and shows one', async () => {
    const res = await call(h, 'GET', `${b}/alarm_examples?limit=1000`, { token: olga });
    expect(res.status).toBe(200);
    const ids: string[] = res.json.values.map((e: { id: string }) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(14);
    expect(ids).toEqual([...ids].sort());
    const page = await call(h, 'GET', `${b}/alarm_examples?limit=3&marker=${ids[2]}`, { token: alice });
    expect(page.json.values.map((e: { id: string }) => e.id)).toEqual(ids.slice(2, 5));
    expect(page.json.metadata).toMatchObject({ count: 3, limit: 3, next_marker: ids[5] });
    const one = await call(h, 'GET', `${b}/alarm_examples/remote.http_response_time`, { token: alice });
    expect(one.json).toMatchObject({
      id: 'remote.http_response_time',
      check_type: 'remote.http',
      fields: [
        { name: 'critical_threshold', type: 'integer' },
        { name: 'warning_threshold', type: 'integer' },
      ],
    });
    expect(one.json.criteria).toContain('${critical_threshold}');
    expectFault(await call(h, 'GET', `${b}/alarm_examples/remote.nope`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${b}/alarm_examples/remote.nope`, { token: alice, json: { values: {} } }), 404, 'notFoundError');
  });

  it('fills an example into criteria an alarm is created with, as an observer may', async () => {
    const filled = await call(h, 'POST', `${b}/alarm_examples/remote.http_response_time`, { token: olga, json: { values: { critical_threshold: 2000, warning_threshold: '0500' } } });
    expect(filled.status, filled.text).toBe(200);
    expect(Object.keys(filled.json)).toEqual(['bound_criteria']);
    expect(filled.json.bound_criteria).toContain("if (metric['duration'] > 2000) {");
    expect(filled.json.bound_criteria).toContain("if (metric['duration'] > 500) {");
    const tree = await createTree(h, alice, 't1');
    const alarm = await create(h, alice, `${b}/entities/${tree.entity}/alarms`, { check_id: tree.check, notification_plan_id: tree.plan, criteria: filled.json.bound_criteria });
    const stored = await call(h, 'GET', `${b}/entities/${tree.entity}/alarms/${alarm}`, { token: alice });
    expect(stored.json.criteria).toBe(filled.json.bound_criteria);
  });

  it('keeps a hostile string inside its literal: the alarm saves and reads back the same', async () => {
    const attack = "x') { return new AlarmStatus(OK); } #";
    const filled = await call(h, 'POST', `${b}/alarm_examples/remote.http_body_match_found`, { token: alice, json: { values: { string: attack } } });
    expect(filled.status, filled.text).toBe(200);
    const tree = await createTree(h, alice, 't1');
    const res = await call(h, 'POST', `${b}/entities/${tree.entity}/alarms`, { token: alice, json: { check_id: tree.check, notification_plan_id: tree.plan, criteria: filled.json.bound_criteria } });
    expect(res.status, res.text).toBe(201);
    const test = await call(h, 'POST', `${b}/entities/${tree.entity}/test-alarm`, {
      token: alice,
      json: {
        criteria: filled.json.bound_criteria,
        check_data: [{ timestamp: 1790000000000, monitoring_zone_id: 'mzdfw', available: true, status: 'ok', metrics: { body_match: { type: 's', data: `page ${attack} end`, unit: 'unknown' } } }],
      },
    });
    expect(test.status, test.text).toBe(200);
    expect(test.json[0]).toMatchObject({ state: 'CRITICAL' });
  });

  it('refuses bad values naming values.<field>, and bodies without values', async () => {
    const fill = (id: string, json: unknown) => call(h, 'POST', `${b}/alarm_examples/${id}`, { token: alice, json });
    expectFieldError(await fill('remote.http_response_time', { values: { critical_threshold: 10 } }), 'values.warning_threshold');
    expectFieldError(await fill('remote.http_response_time', { values: { critical_threshold: 10, warning_threshold: -1 } }), 'values.warning_threshold');
    expectFieldError(await fill('remote.http_response_time', { values: { critical_threshold: '1e3', warning_threshold: 1 } }), 'values.critical_threshold');
    expectFieldError(await fill('remote.http_response_time', { values: { critical_threshold: 1, warning_threshold: 1, extra: 1 } }), 'values.extra');
    expectFieldError(await fill('remote.dns_address_match', { values: { address: 'a\nb' } }), 'values.address');
    expectFieldError(await fill('remote.dns_address_match', { values: { address: 7 } }), 'values.address');
    expectFieldError(await fill('remote.dns_address_match', { values: { address: '.'.repeat(60) } }), 'values.address');
    expectFieldError(await fill('remote.dns_address_match', {}), 'values');
    expectFieldError(await fill('remote.dns_address_match', { values: [] }), 'values');
    expectFieldError(await fill('remote.dns_address_match', { values: {}, other: 1 }), 'other');
    expect((await fill('remote.http_status_code', { values: {} })).status).toBe(200);
  });
});

describe('GET /views/alarmsByNp/{notificationPlanId}', () => {
  it('lists the alarms that use a plan, by id, paged; other plans and tenants stay out', async () => {
    const entity = await create(h, alice, `${b}/entities`, { label: 'view', ip_addresses: { web: '192.0.2.20' } });
    const other = await create(h, alice, `${b}/entities`, { label: 'view-2', ip_addresses: { web: '192.0.2.21' } });
    const checks = [await create(h, alice, `${b}/entities/${entity}/checks`, httpCheck()), await create(h, alice, `${b}/entities/${other}/checks`, httpCheck())];
    const plan = await create(h, alice, `${b}/notification_plans`, { label: 'view plan' });
    const elsewhere = await create(h, alice, `${b}/notification_plans`, { label: 'other plan' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const owner = i % 2 === 0 ? entity : other;
      ids.push(await create(h, alice, `${b}/entities/${owner}/alarms`, { check_id: checks[i % 2], notification_plan_id: plan, label: `a${i}`, criteria: 'return new AlarmStatus(OK);' }));
    }
    await create(h, alice, `${b}/entities/${entity}/alarms`, { check_id: checks[0], notification_plan_id: elsewhere });
    ids.sort();
    const all = await call(h, 'GET', `${b}/views/alarmsByNp/${plan}`, { token: olga });
    expect(all.status).toBe(200);
    expect(all.json.values.map((a: { id: string }) => a.id)).toEqual(ids);
    const first = all.json.values[0];
    expect(Object.keys(first).sort()).toEqual(['check_id', 'criteria', 'disabled', 'entity_id', 'id', 'label', 'notification_plan_id']);
    expect(first).toMatchObject({ notification_plan_id: plan, criteria: 'return new AlarmStatus(OK);', disabled: false });
    const walked: string[] = [];
    let path: string | null = `${b}/views/alarmsByNp/${plan}?limit=2`;
    while (path !== null) {
      const page = await call(h, 'GET', path, { token: alice });
      expect(page.status).toBe(200);
      walked.push(...page.json.values.map((a: { id: string }) => a.id));
      path = page.json.metadata.next_href === null ? null : page.json.metadata.next_href.slice(h.url.length);
    }
    expect(walked).toEqual(ids);
    const marked = await call(h, 'GET', `${b}/views/alarmsByNp/${plan}?marker=${ids[3]}`, { token: alice });
    expect(marked.json.values.map((a: { id: string }) => a.id)).toEqual(ids.slice(3));
    expect(marked.json.metadata).toMatchObject({ marker: ids[3], next_marker: null });
  });

  it('lists the default plan too; 404 for a missing plan or another tenant\'s', async () => {
    const tree = await createTree(h, alice, 't1');
    const usesDefault = await create(h, alice, `${b}/entities/${tree.entity}/alarms`, { check_id: tree.check, notification_plan_id: DEFAULT_PLAN_ID });
    const res = await call(h, 'GET', `${b}/views/alarmsByNp/${DEFAULT_PLAN_ID}`, { token: alice });
    expect(res.json.values.map((a: { id: string }) => a.id)).toContain(usesDefault);
    expectFault(await call(h, 'GET', `${b}/views/alarmsByNp/npMissing`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${base('t2')}/views/alarmsByNp/${tree.plan}`, { token: bob }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${b}/views/alarmsByNp/${tree.plan}`, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${b}/views/alarmsByNp/${tree.plan}?limit=0`, { token: alice }), 400, 'invalidLimit');
  });

  it('is in /openapi.json with the other routes of the control surface', async () => {
    const doc = (await call(h, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, { summary?: string }>> };
    for (const [path, method] of [
      ['/monitoring/v1.0/{tenant}/check_types', 'get'],
      ['/monitoring/v1.0/{tenant}/check_types/{checkTypeId}', 'get'],
      ['/monitoring/v1.0/{tenant}/alarm_examples', 'get'],
      ['/monitoring/v1.0/{tenant}/alarm_examples/{alarmExampleId}', 'post'],
      ['/monitoring/v1.0/{tenant}/views/alarmsByNp/{notificationPlanId}', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.summary, `${method} ${path}`).toBeTypeOf('string');
    }
  });
});
