// Checks /suppressions and /suppression_logs over real HTTP on 127.0.0.1: CRUD, validation naming the field, roles and tenants, record ids on reads, the log time series, and the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { SUPPRESSION_TARGET_ENTRIES_MAX, SUPPRESSION_TARGETS_MAX } from '../../../../src/monitoring/monitoring-limits.js';
import { SUPPRESSION_CREATE_SCHEMA, SUPPRESSION_UPDATE_SCHEMA } from '../../../../src/monitoring/schemas/suppression-schema.js';
import { call, startHarness, type Harness } from '../../harness.js';
import { base, create, createTree, expectFault } from '../../../integration/monitoring-client.js';

const START_MS = Date.parse('2025-06-02T00:00:00Z');
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const KEYS = ['id', 'label', 'entities', 'checks', 'alarms', 'notification_plans', 'start_time', 'end_time', 'recurrence', 'created_at', 'updated_at'];
const LOG_KEYS = ['id', 'entity_id', 'alarm_id', 'check_id', 'notification_plan_id', 'suppressions', 'state', 'previous_state', 'timestamp', 'transaction_id'];

describe('suppression routes over HTTP', () => {
  let h: Harness;
  let clock: ManualClock;
  let alice: string;
  let olga: string;
  let bob: string;
  const b = base('t1');

  beforeAll(async () => {
    clock = new ManualClock(START_MS);
    h = await startHarness({ clock });
    [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
  });
  afterAll(async () => h.close());

  it('creates (201, Location), reads, lists, updates and deletes a suppression', async () => {
    const id = await create(h, alice, `${b}/suppressions`, { label: 'reboot', start_time: START_MS + HOUR_MS, end_time: START_MS + 2 * HOUR_MS, entities: ['enA', 'enA'] });
    expect(id).toMatch(/^sp[A-Za-z0-9]{8}$/);
    const got = await call(h, 'GET', `${b}/suppressions/${id}`, { token: olga });
    expect(got.status).toBe(200);
    expect(Object.keys(got.json).sort()).toEqual([...KEYS].sort());
    expect(got.json).toEqual({
      id, label: 'reboot', entities: ['enA'], checks: [], alarms: [], notification_plans: [],
      start_time: START_MS + HOUR_MS, end_time: START_MS + 2 * HOUR_MS, recurrence: null, created_at: START_MS, updated_at: START_MS,
    });
    // Before the start anything may change; lists replace.
    const put = await call(h, 'PUT', `${b}/suppressions/${id}`, { token: alice, json: { entities: ['enB'], checks: ['enB:chB'], label: null } });
    expect(put.status).toBe(204);
    expect(put.headers.get('location')).toBe(`${h.url}${b}/suppressions/${id}`);
    expect((await call(h, 'GET', `${b}/suppressions/${id}`, { token: alice })).json).toMatchObject({ label: null, entities: ['enB'], checks: ['enB:chB'] });
    const other = await create(h, alice, `${b}/suppressions`, { end_time: START_MS + HOUR_MS, notification_plans: ['npA'] });
    const listed = await call(h, 'GET', `${b}/suppressions?limit=1`, { token: alice });
    expect(listed.json.values.map((v: { id: string }) => v.id)).toEqual([[id, other].sort()[0]]);
    expect(listed.json.metadata).toMatchObject({ count: 1, limit: 1, next_marker: [id, other].sort()[1] });
    const next = await call(h, 'GET', (listed.json.metadata.next_href as string).replace(h.url, ''), { token: alice });
    expect(next.json.values.map((v: { id: string }) => v.id)).toEqual([[id, other].sort()[1]]);
    // The reference's ?id= filter is not supported: the parameter is ignored.
    expect((await call(h, 'GET', `${b}/suppressions?id=${other}`, { token: alice })).json.values.map((v: { id: string }) => v.id)).toEqual([id, other].sort());
    expect((await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: alice })).status).toBe(204);
    expectFault(await call(h, 'GET', `${b}/suppressions/${id}`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'PUT', `${b}/suppressions/${id}`, { token: alice, json: { end_time: 0 } }), 404, 'notFoundError');
    expectFault(await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: alice }), 404, 'notFoundError');
    expect((await call(h, 'DELETE', `${b}/suppressions/${other}`, { token: alice })).status).toBe(204);
  });

  it('once started only end_time changes: a GET sent back with a new end_time passes, another change is a 400 naming the field', async () => {
    const id = await create(h, alice, `${b}/suppressions`, { start_time: 0, end_time: clock.now() + HOUR_MS, alarms: ['enA:alA'] });
    const { id: _id, created_at: _c, updated_at: _u, ...shown } = (await call(h, 'GET', `${b}/suppressions/${id}`, { token: alice })).json;
    expect((await call(h, 'PUT', `${b}/suppressions/${id}`, { token: alice, json: { ...shown, end_time: clock.now() + 2 * HOUR_MS } })).status).toBe(204);
    for (const [json, key] of [
      [{ alarms: ['enA:alB'] }, 'alarms'],
      [{ start_time: clock.now() + MINUTE_MS }, 'start_time'],
      [{ label: 'late' }, 'label'],
      [{ recurrence: { schedule: '0 1 * * *', duration: HOUR_MS } }, 'recurrence'],
      [{ end_time: clock.now() - 2 * MINUTE_MS }, 'end_time'],
    ] as const) {
      const res = await call(h, 'PUT', `${b}/suppressions/${id}`, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details, JSON.stringify(json)).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key });
    }
    // end_time 0 ends it now; up to a minute in the past is taken as now as well.
    clock.advance(MINUTE_MS);
    expect((await call(h, 'PUT', `${b}/suppressions/${id}`, { token: alice, json: { end_time: clock.now() - 30_000 } })).status).toBe(204);
    expect((await call(h, 'GET', `${b}/suppressions/${id}`, { token: alice })).json.end_time).toBe(clock.now());
    expect((await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: alice })).status).toBe(204);
  });

  it('refuses invalid bodies with a 400 naming the field', async () => {
    const now = clock.now();
    const target = { entities: ['enA'] };
    const cases: [unknown, string][] = [
      [{ entities: ['enA'] }, 'end_time'],
      [{ end_time: now + HOUR_MS }, 'entities'],
      [{ end_time: now + HOUR_MS, entities: [], checks: null }, 'entities'],
      [{ ...target, start_time: now - 2 * MINUTE_MS, end_time: now + HOUR_MS }, 'start_time'],
      [{ ...target, start_time: now + HOUR_MS, end_time: now + HOUR_MS }, 'end_time'],
      [{ ...target, end_time: 0 }, 'end_time'],
      [{ ...target, end_time: -1 }, 'end_time'],
      [{ ...target, end_time: 1.5 }, 'end_time'],
      [{ ...target, end_time: 3e15 }, 'end_time'],
      [{ end_time: now + HOUR_MS, entities: Array.from({ length: 257 }, (_, i) => `en${i}`) }, 'entities'],
      [{ end_time: now + HOUR_MS, entities: [''] }, 'entities'],
      [{ end_time: now + HOUR_MS, entities: ['en A'] }, 'entities'],
      [{ end_time: now + HOUR_MS, checks: ['enA'] }, 'checks'],
      [{ end_time: now + HOUR_MS, alarms: ['enA:alA:x'] }, 'alarms'],
      [{ end_time: now + HOUR_MS, notification_plans: [7] }, 'notification_plans'],
      [{ ...target, end_time: now + HOUR_MS, label: '' }, 'label'],
      [{ ...target, end_time: now + HOUR_MS, colour: 'red' }, 'colour'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '@daily', duration: HOUR_MS } }, 'recurrence'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '0 25 * * *', duration: HOUR_MS } }, 'recurrence'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '0 1 * * *', duration: 1000 } }, 'recurrence'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '0 1 * * *', duration: 8 * DAY_MS } }, 'recurrence'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '0 1 * * *', time_zone: 'Mars/Base', duration: HOUR_MS } }, 'recurrence'],
      [{ ...target, end_time: now + HOUR_MS, recurrence: { duration: HOUR_MS } }, 'recurrence'],
      // A window from 00:00 to 01:00 meets no 02:00–03:00 occurrence (none starts in it, and none runs at its start).
      [{ ...target, end_time: now + HOUR_MS, recurrence: { schedule: '0 2 * * *', duration: HOUR_MS } }, 'recurrence'],
    ];
    for (const [json, key] of cases) {
      const res = await call(h, 'POST', `${b}/suppressions`, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details, JSON.stringify(json).slice(0, 120)).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key });
      expect(res.json.message).toBe(`Validation error for key '${key}'`);
    }
    expect((await call(h, 'GET', `${b}/suppressions`, { token: alice })).json.values).toEqual([]);
  });

  it('lets observers read but not write, and keeps tenants apart', async () => {
    const id = await create(h, alice, `${b}/suppressions`, { end_time: clock.now() + HOUR_MS, entities: ['enA'] });
    expectFault(await call(h, 'POST', `${b}/suppressions`, { token: olga, json: { end_time: clock.now() + HOUR_MS, entities: ['enA'] } }), 403, 'forbiddenError');
    expectFault(await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: olga }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${b}/suppressions/${id}`, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${base('t2')}/suppressions/${id}`, { token: bob }), 404, 'notFoundError');
    expect((await call(h, 'GET', `${base('t2')}/suppressions`, { token: bob })).json.values).toEqual([]);
    expectFault(await call(h, 'GET', `${b}/suppressions`), 401, 'unauthorizedError');
    expect((await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: alice })).status).toBe(204);
  });

  it('entity, check and alarm reads and the overview carry active_suppressions and scheduled_suppressions', async () => {
    const tree = await createTree(h, alice, 't1');
    const now = clock.now();
    const onEntity = await create(h, alice, `${b}/suppressions`, { end_time: now + HOUR_MS, entities: [tree.entity] });
    const onCheckLater = await create(h, alice, `${b}/suppressions`, { start_time: now + HOUR_MS, end_time: now + 2 * HOUR_MS, checks: [`${tree.entity}:${tree.check}`] });
    const onPlan = await create(h, alice, `${b}/suppressions`, { end_time: now + HOUR_MS, notification_plans: [tree.plan] });
    const ids = (json: { active_suppressions: string[]; scheduled_suppressions: string[] }): unknown => [json.active_suppressions, json.scheduled_suppressions];
    const entity = await call(h, 'GET', `${b}/entities/${tree.entity}`, { token: olga });
    expect(ids(entity.json)).toEqual([[onEntity], []]);
    const check = await call(h, 'GET', `${b}/entities/${tree.entity}/checks/${tree.check}`, { token: olga });
    expect(ids(check.json)).toEqual([[onEntity], [onCheckLater]]);
    const alarm = await call(h, 'GET', `${b}/entities/${tree.entity}/alarms/${tree.alarm}`, { token: olga });
    expect(ids(alarm.json)).toEqual([[onEntity, onPlan].sort(), [onCheckLater]]);
    const alarms = await call(h, 'GET', `${b}/entities/${tree.entity}/alarms`, { token: olga });
    expect(alarms.json.values).toEqual([alarm.json]);
    const checks = await call(h, 'GET', `${b}/entities/${tree.entity}/checks`, { token: olga });
    expect(checks.json.values).toEqual([check.json]);
    const overview = await call(h, 'GET', `${base('t1')}/views/overview?entityId=${tree.entity}`, { token: olga });
    expect(overview.json.values[0]).toMatchObject({ entity: entity.json, checks: [check.json], alarms: [alarm.json] });
    // An hour later the entity's window is over and the check's has begun.
    clock.advance(HOUR_MS);
    expect(ids((await call(h, 'GET', `${b}/entities/${tree.entity}/alarms/${tree.alarm}`, { token: olga })).json)).toEqual([[onCheckLater], []]);
    // A deleted suppression is gone from the records at once.
    expect((await call(h, 'DELETE', `${b}/suppressions/${onCheckLater}`, { token: alice })).status).toBe(204);
    expect(ids((await call(h, 'GET', `${b}/entities/${tree.entity}/checks/${tree.check}`, { token: olga })).json)).toEqual([[], []]);
  });

  it('lists suppression logs as a time series: last 7 days by default, paged by entry id, next_href keeping the window', async () => {
    const tenant = 't1';
    const now = clock.now();
    const row = (timestampMs: number) => ({
      timestampMs, entityId: 'enA', alarmId: 'alA', checkId: 'chA', planId: 'npA', suppressions: ['spA'], state: 'CRITICAL', previousState: 'OK', txnId: `txn-${timestampMs}`,
    });
    const logs = h.app.strata.monitoring.suppressions;
    const old = logs.appendLog(tenant, row(now - 8 * DAY_MS));
    const recent = [now - 3 * DAY_MS, now - 2 * DAY_MS, now - DAY_MS].map((t) => logs.appendLog(tenant, row(t)));
    const first = await call(h, 'GET', `${b}/suppression_logs?limit=2`, { token: olga });
    expect(first.status).toBe(200);
    expect(first.json.values.map((v: { id: string }) => v.id)).toEqual(recent.slice(0, 2));
    expect(Object.keys(first.json.values[0]).sort()).toEqual([...LOG_KEYS].sort());
    expect(first.json.values[0]).toEqual({
      id: recent[0], entity_id: 'enA', alarm_id: 'alA', check_id: 'chA', notification_plan_id: 'npA', suppressions: ['spA'],
      state: 'CRITICAL', previous_state: 'OK', timestamp: now - 3 * DAY_MS, transaction_id: `txn-${now - 3 * DAY_MS}`,
    });
    const href = new URL(first.json.metadata.next_href as string);
    // `to` defaults to just after now (the window is half-open), `from` to 7 days before it.
    expect([href.searchParams.get('from'), href.searchParams.get('to'), href.searchParams.get('marker')]).toEqual([String(now + 1 - 7 * DAY_MS), String(now + 1), recent[2]]);
    const second = await call(h, 'GET', `${href.pathname}${href.search}`, { token: olga });
    expect(second.json.values.map((v: { id: string }) => v.id)).toEqual([recent[2]]);
    expect(second.json.metadata.next_href).toBeNull();
    const windowed = await call(h, 'GET', `${b}/suppression_logs?from=${now - 9 * DAY_MS}&to=${now - 3 * DAY_MS}`, { token: olga });
    expect(windowed.json.values.map((v: { id: string }) => v.id)).toEqual([old]);
    expect((await call(h, 'GET', `${base('t2')}/suppression_logs`, { token: bob })).json.values).toEqual([]);
    const reversed = await call(h, 'GET', `${b}/suppression_logs?from=${now}&to=${now - 1}`, { token: olga });
    expectFault(reversed, 400, 'badRequest');
    expect(reversed.json.details).toMatchObject({ key: 'from' });
    expectFault(await call(h, 'GET', `${b}/suppression_logs?limit=0`, { token: olga }), 400, 'invalidLimit');
    expectFault(await call(h, 'POST', `${b}/suppression_logs`, { token: alice, json: {} }), 405, 'methodNotAllowedError');
  });

  it("accepts the schema's examples (the OpenAPI document shows them)", async () => {
    const created: string[] = [];
    for (const example of SUPPRESSION_CREATE_SCHEMA.examples ?? []) created.push(await create(h, alice, `${b}/suppressions`, example));
    // Updates before the start may change any field.
    const future = await create(h, alice, `${b}/suppressions`, { start_time: clock.now() + HOUR_MS, end_time: clock.now() + 2 * HOUR_MS, entities: ['enA'] });
    created.push(future);
    for (const example of SUPPRESSION_UPDATE_SCHEMA.examples ?? []) {
      expect((await call(h, 'PUT', `${b}/suppressions/${future}`, { token: alice, json: example })).status, JSON.stringify(example)).toBe(204);
    }
    for (const id of created) expect((await call(h, 'DELETE', `${b}/suppressions/${id}`, { token: alice })).status).toBe(204);
  });

  it('refuses a create past the tenant\'s target items with 400 limitReached (type SuppressionTarget); an ended suppression leaves the account limit in GET /limits', async () => {
    const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    // Tenant t2 (bob), which the other tests leave empty.
    const t2 = base('t2');
    const created: string[] = [];
    for (let left = SUPPRESSION_TARGET_ENTRIES_MAX, k = 0; left > 0; k++) {
      const n = Math.min(SUPPRESSION_TARGETS_MAX, left);
      created.push(await create(h, bob, `${t2}/suppressions`, { end_time: clock.now() + HOUR_MS, entities: ids(`enT${k}x`, n) }));
      left -= n;
    }
    const refused = await call(h, 'POST', `${t2}/suppressions`, { token: bob, json: { end_time: clock.now() + HOUR_MS, notification_plans: ['npOne'] } });
    expectFault(refused, 400, 'limitReached');
    expect(refused.json.details).toMatchObject({ type: 'SuppressionTarget', limit: SUPPRESSION_TARGET_ENTRIES_MAX });
    const usage = async (): Promise<number> => (await call(h, 'GET', `${t2}/limits`, { token: bob })).json.resource_usage.suppressions as number;
    expect(await usage()).toBe(created.length);
    clock.advance(MINUTE_MS);
    expect((await call(h, 'PUT', `${t2}/suppressions/${created[0] as string}`, { token: bob, json: { end_time: 0 } })).status).toBe(204);
    expect(await usage()).toBe(created.length - 1);
    for (const id of created) expect((await call(h, 'DELETE', `${t2}/suppressions/${id}`, { token: bob })).status).toBe(204);
    // Deleting makes room again.
    const again = await create(h, bob, `${t2}/suppressions`, { end_time: clock.now() + HOUR_MS, notification_plans: ['npOne'] });
    expect((await call(h, 'DELETE', `${t2}/suppressions/${again}`, { token: bob })).status).toBe(204);
  });

  it('documents every suppression route in /openapi.json', async () => {
    const doc = (await call(h, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, { summary?: string }>> };
    const prefix = '/monitoring/v1.0/{tenant}';
    expect(Object.keys(doc.paths[`${prefix}/suppressions`] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${prefix}/suppressions/{suppressionId}`] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(doc.paths[`${prefix}/suppression_logs`] ?? {})).toEqual(['get']);
    expect(JSON.stringify(doc.paths[`${prefix}/suppressions`])).toContain('recurrence');
  });
});
