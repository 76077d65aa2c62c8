// Checks account and rate limits over real HTTP on 127.0.0.1: GET /limits, each create refused at its limit, test buckets and the global bucket refused with 429 and Retry-After, next pages of a backtest outside the test bucket, X-RateLimit headers, windows resetting at UTC midnight.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS } from '../../src/core/time.js';
import { createServer } from '../../src/http/server.js';
import type { RateLimits } from '../../src/http/rate-limit.js';
import { openIdentity, type IdentityService } from '../../src/identity/identity-service.js';
import type { ResourceLimits } from '../../src/monitoring/account/account-limits.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { call, KEYS, type CallResult, type Harness } from '../http/harness.js';
import { base, create, expectFault } from './monitoring-client.js';

/** A day boundary (UTC midnight) plus an hour: the window resets 23 hours later. */
const MIDNIGHT_MS = 20_500 * DAY_MS;
const START_MS = MIDNIGHT_MS + 3_600_000;

/** The harness's shape (the monitoring client's helpers take it) plus the manual clock. */
interface Served extends Harness {
  readonly clock: ManualClock;
}

/** A real server on 127.0.0.1 over a temporary data directory with the harness's users, these limits and a manual clock. */
async function serve(limits: Partial<ResourceLimits>, rateLimits: Partial<RateLimits>): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-limits-'));
  const clock = new ManualClock(START_MS);
  const store: Store = await openStore({ dir, clock, workers: 0, background: false });
  const identity: IdentityService = openIdentity({ dir, clock });
  identity.createUser({ username: 'alice', tenant: 't1', role: 'admin', apiKey: KEYS.alice });
  identity.createUser({ username: 'olga', tenant: 't1', role: 'observer', apiKey: KEYS.olga });
  identity.createUser({ username: 'bob', tenant: 't2', role: 'admin', apiKey: KEYS.bob });
  const monitoring = openMonitoring({ dir, clock, limits });
  const app = await createServer({ store, identity, monitoring, clock, config: { rateLimits } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    url,
    app,
    identity,
    dir,
    clock,
    async token(user) {
      const res = await call({ url }, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user, apiKey: KEYS[user] } } } });
      return res.json.access.token.id as string;
    },
    async close() {
      await app.close();
      await store.close();
      identity.close();
      monitoring.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The X-RateLimit headers of an answer. */
function rateHeaders(res: CallResult): Record<string, string | null> {
  return Object.fromEntries(['limit', 'used', 'window', 'type'].map((name) => [name, res.headers.get(`x-ratelimit-${name}`)]));
}

describe('account limits over HTTP', () => {
  let s: Served;
  let alice: string;
  const t1 = base('t1');

  beforeAll(async () => {
    s = await serve({ entities: 2, checks: 2, alarms: 1, notifications: 1, notification_plans: 1 }, {});
    alice = await s.token('alice');
  });
  afterAll(async () => s.close());

  const refused = (res: CallResult, type: string, limit: number): void => {
    expectFault(res, 400, 'limitReached');
    expect(res.json.details).toMatchObject({ code: 'MONITORING_LIMIT_REACHED', type, limit });
  };

  it('GET /limits shows the configured limits, the usage and the rate buckets', async () => {
    const res = await call(s, 'GET', `${t1}/limits`, { token: alice });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      resource: { entities: 2, checks: 2, alarms: 1, notifications: 1, notification_plans: 1, suppressions: 1_000 },
      resource_usage: { entities: 0, checks: 0, alarms: 0, notifications: 0, notification_plans: 0, suppressions: 0 },
      rate: {
        // This request itself is counted.
        global: { limit: 50_000, used: 1, window: '24 hours', reset_at: MIDNIGHT_MS + DAY_MS },
        test_check: { limit: 500, used: 0, window: '24 hours', reset_at: MIDNIGHT_MS + DAY_MS },
        test_alarm: { limit: 500, used: 0, window: '24 hours', reset_at: MIDNIGHT_MS + DAY_MS },
        test_notification: { limit: 200, used: 0, window: '24 hours', reset_at: MIDNIGHT_MS + DAY_MS },
      },
    });
  });

  it('refuses the create past each limit with 400 limitReached, and the usage counts exactly the limit', async () => {
    const e1 = await create(s, alice, `${t1}/entities`, { label: 'e1' });
    await create(s, alice, `${t1}/entities`, { label: 'e2' });
    refused(await call(s, 'POST', `${t1}/entities`, { token: alice, json: { label: 'e3' } }), 'Entity', 2);
    const check = await create(s, alice, `${t1}/entities/${e1}/checks`, { type: 'agent.cpu' });
    await create(s, alice, `${t1}/entities/${e1}/checks`, { type: 'agent.memory' });
    refused(await call(s, 'POST', `${t1}/entities/${e1}/checks`, { token: alice, json: { type: 'agent.cpu' } }), 'Check', 2);
    const alarm = { check_id: check, notification_plan_id: 'npTechnicalContactsEmail', criteria: 'return new AlarmStatus(OK);' };
    await create(s, alice, `${t1}/entities/${e1}/alarms`, alarm);
    refused(await call(s, 'POST', `${t1}/entities/${e1}/alarms`, { token: alice, json: alarm }), 'Alarm', 1);
    const notification = await create(s, alice, `${t1}/notifications`, { label: 'n', type: 'email', details: { address: 'ops@example.com' } });
    refused(await call(s, 'POST', `${t1}/notifications`, { token: alice, json: { label: 'm', type: 'managed' } }), 'Notification', 1);
    await create(s, alice, `${t1}/notification_plans`, { label: 'p', critical_state: [notification] });
    refused(await call(s, 'POST', `${t1}/notification_plans`, { token: alice, json: { label: 'q' } }), 'NotificationPlan', 1);
    const limits = await call(s, 'GET', `${t1}/limits`, { token: alice });
    expect(limits.json.resource_usage).toEqual({ entities: 2, checks: 2, alarms: 1, notifications: 1, notification_plans: 1, suppressions: 0 });
    // Another tenant's usage is its own.
    const bob = await s.token('bob');
    await create(s, bob, `${base('t2')}/entities`, { label: 'theirs' });
    expect((await call(s, 'GET', `${base('t2')}/limits`, { token: bob })).json.resource_usage.entities).toBe(1);
  });
});

