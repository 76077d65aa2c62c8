// Checks test-check, the test of a saved check and test-alarm over real HTTP against a real loopback target: shapes, nothing stored, secrets, errors, tenants.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHECK_PROBE_GRACE_MS, TEST_ALARM_CHECK_DATA_MAX, TEST_RUNS_PER_TENANT_MAX } from '../../src/monitoring/monitoring-limits.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { closedPort, startServer, type TestServer } from '../monitoring/probes/http-probe-harness.js';
import { base, create, expectFault } from './monitoring-client.js';

const DOWN_CRITERIA = "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); } return new AlarmStatus(OK, 'fine');";
const SECRET = 'pa55-test-routes-secret';
/** Longest wait for the held runs' probes to reach the target (fillTenant). */
const FILL_WAIT_MS = 4_000;
/** Timeout of held runs the test releases itself: long, so none times out while the test still counts on it holding its slot. */
const RELEASED_RUN_TIMEOUT_S = 30;
/**
 * Timeout of held runs the test lets time out: at least 2 s past FILL_WAIT_MS, so none can time out and free its slot
 * before the request that must be refused was answered, even when the runs were slow to reach the target.
 */
const TIMED_OUT_RUN_TIMEOUT_S = FILL_WAIT_MS / 1000 + 2;

interface ResultJson {
  timestamp: number;
  monitoring_zone_id: string;
  available: boolean;
  status: string;
  metrics: Record<string, { type: string; data: number | string; unit: string }>;
  body?: string;
}

