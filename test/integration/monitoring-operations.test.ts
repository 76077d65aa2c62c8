// Checks spec operations 1-4 and 7-9 over real HTTP: agents and connections, notification types, alarm changelogs, zones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import type { MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, expectFault } from './monitoring-client.js';

const START_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const b = base('t1');

function connect(monitoring: MonitoringService, tenant: string, agentId: string, ip: string): string {
  return monitoring.agents.connect(tenant, {
    agentId,
    guid: '0b49b96d-24c9-45ca-8585-4040707f4880',
    processVersion: '1.0.0',
    bundleVersion: '1.0.1',
    agentIp: ip,
    zoneId: 'mzdfw',
  });
}

describe('agents (operations 1-4), with an injected clock', () => {
  let h: Harness;
  const clock = new ManualClock(START_MS);

  beforeAll(async () => {
    h = await startHarness({ clock });
  });
  afterAll(async () => h.close());

  it('lists agents connected within 30 days, shows one agent and its connections', async () => {
    const monitoring = h.app.strata.monitoring;
    connect(monitoring, 't1', 'old.example.com', '10.0.0.1');
    clock.advance(20 * DAY_MS);
    const first = connect(monitoring, 't1', 'web-1.example.com', '10.0.0.2');
    const second = connect(monitoring, 't1', 'web-1.example.com', '10.0.0.3');
    connect(monitoring, 't2', 'other-tenant.example.com', '10.0.0.4');
    clock.advance(10 * DAY_MS + 1);
    const alice = await h.token('alice');
    const list = await call(h, 'GET', `${b}/agents`, { token: alice });
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      values: [{ id: 'web-1.example.com', last_connected: START_MS + 20 * DAY_MS }],
      metadata: { count: 1, limit: 100, marker: null, next_marker: null, next_href: null },
    });
    const one = await call(h, 'GET', `${b}/agents/web-1.example.com`, { token: alice });
    expect(one.json).toEqual({ id: 'web-1.example.com', last_connected: START_MS + 20 * DAY_MS });
    expectFault(await call(h, 'GET', `${b}/agents/old.example.com`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${b}/agents/other-tenant.example.com`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${b}/agents/bad_id!`, { token: alice }), 404, 'notFoundError');
    const connections = await call(h, 'GET', `${b}/agents/web-1.example.com/connections?limit=1`, { token: alice });
    const ids = [first, second].sort();
    expect(connections.json.values).toHaveLength(1);
    expect(connections.json.values[0]).toEqual({
      id: ids[0],
      guid: '0b49b96d-24c9-45ca-8585-4040707f4880',
      agent_id: 'web-1.example.com',
      process_version: '1.0.0',
      bundle_version: '1.0.1',
      agent_ip: ids[0] === first ? '10.0.0.2' : '10.0.0.3',
    });
    expect(connections.json.metadata).toMatchObject({ count: 1, limit: 1, next_marker: ids[1] });
    const conn = await call(h, 'GET', `${b}/agents/web-1.example.com/connections/${second}`, { token: alice });
    expect(conn.json).toMatchObject({ id: second, agent_ip: '10.0.0.3' });
    expectFault(await call(h, 'GET', `${b}/agents/web-1.example.com/connections/cnNope`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${b}/agents/old.example.com/connections`, { token: alice }), 404, 'notFoundError');
    // Connections are live: once the agent disconnects one, it is gone from the list and its URL.
    monitoring.agents.disconnect('t1', 'web-1.example.com', second);
    expectFault(await call(h, 'GET', `${b}/agents/web-1.example.com/connections/${second}`, { token: alice }), 404, 'notFoundError');
    const left = await call(h, 'GET', `${b}/agents/web-1.example.com/connections`, { token: alice });
    expect(left.json.values.map((c: { id: string }) => c.id)).toEqual([first]);
    // The agent stays listed: last_connected outlives its connections.
    expect((await call(h, 'GET', `${b}/agents/web-1.example.com`, { token: alice })).status).toBe(200);
  });

  it('answers 401, 403 and 405 on the agent routes', async () => {
    expectFault(await call(h, 'GET', `${b}/agents`), 401, 'unauthorizedError');
    const bob = await h.token('bob');
    expectFault(await call(h, 'GET', `${b}/agents`, { token: bob }), 403, 'forbiddenError');
    const alice = await h.token('alice');
    const post = await call(h, 'POST', `${b}/agents`, { token: alice, json: {} });
    expectFault(post, 405, 'methodNotAllowedError');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expectFault(await call(h, 'DELETE', `${b}/agents/web-1.example.com/connections/x`, { token: alice }), 405, 'methodNotAllowedError');
  });
});

describe('notification types, zones and changelogs (operations 7-9)', () => {
  let h: Harness;
  let alice: string;
  const clock = new ManualClock(START_MS);

  beforeAll(async () => {
    h = await startHarness({ clock });
    alice = await h.token('alice');
  });
  afterAll(async () => h.close());

  it('lists the 8 notification types of spec 2.5 with their fields', async () => {
    const res = await call(h, 'GET', `${b}/notification_types`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json.values.map((t: { id: string }) => t.id)).toEqual(['email', 'eventFeed', 'incidentA', 'incidentB', 'managed', 'sms', 'technicalContactsEmail', 'webhook']);
    expect(res.json.metadata).toEqual({ count: 8, limit: 100, marker: null, next_marker: null, next_href: null });
    const byId = new Map(res.json.values.map((t: { id: string }) => [t.id, t]));
    expect(byId.get('managed')).toEqual({ id: 'managed', fields: null });
    expect(byId.get('technicalContactsEmail')).toEqual({ id: 'technicalContactsEmail', fields: null });
    const optional = (id: string) => (byId.get(id) as { fields: { name: string; optional: boolean }[] }).fields.map((f) => [f.name, f.optional]);
    expect(optional('incidentB')).toEqual([['api_key', false], ['routing_key', false]]);
    expect(optional('incidentA')).toEqual([['service_key', false], ['service_endpoint', true]]);
    expect(optional('sms')).toEqual([['phone_number', false]]);
    expect(optional('eventFeed')).toEqual([['category', false]]);
    for (const type of res.json.values) for (const field of type.fields ?? []) expect(field.description).toBeTypeOf('string');
    const page = await call(h, 'GET', `${b}/notification_types?limit=3&marker=incidentA`, { token: alice });
    expect(page.json.values.map((t: { id: string }) => t.id)).toEqual(['incidentA', 'incidentB', 'managed']);
    expect(page.json.metadata).toMatchObject({ count: 3, limit: 3, marker: 'incidentA', next_marker: 'sms' });
    expect(page.json.metadata.next_href).toBe(`${h.url}${b}/notification_types?limit=3&marker=sms`);
  });

  it('shows one notification type, 404 for unknown ones', async () => {
    const one = await call(h, 'GET', `${b}/notification_types/webhook`, { token: alice });
    expect(one.json).toMatchObject({ id: 'webhook', fields: [{ name: 'url', optional: false }] });
    expectFault(await call(h, 'GET', `${b}/notification_types/pigeon`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'PUT', `${b}/notification_types/webhook`, { token: alice, json: {} }), 405, 'methodNotAllowedError');
  });

  it('lists the configured monitoring zones', async () => {
    const res = await call(h, 'GET', `${b}/monitoring_zones`, { token: alice });
    expect(res.json.values.map((z: { id: string }) => z.id)).toEqual(['mzdfw', 'mziad', 'mzord']);
    expect(res.json.values[0]).toMatchObject({ id: 'mzdfw', label: expect.any(String), country_code: 'US', source_ips: [] });
    expect((await call(h, 'GET', `${b}/monitoring_zones/mzord`, { token: alice })).json.id).toBe('mzord');
    expectFault(await call(h, 'GET', `${b}/monitoring_zones/mzxyz`, { token: alice }), 404, 'notFoundError');
  });

  it('reads alarm changelogs as a time series: last 7 days by default, from/to, entityId, paging', async () => {
    const changelogs = h.app.strata.monitoring.changelogs;
    const entry = (timestampMs: number, entityId: string, state: string) =>
      changelogs.append('t1', { timestampMs, entityId, alarmId: 'alA', checkId: 'chA', state, previousState: 'OK', zoneId: 'mzdfw' });
    entry(START_MS - 8 * DAY_MS, 'enA', 'CRITICAL');
    const recent = [entry(START_MS - 3 * DAY_MS, 'enA', 'WARNING'), entry(START_MS - 2 * DAY_MS, 'enB', 'CRITICAL'), entry(START_MS - DAY_MS, 'enA', 'OK')];
    changelogs.append('t2', { timestampMs: START_MS - DAY_MS, entityId: 'enZ', alarmId: 'alZ', checkId: 'chZ', state: 'CRITICAL', previousState: null, zoneId: null });
    const all = await call(h, 'GET', `${b}/changelogs/alarms`, { token: alice });
    expect(all.status).toBe(200);
    expect(all.json.values.map((v: { id: string }) => v.id)).toEqual(recent);
    expect(all.json.values[0]).toEqual({
      id: recent[0],
      timestamp: START_MS - 3 * DAY_MS,
      entity_id: 'enA',
      alarm_id: 'alA',
      check_id: 'chA',
      state: 'WARNING',
      previous_state: 'OK',
      analyzed_by_monitoring_zone_id: 'mzdfw',
    });
    const old = await call(h, 'GET', `${b}/changelogs/alarms?from=${START_MS - 10 * DAY_MS}&to=${START_MS - 7 * DAY_MS}`, { token: alice });
    expect(old.json.values.map((v: { state: string }) => v.state)).toEqual(['CRITICAL']);
    const byEntity = await call(h, 'GET', `${b}/changelogs/alarms?entityId=enA`, { token: alice });
    expect(byEntity.json.values.map((v: { id: string }) => v.id)).toEqual([recent[0], recent[2]]);
    const first = await call(h, 'GET', `${b}/changelogs/alarms?limit=2`, { token: alice });
    expect(first.json.metadata).toMatchObject({ count: 2, limit: 2, next_marker: recent[2] });
    const second = await call(h, 'GET', first.json.metadata.next_href.slice(h.url.length), { token: alice });
    expect(second.json.values.map((v: { id: string }) => v.id)).toEqual([recent[2]]);
    expect(second.json.metadata.next_href).toBeNull();
    const unknownMarker = await call(h, 'GET', `${b}/changelogs/alarms?marker=ffffffff-0000-4000-8000-000000000000`, { token: alice });
    expect(unknownMarker.json.values).toEqual([]);
    expectFault(await call(h, 'GET', `${b}/changelogs/alarms?from=yesterday`, { token: alice }), 400, 'badRequest');
    expectFault(await call(h, 'GET', `${b}/changelogs/alarms?from=${START_MS}&to=${START_MS - 1}`, { token: alice }), 400, 'badRequest');
    const bob = await h.token('bob');
    const t2 = await call(h, 'GET', '/monitoring/v1.0/t2/changelogs/alarms', { token: bob });
    expect(t2.json.values.map((v: { entity_id: string }) => v.entity_id)).toEqual(['enZ']);
    expectFault(await call(h, 'GET', `${b}/changelogs/alarms`, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${b}/changelogs/alarms`), 401, 'unauthorizedError');
  });
});