describe('rate limits over HTTP', () => {
  let s: Served;
  let alice: string;
  let bob: string;
  const t1 = base('t1');

  beforeAll(async () => {
    s = await serve({}, { global: 12, test_check: 2, test_alarm: 1, test_notification: 1 });
    [alice, bob] = await Promise.all([s.token('alice'), s.token('bob')]);
  });
  afterAll(async () => s.close());

  it('puts the X-RateLimit headers on every answer to an authenticated request, errors too; none on a refused token, which is not counted', async () => {
    const ok = await call(s, 'GET', `${t1}/entities`, { token: alice });
    expect(ok.status).toBe(200);
    expect(rateHeaders(ok)).toEqual({ limit: '12', used: '1', window: '24 hours', type: 'global' });
    const missing = await call(s, 'GET', `${t1}/entities/enNope`, { token: alice });
    expect(missing.status).toBe(404);
    expect(rateHeaders(missing)).toEqual({ limit: '12', used: '2', window: '24 hours', type: 'global' });
    const anonymous = await call(s, 'GET', `${t1}/entities`, { token: 'not-a-token' });
    expect(anonymous.status).toBe(401);
    expect(rateHeaders(anonymous).used).toBeNull();
  });

  it('refuses a test bucket past its limit with 429 rateLimitReached and Retry-After until the window resets, counting neither bucket; other tenants are apart', async () => {
    const entity = await create(s, alice, `${t1}/entities`, { label: 'e' });
    const path = `${t1}/entities/${entity}/test-check`;
    for (const used of ['1', '2']) {
      // An empty body is refused by the schema, after it was counted: the limit counts requests, whatever their answer.
      const res = await call(s, 'POST', path, { token: alice, json: {} });
      expect(res.status).toBe(400);
      expect(rateHeaders(res)).toEqual({ limit: '2', used, window: '24 hours', type: 'test_check' });
    }
    const before = (await call(s, 'GET', `${t1}/limits`, { token: alice })).json.rate;
    const res = await call(s, 'POST', path, { token: alice, json: {} });
    expectFault(res, 429, 'rateLimitReached');
    expect(res.json.details).toEqual({ code: 'MONITORING_RATE_LIMITED', type: 'test_check', limit: 2, window_ms: DAY_MS, reset_at: MIDNIGHT_MS + DAY_MS });
    expect(res.headers.get('retry-after')).toBe(String(23 * 3_600));
    expect(rateHeaders(res)).toEqual({ limit: '2', used: '2', window: '24 hours', type: 'test_check' });
    const after = (await call(s, 'GET', `${t1}/limits`, { token: alice })).json.rate;
    expect(after.test_check.used).toBe(2);
    // The refused request was not counted in global either (the second GET /limits is).
    expect(after.global.used).toBe(before.global.used + 1);
    // The saved-check test shares the bucket.
    const saved = await create(s, alice, `${t1}/entities/${entity}/checks`, { type: 'agent.cpu' });
    expectFault(await call(s, 'POST', `${t1}/entities/${entity}/checks/${saved}/test`, { token: alice }), 429, 'rateLimitReached');
    // Bob's account has its own counts.
    const theirs = await create(s, bob, `${base('t2')}/entities`, { label: 'e' });
    expect((await call(s, 'POST', `${base('t2')}/entities/${theirs}/test-check`, { token: bob, json: {} })).status).toBe(400);
  });

  it('refuses every request past the global limit, and counts start again at the next UTC midnight', async () => {
    const test = await call(s, 'POST', `${t1}/entities/enX/test-alarm`, { token: alice, json: {} });
    expect(rateHeaders(test).type).toBe('test_alarm');
    expectFault(await call(s, 'POST', `${t1}/entities/enX/test-alarm`, { token: alice, json: {} }), 429, 'rateLimitReached');
    let res: CallResult;
    do res = await call(s, 'GET', `${t1}/entities`, { token: alice });
    while (res.status === 200);
    expectFault(res, 429, 'rateLimitReached');
    expect(res.json.details).toMatchObject({ type: 'global', limit: 12 });
    expect(rateHeaders(res)).toEqual({ limit: '12', used: '12', window: '24 hours', type: 'global' });
    // GET /limits is a request too: refused now.
    expect((await call(s, 'GET', `${t1}/limits`, { token: alice })).status).toBe(429);
    s.clock.set(MIDNIGHT_MS + DAY_MS);
    const next = await call(s, 'GET', `${t1}/limits`, { token: alice });
    expect(next.status).toBe(200);
    expect(next.json.rate.global).toEqual({ limit: 12, used: 1, window: '24 hours', reset_at: MIDNIGHT_MS + 2 * DAY_MS });
    expect(next.json.rate.test_check.used).toBe(0);
    expect(next.headers.get('x-ratelimit-used')).toBe('1');
  });

  it('lists /limits in the OpenAPI document', async () => {
    const doc = (await call(s, 'GET', '/openapi.json')).json;
    expect(doc.paths['/monitoring/v1.0/{tenant}/limits']?.get?.summary).toMatch(/limits/);
    expect(doc.paths['/monitoring/v1.0/{tenant}/audits']?.get?.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['from', 'to', 'limit', 'marker']));
  });
});