describe('test-check, checks/{id}/test and test-alarm', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;
  let target: TestServer;
  let entity: string;
  let downPort: number;
  /** Answers to /slow requests, held until the test releases them (or never: the check times out). */
  const held: ServerResponse[] = [];

  function check(path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      type: 'remote.http',
      details: { url: target.url(path), method: 'GET' },
      monitoring_zones_poll: ['mzdfw', 'mzord'],
      target_alias: 'local',
      period: 60,
      timeout: 5,
      ...extra,
    };
  }

  beforeAll(async () => {
    target = await startServer((req, res) => {
      if (req.url === '/slow') return void held.push(res);
      res.writeHead(req.url === '/ok' ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(req.url === '/ok' ? 'all good' : 'unavailable');
    });
    downPort = await closedPort();
    h = await startHarness({});
    alice = await h.token('alice');
    olga = await h.token('olga');
    bob = await h.token('bob');
    entity = await create(h, alice, `${base('t1')}/entities`, { label: 'local', ip_addresses: { local: '127.0.0.1' } });
  });
  afterAll(async () => {
    await h.close();
    await target.close();
  });

  it('runs a check body once per zone against an up target and stores nothing', async () => {
    const before = target.received.length;
    const res = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/ok', { details: { url: target.url('/ok'), include_body: true } }) });
    expect(res.status, res.text).toBe(200);
    const results = res.json as ResultJson[];
    expect(results.map((r) => r.monitoring_zone_id)).toEqual(['mzdfw', 'mzord']);
    for (const result of results) {
      expect(result.available).toBe(true);
      expect(typeof result.timestamp).toBe('number');
      expect(String(result.metrics['code']?.data)).toBe('200');
      expect(typeof result.metrics['duration']?.data).toBe('number');
      expect(result.metrics['duration']?.unit).toBe('milliseconds');
      expect(result.body).toBe('all good');
    }
    expect(target.received.length - before).toBe(2);
    expect((await call(h, 'GET', `${base('t1')}/entities/${entity}/checks`, { token: alice })).json.values).toEqual([]);
  });

  it('reports a down target as unavailable with a reason', async () => {
    const res = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, {
      token: alice,
      json: check('/', { details: { url: `http://127.0.0.1:${downPort}/` }, monitoring_zones_poll: ['mziad'] }),
    });
    expect(res.status, res.text).toBe(200);
    const [result] = res.json as ResultJson[];
    expect(res.json).toHaveLength(1);
    expect(result?.monitoring_zone_id).toBe('mziad');
    expect(result?.available).toBe(false);
    expect(result?.status.length).toBeGreaterThan(0);
  });

  it('refuses bodies a create would refuse, a missing entity, an observer and another tenant', async () => {
    const path = `${base('t1')}/entities/${entity}/test-check`;
    expectFault(await call(h, 'POST', path, { token: alice, json: { label: 'no type' } }), 400, 'badRequest');
    expectFault(await call(h, 'POST', path, { token: alice, json: check('/ok', { target_alias: 'nope' }) }), 400, 'badRequest');
    expectFault(await call(h, 'POST', path, { token: alice, json: check('/ok', { monitoring_zones_poll: ['mzmars'] }) }), 400, 'badRequest');
    const agent = await call(h, 'POST', path, { token: alice, json: { type: 'agent.cpu' } });
    expectFault(agent, 400, 'badRequest');
    expect(agent.json.details.key).toBe('type');
    expectFault(await call(h, 'POST', `${base('t1')}/entities/enMissing1/test-check`, { token: alice, json: check('/ok') }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', path, { token: olga, json: check('/ok') }), 403, 'forbiddenError');
    expectFault(await call(h, 'POST', path, { token: bob, json: check('/ok') }), 403, 'forbiddenError');
    expectFault(await call(h, 'POST', `${base('t2')}/entities/${entity}/test-check`, { token: bob, json: check('/ok') }), 404, 'notFoundError');
  });

  it('tests a saved check with its stored secret, which reaches the target but not the answer', async () => {
    const saved = await create(h, alice, `${base('t1')}/entities/${entity}/checks`, check('/ok', { details: { url: target.url('/ok'), auth_user: 'u', auth_password: SECRET } }));
    const before = target.received.length;
    const res = await call(h, 'POST', `${base('t1')}/entities/${entity}/checks/${saved}/test`, { token: alice });
    expect(res.status, res.text).toBe(200);
    expect((res.json as ResultJson[]).map((r) => [r.monitoring_zone_id, r.available])).toEqual([
      ['mzdfw', true],
      ['mzord', true],
    ]);
    expect(res.text).not.toContain(SECRET);
    const sent = target.received.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`);
    expectFault(await call(h, 'POST', `${base('t1')}/entities/${entity}/checks/chMissing1/test`, { token: alice }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${base('t2')}/entities/${entity}/checks/${saved}/test`, { token: bob }), 404, 'parentNotFoundError');
  });

  it('evaluates criteria against pasted check data, the reference string form included', async () => {
    const path = `${base('t1')}/entities/${entity}/test-alarm`;
    const checkData = [
      { timestamp: 1_000, monitoring_zone_id: 'mzdfw', available: true, status: 'code=200', metrics: { code: { type: 's', data: '200' }, duration: { type: 'I', data: '257' } } },
      { timestamp: 2_000, monitoring_zone_id: 'mzdfw', available: true, status: 'code=503', metrics: { code: { type: 's', data: '503' }, duration: { type: 'I', data: 12, unit: 'milliseconds' } } },
    ];
    const res = await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA, check_data: checkData } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual([
      { timestamp: 1_000, state: 'OK', status: 'fine' },
      { timestamp: 2_000, state: 'CRITICAL', status: 'HTTP 503' },
    ]);
    const numeric = await call(h, 'POST', path, { token: alice, json: { criteria: "if (metric['duration'] > 100) { return CRITICAL, 'slow'; } return OK, 'quick';", check_data: checkData } });
    expect(numeric.json.map((r: { state: string }) => r.state)).toEqual(['CRITICAL', 'OK']);
  });

  it('evaluates criteria against a fresh run of a saved check', async () => {
    const down = await create(h, alice, `${base('t1')}/entities/${entity}/checks`, check('/down'));
    const res = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-alarm`, { token: alice, json: { criteria: DOWN_CRITERIA, check_id: down } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toHaveLength(2);
    for (const verdict of res.json as { state: string; status: string; timestamp: number }[]) {
      expect(verdict.state).toBe('CRITICAL');
      expect(verdict.status).toBe('HTTP 503');
    }
  });

  it('refuses test-alarm bodies without exactly one source, with bad criteria, bad data or too much data', async () => {
    const path = `${base('t1')}/entities/${entity}/test-alarm`;
    const one = { metrics: { code: { type: 's', data: '200' } } };
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA } }), 400, 'badRequest');
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA, check_data: [one], check_id: 'chX' } }), 400, 'badRequest');
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: 'if (', check_data: [one] } }), 400, 'alarmParseError');
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA, check_data: [{ metrics: { d: { type: 'n', data: 'fast' } } }] } }), 400, 'badRequest');
    const tooMany = Array.from({ length: TEST_ALARM_CHECK_DATA_MAX + 1 }, () => one);
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA, check_data: tooMany } }), 400, 'badRequest');
    expectFault(await call(h, 'POST', path, { token: alice, json: { criteria: DOWN_CRITERIA, check_id: 'chMissing1' } }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${base('t2')}/entities/${entity}/test-alarm`, { token: bob, json: { criteria: DOWN_CRITERIA, check_data: [one] } }), 404, 'notFoundError');
  });

  describe('test run admission', () => {
    let bobEntity: string;
    const slowRequests = (): number => target.received.filter((r) => r.url === '/slow').length;
    /** Answers every held /slow request 200. */
    const releaseHeld = (): void => {
      for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('slow but fine');
    };
    /** A one-zone check against /slow (held until released) with the given timeout in seconds. */
    const slowCheck = (timeout = RELEASED_RUN_TIMEOUT_S): Record<string, unknown> => check('/slow', { monitoring_zones_poll: ['mzdfw'], timeout });
    /** Starts TEST_RUNS_PER_TENANT_MAX test-checks of t1 against /slow and resolves once each one's probe reached the target. */
    async function fillTenant(timeout?: number): Promise<Promise<Awaited<ReturnType<typeof call>>>[]> {
      const before = slowRequests();
      const running = Array.from({ length: TEST_RUNS_PER_TENANT_MAX }, () => call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: slowCheck(timeout) }));
      await vi.waitFor(() => expect(slowRequests() - before).toBe(TEST_RUNS_PER_TENANT_MAX), { timeout: FILL_WAIT_MS, interval: 10 });
      return running;
    }

    beforeAll(async () => {
      bobEntity = await create(h, bob, `${base('t2')}/entities`, { label: 'local', ip_addresses: { local: '127.0.0.1' } });
    });
    afterAll(releaseHeld);

    it('refuses a tenant past its limit with 503 and Retry-After while another tenant still runs, then admits again', async () => {
      const saved = await create(h, alice, `${base('t1')}/entities/${entity}/checks`, check('/ok', { monitoring_zones_poll: ['mzdfw'] }));
      const running = await fillTenant();
      const refused = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/ok') });
      expectFault(refused, 503, 'systemFailureError');
      expect(refused.json.details).toMatchObject({ code: 'MONITORING_TEST_RUNS_BUSY', scope: 'tenant', limit: TEST_RUNS_PER_TENANT_MAX });
      expect(refused.headers.get('retry-after')).toBe('1');
      // The test of a saved check and test-alarm with check_id take the same slots.
      const savedRefused = await call(h, 'POST', `${base('t1')}/entities/${entity}/checks/${saved}/test`, { token: alice });
      expectFault(savedRefused, 503, 'systemFailureError');
      expect(savedRefused.json.details.code).toBe('MONITORING_TEST_RUNS_BUSY');
      const alarmRefused = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-alarm`, { token: alice, json: { criteria: DOWN_CRITERIA, check_id: saved } });
      expectFault(alarmRefused, 503, 'systemFailureError');
      // Pasted check_data runs nothing and takes no slot.
      const pasted = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-alarm`, {
        token: alice,
        json: { criteria: DOWN_CRITERIA, check_data: [{ metrics: { code: { type: 's', data: '200' } } }] },
      });
      expect(pasted.status, pasted.text).toBe(200);
      // Another tenant is not held up by t1's runs.
      const other = await call(h, 'POST', `${base('t2')}/entities/${bobEntity}/test-check`, { token: bob, json: check('/ok', { monitoring_zones_poll: ['mzdfw'] }) });
      expect(other.status, other.text).toBe(200);
      expect((other.json as ResultJson[])[0]?.available).toBe(true);

      releaseHeld();
      for (const res of await Promise.all(running)) {
        expect(res.status, res.text).toBe(200);
        expect((res.json as ResultJson[])[0]?.available).toBe(true);
      }
      // The slots came back once the runs completed.
      const again = await call(h, 'POST', `${base('t1')}/entities/${entity}/checks/${saved}/test`, { token: alice });
      expect(again.status, again.text).toBe(200);
    });

    it('gives the slots back after runs that time out', async () => {
      const running = await fillTenant(TIMED_OUT_RUN_TIMEOUT_S);
      expectFault(await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/ok') }), 503, 'systemFailureError');
      for (const res of await Promise.all(running)) {
        expect(res.status, res.text).toBe(200);
        const [result] = res.json as ResultJson[];
        expect(result?.available).toBe(false);
      }
      const after = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/ok') });
      expect(after.status, after.text).toBe(200);
      expect((after.json as ResultJson[]).every((r) => r.available)).toBe(true);
    }, (TIMED_OUT_RUN_TIMEOUT_S * 1000 + CHECK_PROBE_GRACE_MS) * 2 + 5_000);

    it('gives the slots back after runs that fail', async () => {
      const failing = Array.from({ length: TEST_RUNS_PER_TENANT_MAX + 2 }, () =>
        call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/', { details: { url: `http://127.0.0.1:${downPort}/` }, monitoring_zones_poll: ['mzdfw'] }) }),
      );
      const answers = await Promise.all(failing);
      for (const res of answers) expect([200, 503], res.text).toContain(res.status);
      for (const res of answers.filter((r) => r.status === 200)) expect((res.json as ResultJson[])[0]?.available).toBe(false);
      const after = await call(h, 'POST', `${base('t1')}/entities/${entity}/test-check`, { token: alice, json: check('/ok') });
      expect(after.status, after.text).toBe(200);
    });
  });
});
