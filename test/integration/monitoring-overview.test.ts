// Checks GET /views/overview over real HTTP: the documented shape, paging by entity id with next_href, the entity filter, limits, tenants apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlarmStateStore } from '../../src/monitoring/alarms/alarm-state-store.js';
import { OVERVIEW_ENTITY_FILTER_MAX, OVERVIEW_LIMIT_MAX } from '../../src/monitoring/monitoring-limits.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create, createTree, expectFault, httpCheck } from './monitoring-client.js';

describe('GET /views/overview', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;
  let tree: Awaited<ReturnType<typeof createTree>>;
  const extra: string[] = [];

  beforeAll(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
    olga = await h.token('olga');
    bob = await h.token('bob');
    tree = await createTree(h, alice, 't1');
    for (let i = 0; i < 4; i++) extra.push(await create(h, alice, `${base('t1')}/entities`, { label: `bare-${i}` }));
    // The alarm runtime writes these; here the test writes one the way it does.
    new AlarmStateStore(h.app.strata.monitoring.store.db).put('t1', {
      entityId: tree.entity,
      alarmId: tree.alarm,
      checkId: tree.check,
      state: 'CRITICAL',
      previousState: 'OK',
      status: 'down',
      zoneId: 'mzdfw',
      timestampMs: 1_790_000_000_000,
    });
  });
  afterAll(async () => h.close());

  it('renders each entity with its checks, alarms and latest alarm states as the GET routes do', async () => {
    const res = await call(h, 'GET', `${base('t1')}/views/overview?entityId=${tree.entity}`, { token: olga });
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata).toMatchObject({ count: 1, next_marker: null, next_href: null });
    const [value] = res.json.values;
    const entity = await call(h, 'GET', `${base('t1')}/entities/${tree.entity}`, { token: alice });
    const check = await call(h, 'GET', `${base('t1')}/entities/${tree.entity}/checks/${tree.check}`, { token: alice });
    const alarm = await call(h, 'GET', `${base('t1')}/entities/${tree.entity}/alarms/${tree.alarm}`, { token: alice });
    expect(value.entity).toEqual(entity.json);
    expect(value.checks).toEqual([check.json]);
    expect(value.alarms).toEqual([alarm.json]);
    expect(value.latest_alarm_states).toEqual([
      {
        timestamp: 1_790_000_000_000,
        entity_id: tree.entity,
        alarm_id: tree.alarm,
        check_id: tree.check,
        state: 'CRITICAL',
        previous_state: 'OK',
        status: 'down',
        analyzed_by_monitoring_zone_id: 'mzdfw',
      },
    ]);
  });

  it('pages by entity id; next_href keeps the page size and the filter', async () => {
    const all = [tree.entity, ...extra].sort();
    const seen: string[] = [];
    let path: string | null = `${base('t1')}/views/overview?limit=2`;
    for (let guard = 0; path !== null && guard < 10; guard++) {
      const res = await call(h, 'GET', path, { token: alice });
      expect(res.status, res.text).toBe(200);
      expect(res.json.values.length).toBeLessThanOrEqual(2);
      seen.push(...res.json.values.map((v: { entity: { id: string } }) => v.entity.id));
      path = res.json.metadata.next_href === null ? null : String(res.json.metadata.next_href).slice(h.url.length);
    }
    expect(seen).toEqual(all);
    const filtered = all.slice(0, 3);
    const first = await call(h, 'GET', `${base('t1')}/views/overview?limit=2&${filtered.map((id) => `entityId=${id}`).join('&')}&entityId=enNone`, { token: alice });
    expect(first.json.values.map((v: { entity: { id: string } }) => v.entity.id)).toEqual(filtered.slice(0, 2));
    expect(first.json.metadata.next_marker).toBe(filtered[2]);
    const next = await call(h, 'GET', String(first.json.metadata.next_href).slice(h.url.length), { token: alice });
    expect(next.json.values.map((v: { entity: { id: string } }) => v.entity.id)).toEqual([filtered[2]]);
    expect(next.json.metadata.next_marker).toBeNull();
  });

  it('redacts check secrets', async () => {
    const entity = await create(h, alice, `${base('t1')}/entities`, { label: 'secret', ip_addresses: { web: '192.0.2.9' } });
    await create(h, alice, `${base('t1')}/entities/${entity}/checks`, httpCheck({ details: { url: 'http://192.0.2.9/', auth_user: 'u', auth_password: 'sw0rdfish-overview' } }));
    const res = await call(h, 'GET', `${base('t1')}/views/overview?entityId=${entity}`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json.values[0].checks).toHaveLength(1);
    expect(res.text).not.toContain('sw0rdfish-overview');
  });

  it('refuses a page over its limit and too many entity filters', async () => {
    expectFault(await call(h, 'GET', `${base('t1')}/views/overview?limit=${OVERVIEW_LIMIT_MAX + 1}`, { token: alice }), 400, 'invalidLimit');
    const many = Array.from({ length: OVERVIEW_ENTITY_FILTER_MAX + 1 }, (_, i) => `entityId=en${i}`).join('&');
    expectFault(await call(h, 'GET', `${base('t1')}/views/overview?${many}`, { token: alice }), 400, 'badRequest');
  });

  it('keeps tenants apart', async () => {
    const theirs = await call(h, 'GET', `${base('t2')}/views/overview?entityId=${tree.entity}`, { token: bob });
    expect(theirs.status).toBe(200);
    expect(theirs.json.values).toEqual([]);
    expect((await call(h, 'GET', `${base('t2')}/views/overview`, { token: bob })).json.values).toEqual([]);
    expectFault(await call(h, 'GET', `${base('t1')}/views/overview`, { token: bob }), 403, 'forbiddenError');
  });
});