describe('backtest pages and the test_alarm bucket over HTTP', () => {
  let s: Served;
  let alice: string;
  let olga: string;
  const t1 = base('t1');

  beforeAll(async () => {
    s = await serve({}, { test_alarm: 1 });
    [alice, olga] = await Promise.all([s.token('alice'), s.token('olga')]);
  });
  afterAll(async () => s.close());

  it('counts a backtest once: its next pages (a marker) count in global only; an observer may not backtest', async () => {
    const entity = await create(s, alice, `${t1}/entities`, { label: 'e' });
    const check = await create(s, alice, `${t1}/entities/${entity}/checks`, { type: 'agent.cpu' });
    const alarm = await create(s, alice, `${t1}/entities/${entity}/alarms`, { check_id: check, notification_plan_id: 'npTechnicalContactsEmail', criteria: 'return new AlarmStatus(OK);' });
    const path = `${t1}/entities/${entity}/alarms/${alarm}/backtest`;
    const window = `from=${START_MS - 3_600_000}&to=${START_MS}`;
    // An observer is refused before any bucket is touched.
    expectFault(await call(s, 'POST', `${path}?${window}`, { token: olga }), 403, 'forbiddenError');
    const first = await call(s, 'POST', `${path}?${window}&limit=1`, { token: alice });
    expect(first.status, first.text).toBe(200);
    expect(rateHeaders(first)).toMatchObject({ limit: '1', used: '1', type: 'test_alarm' });
    for (const marker of ['1', '2']) {
      const page = await call(s, 'POST', `${path}?${window}&limit=1&marker=${marker}`, { token: alice });
      expect(page.status, page.text).toBe(200);
      expect(rateHeaders(page).type).toBe('global');
    }
    // test-alarm's pages too; a marker without a window is refused (nothing to page), counted in global only.
    const testAlarm = `${t1}/entities/${entity}/test-alarm`;
    const criteria = { criteria: 'return new AlarmStatus(OK);', check_id: check };
    expect((await call(s, 'POST', `${testAlarm}?${window}&marker=1`, { token: alice, json: criteria })).status).toBe(200);
    const stray = await call(s, 'POST', `${testAlarm}?marker=1`, { token: alice, json: criteria });
    expectFault(stray, 400, 'badRequest');
    expect(rateHeaders(stray).type).toBe('global');
    const limits = (await call(s, 'GET', `${t1}/limits`, { token: alice })).json.rate;
    expect(limits.test_alarm.used).toBe(1);
    // A new backtest (no marker) is a test again: the bucket is full.
    expectFault(await call(s, 'POST', `${path}?${window}`, { token: alice }), 429, 'rateLimitReached');
    expectFault(await call(s, 'POST', testAlarm, { token: alice, json: { ...criteria, from: START_MS - 3_600_000 } }), 429, 'rateLimitReached');
  });
});
