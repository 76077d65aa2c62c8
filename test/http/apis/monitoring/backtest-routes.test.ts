// Tests of POST .../alarms/{alarmId}/backtest and test-alarm's from/to mode over real HTTP: the answer's shape, paging by next_href from the kept report, validation, access, query admission, tenants and the OpenAPI document.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../../src/monitoring/check-result.js';
import { BACKTEST_RANGE_MS_MAX } from '../../../../src/monitoring/monitoring-limits.js';
import { ResultSink } from '../../../../src/monitoring/runner/result-sink.js';
import { base, create, expectFault } from '../../../integration/monitoring-client.js';
import { call, startHarness, type Harness } from '../../harness.js';

const DOWN = "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); } return new AlarmStatus(OK, 'fine');";
const CODES = ['200', '500', '200', '503', '200'];

describe('alarm backtests over HTTP', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;
  let entity: string;
  let check: string;
  let alarm: string;
  let notification: string;
  let t0: number;
  let path: string;

  beforeAll(async () => {
    h = await startHarness({});
    [alice, olga, bob] = [await h.token('alice'), await h.token('olga'), await h.token('bob')];
    const b = base('t1');
    entity = await create(h, alice, `${b}/entities`, { label: 'web', ip_addresses: { web: '192.0.2.10' } });
    check = await create(h, alice, `${b}/entities/${entity}/checks`, {
      type: 'remote.http',
      details: { url: 'http://192.0.2.10/' },
      monitoring_zones_poll: ['mzdfw'],
      target_alias: 'web',
      period: 60,
      timeout: 10,
    });
    notification = await create(h, alice, `${b}/notifications`, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/h' } });
    const plan = await create(h, alice, `${b}/notification_plans`, { label: 'p', critical_state: [notification], ok_state: [notification] });
    alarm = await create(h, alice, `${b}/entities/${entity}/alarms`, { check_id: check, notification_plan_id: plan, criteria: DOWN });
    path = `${b}/entities/${entity}/alarms/${alarm}/backtest`;
    // Stored observations, written the way the runtime stores them (the sink), an hour ago.
    const { monitoring, store } = h.app.strata;
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const sink = new ResultSink({ engine: store, monitoring, alarms: undefined, logger: quiet });
    t0 = Date.now() - 3_600_000;
    const stored = monitoring.entities.checkWithSecrets('t1', entity, check);
    CODES.forEach((code, i) => {
      const result: CheckResult = { monitoringZoneId: 'mzdfw', timestampMs: t0 + i * 60_000, available: true, status: `code=${code}`, metrics: { code: { type: 's', data: code, unit: 'unknown' } } };
      sink.accept('t1', stored, result);
    });
    await sink.flush();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers the changes with their notifications, the totals, and the replayed part', async () => {
    const window = { from: t0, to: t0 + 600_000 };
    const res = await call(h, 'POST', path, { token: alice, json: window });
    expect(res.status, res.text).toBe(200);
    expect(res.json.values.map((v: any) => [v.timestamp, v.previous_state, v.state, v.status, v.notification_status])).toEqual([
      [t0, null, 'OK', 'fine', 'silent'],
      [t0 + 60_000, 'OK', 'CRITICAL', 'HTTP 500', 'notified'],
      [t0 + 120_000, 'CRITICAL', 'OK', 'fine', 'notified'],
      [t0 + 180_000, 'OK', 'CRITICAL', 'HTTP 503', 'notified'],
      [t0 + 240_000, 'CRITICAL', 'OK', 'fine', 'notified'],
    ]);
    expect(res.json.values[1]).toEqual({
      timestamp: t0 + 60_000,
      state: 'CRITICAL',
      previous_state: 'OK',
      status: 'HTTP 500',
      zone_id: 'mzdfw',
      notification_status: 'notified',
      notifications: [{ notification_id: notification, notification_type: 'webhook' }],
      suppressed_by: [],
    });
    expect(res.json.metadata).toEqual({ count: 5, limit: 100, marker: null, next_marker: null, next_href: null });
    expect(res.json.totals).toEqual({ OK: 3, WARNING: 0, CRITICAL: 2, observations: 5 });
    expect(res.json.replayed).toEqual(window);
    expect(res.json.unreplayed).toEqual([]);
    // A replay is a test: an observer may not run one (nor use up the tenant's test_alarm budget).
    expectFault(await call(h, 'POST', path, { token: olga, json: window }), 403, 'forbiddenError');
    expectFault(await call(h, 'POST', `${base('t1')}/entities/${entity}/test-alarm`, { token: olga, json: { criteria: DOWN, check_id: check, ...window } }), 403, 'forbiddenError');
  });

  it('pages by ordinal; next_href keeps the window and the limit, and works with an empty body or none', async () => {
    const first = await call(h, 'POST', `${path}?limit=2`, { token: alice, json: { from: t0, to: t0 + 600_000 } });
    expect(first.status, first.text).toBe(200);
    expect(first.json.metadata).toMatchObject({ count: 2, limit: 2, marker: null, next_marker: '2' });
    const href = new URL(first.json.metadata.next_href as string);
    expect(Object.fromEntries(href.searchParams)).toEqual({ from: String(t0), to: String(t0 + 600_000), limit: '2', marker: '2' });
    const second = await call(h, 'POST', `${href.pathname}${href.search}`, { token: alice, json: {} });
    expect(second.json.values.map((v: any) => v.timestamp)).toEqual([t0 + 120_000, t0 + 180_000]);
    const third = await call(h, 'POST', `${href.pathname}?from=${t0}&to=${t0 + 600_000}&limit=2&marker=4`, { token: alice });
    expect(third.status, third.text).toBe(200);
    expect(third.json.values.map((v: any) => v.timestamp)).toEqual([t0 + 240_000]);
    expect(third.json.metadata).toMatchObject({ next_marker: null, next_href: null });
    // The body may repeat the window it got from next_href.
    const repeated = await call(h, 'POST', `${href.pathname}${href.search}`, { token: alice, json: { from: t0, to: t0 + 600_000 } });
    expect(repeated.json.values).toEqual(second.json.values);
  });

  it('validates the window, the marker and the body; 404 for a missing alarm; tenants stay apart', async () => {
    const invalid = async (query: string, json: unknown, key: string) => {
      const res = await call(h, 'POST', `${path}${query}`, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details.key).toBe(key);
    };
    await invalid('', { from: t0, to: t0 }, 'from');
    await invalid('', { from: t0, to: 'soon' }, 'to');
    await invalid('', { from: t0, window: 1 }, 'window');
    await invalid(`?from=${t0 + 1}`, { from: t0 }, 'from');
    await invalid('?marker=x1', { from: t0 }, 'marker');
    const large = await call(h, 'POST', path, { token: alice, json: { from: t0 - BACKTEST_RANGE_MS_MAX - 1, to: t0 } });
    expectFault(large, 400, 'badRequest');
    expect(large.json.details).toMatchObject({ code: 'MONITORING_BACKTEST_TOO_LARGE', bound: 'range', limit: BACKTEST_RANGE_MS_MAX });
    expectFault(await call(h, 'POST', `${base('t1')}/entities/${entity}/alarms/alMissing1/backtest`, { token: alice, json: {} }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', path, { token: bob, json: {} }), 403, 'forbiddenError');
    const other = await call(h, 'POST', `${base('t2')}/entities/${entity}/alarms/${alarm}/backtest`, { token: bob, json: {} });
    expect(other.status).toBe(404);
    expect((await call(h, 'GET', path, { token: alice })).status).toBe(405);
  });

  it('test-alarm with check_id and from/to backtests unsaved criteria, nothing notified; refuses from/to with check_data', async () => {
    const testAlarm = `${base('t1')}/entities/${entity}/test-alarm`;
    // consecutiveCount counts as the alarm says (not forced to 1): no two agreeing runs in a row, no change.
    const criteria = `:set consecutiveCount=2\n${DOWN}`;
    const steady = await call(h, 'POST', testAlarm, { token: alice, json: { criteria, check_id: check, from: t0, to: t0 + 600_000 } });
    expect(steady.status, steady.text).toBe(200);
    expect(steady.json).toMatchObject({ values: [], totals: { OK: 0, WARNING: 0, CRITICAL: 0, observations: 5 }, replayed: { from: t0, to: t0 + 600_000 }, unreplayed: [] });
    const res = await call(h, 'POST', `${testAlarm}?limit=1`, { token: alice, json: { criteria: DOWN, check_id: check, from: t0, to: t0 + 600_000 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.values).toEqual([{ timestamp: t0, state: 'OK', previous_state: null, status: 'fine', zone_id: 'mzdfw', notification_status: 'silent', notifications: [], suppressed_by: [] }]);
    expect(res.json.values[1]).toBeUndefined();
    expect(res.json.totals).toEqual({ OK: 3, WARNING: 0, CRITICAL: 2, observations: 5 });
    expect(res.json.metadata).toMatchObject({ count: 1, next_marker: '1' });
    const href = new URL(res.json.metadata.next_href as string);
    expect(Object.fromEntries(href.searchParams)).toEqual({ from: String(t0), to: String(t0 + 600_000), limit: '1', marker: '1' });
    // Unsaved criteria have no plan: a change that would notify lists nobody.
    const next = await call(h, 'POST', `${href.pathname}${href.search}`, { token: alice, json: { criteria: DOWN, check_id: check } });
    expect(next.json.values).toEqual([expect.objectContaining({ timestamp: t0 + 60_000, state: 'CRITICAL', notification_status: 'none', notifications: [] })]);
    const pasted = await call(h, 'POST', testAlarm, { token: alice, json: { criteria, check_data: [{ timestamp: 1, monitoring_zone_id: 'mzdfw', available: true, status: 'x', metrics: {} }], from: t0 } });
    expectFault(pasted, 400, 'badRequest');
    expect(pasted.json.details.key).toBe('check_id');
    expectFault(await call(h, 'POST', testAlarm, { token: alice, json: { criteria: 'if (', check_id: check, from: t0 } }), 400, 'alarmParseError');
    expectFault(await call(h, 'POST', testAlarm, { token: alice, json: { criteria, check_id: 'chMissing1', to: t0 } }), 404, 'notFoundError');
    // A marker pages a backtest: without a window there is nothing to page.
    const stray = await call(h, 'POST', `${testAlarm}?marker=1`, { token: alice, json: { criteria, check_id: check } });
    expectFault(stray, 400, 'badRequest');
    expect(stray.json.details.key).toBe('marker');
  });

  it('cuts next pages from the report of the first page (one replay); a first page, a changed alarm or another window replays', async () => {
    // A window of its own: the runs written here lie outside the window the other tests replay.
    const window = { from: t0, to: t0 + 900_000 };
    const first = await call(h, 'POST', `${path}?limit=2`, { token: alice, json: window });
    expect(first.json.totals.observations).toBe(5);
    const { monitoring, store } = h.app.strata;
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const sink = new ResultSink({ engine: store, monitoring, alarms: undefined, logger: quiet });
    const late: CheckResult = { monitoringZoneId: 'mzdfw', timestampMs: t0 + 600_000, available: true, status: 'code=500', metrics: { code: { type: 's', data: '500', unit: 'unknown' } } };
    sink.accept('t1', monitoring.entities.checkWithSecrets('t1', entity, check), late);
    await sink.flush();
    const href = new URL(first.json.metadata.next_href as string);
    const kept = await call(h, 'POST', `${href.pathname}${href.search}`, { token: alice });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.totals).toEqual(first.json.totals);
    expect(kept.json.values.map((v: any) => v.timestamp)).toEqual([t0 + 120_000, t0 + 180_000]);
    const again = await call(h, 'POST', `${path}?limit=2`, { token: alice, json: window });
    expect(again.json.totals).toEqual({ OK: 3, WARNING: 0, CRITICAL: 3, observations: 6 });
    // The fresh first page is kept in its turn: its next pages see the late run.
    const last = await call(h, 'POST', `${href.pathname}?from=${window.from}&to=${window.to}&limit=2&marker=4`, { token: alice });
    expect(last.json.values.map((v: any) => [v.timestamp, v.state])).toEqual([[t0 + 240_000, 'OK'], [t0 + 600_000, 'CRITICAL']]);
    // An edited alarm is another backtest: its pages replay.
    const alarmPath = `${base('t1')}/entities/${entity}/alarms/${alarm}`;
    expect((await call(h, 'PUT', alarmPath, { token: alice, json: { criteria: "return new AlarmStatus(WARNING, 'always');" } })).status).toBe(204);
    try {
      const edited = await call(h, 'POST', `${href.pathname}${href.search}`, { token: alice });
      expect(edited.json.totals).toEqual({ OK: 0, WARNING: 1, CRITICAL: 0, observations: 6 });
      expect(edited.json.values).toEqual([]);
    } finally {
      expect((await call(h, 'PUT', alarmPath, { token: alice, json: { criteria: DOWN } })).status).toBe(204);
    }
  });

  it('shows the backtest and the test-alarm window in /openapi.json', async () => {
    const doc = (await call(h, 'GET', '/openapi.json')).json;
    const paths = Object.keys(doc.paths) as string[];
    const backtest = paths.find((p) => p.endsWith('/alarms/{alarmId}/backtest')) as string;
    expect(backtest).toBeDefined();
    const post = doc.paths[backtest].post;
    expect(JSON.stringify(post.requestBody)).toContain('"from"');
    expect(post.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['limit', 'marker', 'from', 'to']));
    const testAlarm = paths.find((p) => p.endsWith('/test-alarm')) as string;
    expect(JSON.stringify(doc.paths[testAlarm].post.requestBody)).toContain('"to"');
  });
});

describe('backtest admission', () => {
  let h: Harness;
  let alice: string;

  beforeAll(async () => {
    // One query request of a tenant in flight at a time.
    h = await startHarness({ config: { admission: { query: { concurrency: 1, queueMax: 0 } } } });
    alice = await h.token('alice');
  });
  afterAll(async () => {
    await h.close();
  });

  it('admits test-alarm as query work in every mode, like the alarm backtest: a request still sending its body holds the budget', async () => {
    const b = base('t1');
    const entity = await create(h, alice, `${b}/entities`, { label: 'web' });
    const check = await create(h, alice, `${b}/entities/${entity}/checks`, { type: 'agent.cpu' });
    const alarm = await create(h, alice, `${b}/entities/${entity}/alarms`, { check_id: check, notification_plan_id: 'npTechnicalContactsEmail', criteria: DOWN });
    const testAlarm = `${b}/entities/${entity}/test-alarm`;
    const pasted = { criteria: DOWN, check_data: [{ timestamp: 1, monitoring_zone_id: 'mzdfw', available: true, status: 'x', metrics: { code: { type: 's', data: '200' } } }] };
    const backtest = `${b}/entities/${entity}/alarms/${alarm}/backtest`;
    const admission = h.app.strata.admission;
    // A test-alarm whose body never finishes: admitted on arrival, before its body says its mode.
    const socket = connect(Number(new URL(h.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${testAlarm} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: ${alice}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"criteria":`);
    try {
      for (let i = 0; i < 400 && admission.tenantInFlight('query', 't1').requests === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(admission.tenantInFlight('query', 't1').requests).toBe(1);
      for (const [url, json] of [[testAlarm, pasted], [backtest, {}]] as const) {
        const refused = await call(h, 'POST', url, { token: alice, json });
        expect(refused.status, url).toBe(503);
        expect(refused.json.details).toMatchObject({ code: 'HTTP_OVERLOADED', work: 'query' });
      }
    } finally {
      socket.destroy();
    }
    for (let i = 0; i < 400 && admission.tenantInFlight('query', 't1').requests > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const evaluated = await call(h, 'POST', testAlarm, { token: alice, json: pasted });
    expect(evaluated.status, evaluated.text).toBe(200);
    expect((await call(h, 'POST', backtest, { token: alice, json: {} })).status).toBe(200);
    expect(admission.tenantInFlight('query', 't1').requests).toBe(0);
  });
});
