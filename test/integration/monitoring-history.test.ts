// End to end over real HTTP: a check against a loopback target flipped up and down, a webhook receiver that accepts on one path and fails on another; the notification history shows every attempt (a list page the latest ones, saying when it cut), its one check id, a suppression's record, and test notifications answer their one attempt (the account's webhook token only for a saved notification).
import { describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../../src/monitoring/detail-secrets.js';
import { TEST_EVENT_STATUS } from '../../src/monitoring/delivery/test-notification.js';
import { DELIVERY_ATTEMPTS_SHOWN_MAX, NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX, NOTIFICATION_HISTORY_LIST_LIMIT_MAX } from '../../src/monitoring/monitoring-limits.js';
import { call } from '../http/harness.js';
import { closedPort } from '../monitoring/probes/tcp-probe-harness.js';
import { base, create, expectFault } from './monitoring-client.js';
import { createHttpAlarm, monitoringWorldOfFile, reachState, WORLD_TENANT, type HttpAlarm, type HookRequest } from './monitoring-runtime-fixture.js';
import { until } from './poll-until.js';

const ATTEMPTS_MAX = 3;
// Fast retries and three attempts, so the failing receiver's delivery is dead within a second; the receiver answers 200 on /ok and 503 on /fail.
const world = monitoringWorldOfFile({ runtime: { delivery: { retryBaseMs: 30, retryMaxMs: 60, attemptsMax: ATTEMPTS_MAX } }, statusFor: (p) => (p === '/fail' ? 503 : 200) });
const b = base(WORLD_TENANT);

/** The webhook token header a receiver request carried, if any. */
function webhookToken(r: HookRequest | undefined): string | undefined {
  const token = r?.headers['x-rax-webhook-token'];
  return Array.isArray(token) ? token.join(',') : token;
}

/**
 * The test messages the receiver got after its `before`th request. Deliveries of the earlier tests' alarms may still be
 * under way (a failing receiver's retries), so their webhooks are told apart by the test payload's own `test: true`.
 */
function testMessagesSince(receiver: { received: HookRequest[] }, before: number): HookRequest[] {
  return receiver.received.slice(before).filter((r) => r.body?.test === true);
}

/** An entity with an HTTP check on the target from one zone, two webhooks (/ok, /fail) and an alarm whose plan names them. */
async function tree(label: string): Promise<HttpAlarm & { ok: string; fail: string }> {
  const t = await createHttpAlarm(world(), { label, checkLabel: 'site', zones: ['mzdfw'], hookPaths: ['/ok', '/fail'], messages: { critical: 'site down', ok: 'site is up' } });
  const [ok, fail] = t.hooks as [string, string];
  return { ...t, ok, fail };
}

/** Runs the check until the alarm's latest changelog entry is `state`; returns the entries. */
const reach = (t: HttpAlarm, state: string): Promise<any[]> => reachState(world(), t, state);

describe('notification history', () => {
  it("lists a failing receiver's retries attempt by attempt and a delivered notification as a success", async () => {
    const { h, tokens, target, receiver } = world();
    const t = await tree('history-1');
    const path = `${b}/entities/${t.entity}/alarms/${t.alarm}/notification_history`;
    await reach(t, 'OK');
    // A new alarm's first OK notifies nobody: no history yet.
    expect((await call(h, 'GET', path, { token: tokens.olga })).json).toEqual({ check_ids: [] });
    await target.down();
    const entries = await reach(t, 'CRITICAL');
    await target.up();
    expect((await call(h, 'GET', path, { token: tokens.olga })).json).toEqual({ check_ids: [t.check] });
    const listed = await until('both deliveries finished', async () => {
      const res = await call(h, 'GET', `${path}/${t.check}`, { token: tokens.olga });
      expect(res.status, res.text).toBe(200);
      const results = res.json.values[0]?.notification_results ?? [];
      return results.length === 2 && results.every((r: any) => !r.in_progress) ? res.json : undefined;
    });
    expect(listed.metadata).toMatchObject({ count: 1, next_marker: null });
    const item = listed.values[0];
    expect(item.status).toMatch(/connection refused/);
    const hook = receiver.received.find((r) => r.path === '/ok' && r.body.log_entry_id === item.id);
    expect(item).toMatchObject({
      id: entries.at(-1).id,
      notification_plan_id: t.plan,
      state: 'CRITICAL',
      previous_state: 'OK',
      // An unavailable result's status (the failure), as the payload's details.status said it.
      status: hook?.body.details.status,
      suppressed: false,
      suppressions: null,
      transaction_id: hook?.body.details.txn_id,
      timestamp: hook?.body.details.timestamp,
    });
    const [ok, fail] = item.notification_results;
    const host = new URL(receiver.url).host;
    expect(ok).toMatchObject({ notification_id: t.ok, notification_type: 'webhook', notification_details: { url: REDACTED_SECRET }, target: host, suppressed: false, in_progress: false, success: true, message: 'Success: webhook answered 200' });
    expect(ok.attempts).toEqual([{ attempt: 1, outcome: 'delivered', message: 'webhook answered 200', started_at: expect.any(Number), duration_ms: expect.any(Number), transaction_id: expect.any(String) }]);
    expect([ok.attempt_count, ok.attempts_truncated, fail.attempt_count, fail.attempts_truncated]).toEqual([1, false, ATTEMPTS_MAX, false]);
    expect(fail).toMatchObject({ notification_id: t.fail, target: host, in_progress: false, success: false, message: `Notification failed after ${ATTEMPTS_MAX} attempts: webhook answered 503` });
    // Every attempt, in order, each its own transaction, as the receiver saw them.
    expect(fail.attempts.map((a: any) => [a.attempt, a.outcome, a.message])).toEqual([
      [1, 'failed', 'webhook answered 503'],
      [2, 'failed', 'webhook answered 503'],
      [3, 'dead', 'webhook answered 503'],
    ]);
    expect(new Set(fail.attempts.map((a: any) => a.transaction_id)).size).toBe(ATTEMPTS_MAX);
    expect(fail.attempts.map((a: any) => a.started_at)).toEqual([...fail.attempts.map((a: any) => a.started_at)].sort((x: number, y: number) => x - y));
    expect(receiver.received.filter((r) => r.path === '/fail' && r.body.log_entry_id === item.id)).toHaveLength(ATTEMPTS_MAX);
    // The delivery ids are the deliveries API's.
    const delivery = await call(h, 'GET', `${b}/deliveries/${fail.delivery_id}`, { token: tokens.alice });
    expect(delivery.json).toMatchObject({ status: 'dead', attempt_count: ATTEMPTS_MAX, notification_id: t.fail });
    // One item by its id, as the list shows it.
    const one = await call(h, 'GET', `${path}/${t.check}/${item.id}`, { token: tokens.olga });
    expect(one.status, one.text).toBe(200);
    expect(one.json).toEqual(item);
    expect(JSON.stringify(listed)).not.toContain(`${receiver.url}/`);
  });

  it('lists the latest attempts of a retried delivery and says the rest were cut; the item shows them all', async () => {
    const { h, tokens, target } = world();
    const t = await tree('history-retried');
    const path = `${b}/entities/${t.entity}/alarms/${t.alarm}/notification_history/${t.check}`;
    await reach(t, 'OK');
    await target.down();
    await reach(t, 'CRITICAL');
    await target.up();
    const failOf = async (url: string) => (await call(h, 'GET', url, { token: tokens.alice })).json;
    const dead = async (id: string, attempts: number) => until(`${attempts} attempts`, async () => {
      const delivery = (await call(h, 'GET', `${b}/deliveries/${id}`, { token: tokens.alice })).json;
      return delivery.status === 'dead' && delivery.attempt_count === attempts ? delivery : undefined;
    });
    const first = await until('the failing delivery', async () => (await failOf(path)).values[0]?.notification_results.find((r: any) => r.notification_id === t.fail));
    await dead(first.delivery_id, ATTEMPTS_MAX);
    // Each manual retry gives ATTEMPTS_MAX more attempts: past NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX in all.
    const rounds = Math.ceil((NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX + 1) / ATTEMPTS_MAX);
    for (let round = 2; round <= rounds; round++) {
      expect((await call(h, 'POST', `${b}/deliveries/${first.delivery_id}/retry`, { token: tokens.alice })).status).toBe(204);
      await dead(first.delivery_id, round * ATTEMPTS_MAX);
    }
    const total = rounds * ATTEMPTS_MAX;
    const listed = (await failOf(path)).values[0];
    const cut = listed.notification_results.find((r: any) => r.notification_id === t.fail);
    expect([cut.attempt_count, cut.attempts_truncated, cut.attempts.length]).toEqual([total, true, NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX]);
    expect(cut.attempts.map((a: any) => a.attempt)).toEqual(Array.from({ length: NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX }, (_, i) => total - NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX + 1 + i));
    const full = (await failOf(`${path}/${listed.id}`)).notification_results.find((r: any) => r.notification_id === t.fail);
    expect(total).toBeLessThanOrEqual(DELIVERY_ATTEMPTS_SHOWN_MAX);
    expect([full.attempt_count, full.attempts_truncated, full.attempts.map((a: any) => a.attempt)]).toEqual([total, false, Array.from({ length: total }, (_, i) => i + 1)]);
  });

  it("lists one check id per alarm: the alarm's check cannot change", async () => {
    const { h, tokens, target } = world();
    const t = await tree('history-check-ids');
    const path = `${b}/entities/${t.entity}/alarms/${t.alarm}/notification_history`;
    await reach(t, 'OK');
    await target.down();
    await reach(t, 'CRITICAL');
    await target.up();
    const other = await create(h, tokens.alice, `${b}/entities/${t.entity}/checks`, { label: 'other', type: 'remote.http', details: { url: `http://127.0.0.1:${target.port}/`, method: 'GET' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', period: 30, timeout: 5 });
    expectFault(await call(h, 'PUT', `${b}/entities/${t.entity}/alarms/${t.alarm}`, { token: tokens.alice, json: { check_id: other } }), 400, 'badRequest');
    await reach(t, 'OK');
    expect((await call(h, 'GET', path, { token: tokens.alice })).json).toEqual({ check_ids: [t.check] });
  });

  it('pages the time series, keeping the window in next_href, and answers 404 and 400 in the monitoring shape', async () => {
    const { h, tokens, target } = world();
    const t = await tree('history-2');
    const path = `${b}/entities/${t.entity}/alarms/${t.alarm}/notification_history`;
    await reach(t, 'OK');
    await target.down();
    await reach(t, 'CRITICAL');
    await target.up();
    await reach(t, 'OK');
    const first = await call(h, 'GET', `${path}/${t.check}?limit=1`, { token: tokens.alice });
    expect(first.json.values.map((v: any) => v.state)).toEqual(['CRITICAL']);
    const next = new URL(first.json.metadata.next_href);
    expect(next.searchParams.get('limit')).toBe('1');
    expect(Number(next.searchParams.get('to')) - Number(next.searchParams.get('from'))).toBe(7 * 86_400_000);
    const second = await call(h, 'GET', next.pathname + next.search, { token: tokens.alice });
    expect(second.json.values.map((v: any) => [v.state, v.previous_state, v.status])).toEqual([['OK', 'CRITICAL', 'site is up']]);
    expect(second.json.metadata).toMatchObject({ count: 1, next_marker: null, next_href: null });
    // The history's own page bound: NOTIFICATION_HISTORY_LIST_LIMIT_MAX, invalidLimit above it.
    expect((await call(h, 'GET', `${path}/${t.check}?limit=${NOTIFICATION_HISTORY_LIST_LIMIT_MAX}`, { token: tokens.alice })).json.metadata).toMatchObject({ count: 2, limit: NOTIFICATION_HISTORY_LIST_LIMIT_MAX });
    expectFault(await call(h, 'GET', `${path}/${t.check}?limit=${NOTIFICATION_HISTORY_LIST_LIMIT_MAX + 1}`, { token: tokens.alice }), 400, 'invalidLimit');
    const past = await call(h, 'GET', `${path}/${t.check}?from=0&to=1000`, { token: tokens.alice });
    expect(past.json.values).toEqual([]);
    expectFault(await call(h, 'GET', `${path}/${t.check}?from=2000&to=1000`, { token: tokens.alice }), 400, 'badRequest');
    expectFault(await call(h, 'GET', `${b}/entities/enMissing/alarms/${t.alarm}/notification_history`, { token: tokens.alice }), 404, 'parentNotFoundError');
    expectFault(await call(h, 'GET', `${b}/entities/${t.entity}/alarms/alMissing/notification_history/${t.check}`, { token: tokens.alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${path}/${t.check}/00000000-0000-4000-8000-000000000000`, { token: tokens.alice }), 404, 'notFoundError');
    expectFault(await call(h, 'GET', `${path}/chOther/${first.json.values[0].id}`, { token: tokens.alice }), 404, 'notFoundError');
    // Another tenant reaches neither the alarm nor its records.
    expectFault(await call(h, 'GET', path, { token: tokens.bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${base('t2')}/entities/${t.entity}/alarms/${t.alarm}/notification_history`, { token: tokens.bob }), 404, 'parentNotFoundError');
  });

  it('records a suppressed change without sending it, and delivers the next change once the window has ended', async () => {
    const { h, tokens, target, receiver } = world();
    const t = await tree('history-3');
    const path = `${b}/entities/${t.entity}/alarms/${t.alarm}/notification_history/${t.check}`;
    await reach(t, 'OK');
    const suppression = await create(h, tokens.alice, `${b}/suppressions`, { label: 'maintenance', start_time: 0, end_time: Date.now() + 3_600_000, entities: [t.entity] });
    await target.down();
    const entries = await reach(t, 'CRITICAL');
    const res = await call(h, 'GET', path, { token: tokens.alice });
    expect(res.json.values).toHaveLength(1);
    expect(res.json.values[0]).toMatchObject({ id: entries.at(-1).id, state: 'CRITICAL', suppressed: true, suppressions: [suppression] });
    expect(res.json.values[0].status).toMatch(/connection refused/);
    expect(res.json.values[0].notification_results.map((r: any) => [r.notification_id, r.suppressed, r.success, r.delivery_id, r.attempts])).toEqual([
      [t.ok, true, false, null, []],
      [t.fail, true, false, null, []],
    ]);
    const logs = await call(h, 'GET', `${b}/suppression_logs`, { token: tokens.alice });
    expect(logs.json.values.filter((log: any) => log.alarm_id === t.alarm).map((log: any) => [log.state, log.suppressions])).toEqual([['CRITICAL', [suppression]]]);
    // The window ends now: the change inside it is not sent; the next one is.
    expect((await call(h, 'PUT', `${b}/suppressions/${suppression}`, { token: tokens.alice, json: { end_time: 0 } })).status).toBe(204);
    await target.up();
    const after = await reach(t, 'OK');
    const okHook = await until('the OK webhook', () => receiver.received.find((r) => r.body.log_entry_id === after.at(-1).id));
    expect(okHook.body.details).toMatchObject({ state: 'OK', previous_state: 'CRITICAL' });
    expect(receiver.received.some((r) => r.body.log_entry_id === entries.at(-1).id)).toBe(false);
    const listed = await call(h, 'GET', path, { token: tokens.alice });
    expect(listed.json.values.map((v: any) => [v.state, v.suppressed])).toEqual([
      ['CRITICAL', true],
      ['OK', false],
    ]);
  });
});

describe('test notifications', () => {
  it('deliver one message now: success to a live receiver, failure to a closed port; nothing queued or recorded', async () => {
    const { h, tokens, receiver } = world();
    const before = receiver.received.length;
    // No alarm of the earlier tests changes meanwhile (their checks run only when a test runs them: WORLD_CHECK_PERIOD_S), so the outbox holds as many rows after.
    const deliveriesBefore = (await call(h, 'GET', `${b}/deliveries?limit=1000`, { token: tokens.alice })).json.values.length;
    const ok = await call(h, 'POST', `${b}/test-notification`, { token: tokens.alice, json: { type: 'webhook', details: { url: `${receiver.url}/ok` } } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toEqual({ status: 'success', message: 'webhook answered 200', notification_type: 'webhook', duration_ms: expect.any(Number), transaction_id: expect.any(String) });
    const sent = testMessagesSince(receiver, before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ test: true, tenant_id: 't1', details: { status: TEST_EVENT_STATUS, txn_id: ok.json.transaction_id } });
    // A target named in the body never gets the account's webhook token: the header is left out.
    const account = (await call(h, 'GET', `${b}/account`, { token: tokens.alice })).json;
    expect(account.webhook_token).toMatch(/.{8}/);
    expect(webhookToken(sent[0])).toBeUndefined();
    const closed = await call(h, 'POST', `${b}/test-notification`, { token: tokens.alice, json: { type: 'webhook', label: 'nowhere', details: { url: `http://127.0.0.1:${await closedPort()}/` } } });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.json).toMatchObject({ status: 'failure', message: 'webhook unreachable (ECONNREFUSED)', notification_type: 'webhook' });
    const failing = await call(h, 'POST', `${b}/test-notification`, { token: tokens.alice, json: { type: 'webhook', details: { url: `${receiver.url}/fail` } } });
    expect(failing.json).toMatchObject({ status: 'failure', message: 'webhook answered 503' });
    // One attempt each, never retried, never in the outbox.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(testMessagesSince(receiver, before).map((r) => r.path)).toEqual(['/ok', '/fail']);
    expect((await call(h, 'GET', `${b}/deliveries?limit=1000`, { token: tokens.alice })).json.values).toHaveLength(deliveriesBefore);
  });

  it('tests a saved notification with its stored secret, and refuses what a create refuses', async () => {
    const { h, tokens, receiver } = world();
    const hook = await create(h, tokens.alice, `${b}/notifications`, { label: 'saved', type: 'webhook', details: { url: `${receiver.url}/ok` } });
    const before = receiver.received.length;
    const res = await call(h, 'POST', `${b}/notifications/${hook}/test`, { token: tokens.alice });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ status: 'success', notification_type: 'webhook' });
    expect(testMessagesSince(receiver, before).map((r) => r.path)).toEqual(['/ok']);
    // A saved notification is tested as it delivers: with the account's webhook token.
    const account = (await call(h, 'GET', `${b}/account`, { token: tokens.alice })).json;
    expect(webhookToken(testMessagesSince(receiver, before).at(-1))).toBe(account.webhook_token);
    // No body or an empty object; anything in it is refused.
    expect((await call(h, 'POST', `${b}/notifications/${hook}/test`, { token: tokens.alice, json: {} })).json).toMatchObject({ status: 'success' });
    expectFault(await call(h, 'POST', `${b}/notifications/${hook}/test`, { token: tokens.alice, json: { type: 'webhook' } }), 400, 'badRequest');
    expectFault(await call(h, 'POST', `${b}/notifications/ntMissing/test`, { token: tokens.alice }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${base('t2')}/notifications/${hook}/test`, { token: tokens.bob }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${b}/notifications/${hook}/test`, { token: tokens.olga }), 403, 'forbiddenError');
    expectFault(await call(h, 'POST', `${b}/test-notification`, { token: tokens.olga, json: { type: 'webhook', details: { url: `${receiver.url}/ok` } } }), 403, 'forbiddenError');
    for (const json of [{}, { type: 'pigeon' }, { type: 'webhook', details: { url: 'ftp://x.example/' } }, { type: 'webhook', details: { url: REDACTED_SECRET } }, { type: 'email', details: {} }]) {
      expectFault(await call(h, 'POST', `${b}/test-notification`, { token: tokens.alice, json }), 400, 'badRequest');
    }
    expect(testMessagesSince(receiver, before)).toHaveLength(2);
  });

  it('appear in the OpenAPI document with the history routes', async () => {
    const { h } = world();
    const doc = await call(h, 'GET', '/openapi.json');
    const paths = Object.keys(doc.json.paths);
    for (const suffix of ['/test-notification', '/notifications/{notificationId}/test', '/notification_history', '/notification_history/{checkId}', '/notification_history/{checkId}/{uuid}']) {
      expect(paths.some((p) => p.endsWith(suffix)), suffix).toBe(true);
    }
  });
});
