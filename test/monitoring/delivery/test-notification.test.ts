// Checks test notifications: the synthetic event marked as a test, one attempt through the type's channel to a real receiver (success, refused port, timeout, stop), the account's webhook token only for a saved notification, and the in-flight bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { Channel } from '../../../src/monitoring/delivery/channel-types.js';
import { TEST_EVENT_IDS, TEST_EVENT_STATUS, TestNotifications, testEvent, UNSAVED_TEST_WEBHOOK_TOKEN, type TestNotificationDeps } from '../../../src/monitoring/delivery/test-notification.js';
import { createWebhookChannel } from '../../../src/monitoring/delivery/webhook-channel.js';
import type { NotificationTypeId } from '../../../src/monitoring/notification-types.js';
import { closedPort } from '../probes/tcp-probe-harness.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

const TOKEN = 'test-notification-token-0123';

function deps(channels: ReadonlyMap<NotificationTypeId, Channel>, extra: Partial<TestNotificationDeps> = {}): TestNotificationDeps {
  let n = 0;
  return {
    channels,
    attemptTimeoutMs: 2_000,
    clock: systemClock,
    newTxnId: () => `.txn-test-${++n}`,
    account: () => ({ technicalContacts: [], webhookToken: TOKEN }),
    stop: new AbortController().signal,
    ...extra,
  };
}

const hook = (url: string) => ({ id: 'ntHook', label: 'hook', type: 'webhook' as const, details: { url } });

/** A channel whose deliveries wait until released (or their signal aborts). */
function heldChannel(): { channel: Channel; release: () => void } {
  const waiting: (() => void)[] = [];
  const channel: Channel = {
    type: 'webhook',
    deliver: (_job, signal) =>
      new Promise((resolve) => {
        waiting.push(() => resolve({ ok: true, detail: 'released' }));
        signal.addEventListener('abort', () => resolve({ ok: false, retryable: true, error: 'aborted' }));
      }),
  };
  return { channel, release: () => waiting.splice(0).forEach((go) => go()) };
}

describe('testEvent', () => {
  it('is a spec 6.1 payload marked as a test, about placeholder objects, state OK, with the attempt transaction id', () => {
    const event = testEvent('t1', 1_790_000_000_000, '.txn-1') as Record<string, any>;
    expect(event['test']).toBe(true);
    expect(event['tenant_id']).toBe('t1');
    expect(event['event_id']).toBe(`t1:${TEST_EVENT_IDS.entity}:${TEST_EVENT_IDS.alarm}:${TEST_EVENT_IDS.check}:1790000000000:OK`);
    expect(event['log_entry_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(event['details']).toMatchObject({ state: 'OK', previous_state: null, status: TEST_EVENT_STATUS, txn_id: '.txn-1', timestamp: 1_790_000_000_000, metrics: {}, observations: [] });
    expect(event['entity']).toMatchObject({ id: TEST_EVENT_IDS.entity, label: 'Test entity' });
    expect(event['check']).toMatchObject({ id: TEST_EVENT_IDS.check, label: 'Test check' });
    expect(event['alarm']).toMatchObject({ id: TEST_EVENT_IDS.alarm, label: 'Test alarm', check_id: TEST_EVENT_IDS.check, entity_id: TEST_EVENT_IDS.entity });
    for (const record of ['entity', 'check', 'alarm']) expect(event[record]).toMatchObject({ active_suppressions: [], scheduled_suppressions: [] });
  });
});

describe('TestNotifications', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('sends one test of a saved notification to a live receiver with the webhook token and answers success', async () => {
    receiver.script(200);
    const before = receiver.requests.length;
    const tests = new TestNotifications(deps(new Map([['webhook', createWebhookChannel('RAX')]])));
    const result = await tests.send('t1', hook(`${receiver.url}/ok`), 'saved');
    expect(result).toEqual({ status: 'success', message: 'webhook answered 200', notification_type: 'webhook', duration_ms: expect.any(Number), transaction_id: '.txn-test-1' });
    const sent = receiver.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['x-rax-webhook-token']).toBe(TOKEN);
    expect(sent[0]?.json).toMatchObject({ test: true, tenant_id: 't1', details: { status: TEST_EVENT_STATUS, txn_id: '.txn-test-1' } });
  });

  it('never sends the account webhook token with a test of an unsaved notification: the header is empty', async () => {
    receiver.script(200);
    const before = receiver.requests.length;
    const tests = new TestNotifications(deps(new Map([['webhook', createWebhookChannel('RAX')]])));
    expect(await tests.send('t1', hook(`${receiver.url}/unsaved`), 'unsaved')).toMatchObject({ status: 'success' });
    const sent = receiver.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(UNSAVED_TEST_WEBHOOK_TOKEN).toBe('');
    // The empty token leaves the header out altogether (webhook-channel.ts).
    expect(sent[0]?.headers).not.toHaveProperty('x-rax-webhook-token');
    expect(JSON.stringify(sent[0]?.headers)).not.toContain(TOKEN);
    expect(sent[0]?.body).not.toContain(TOKEN);
  });

  it('answers failure, once and without retrying, for a receiver that refuses, a closed port, a hang past the timeout, and a type without channel', async () => {
    const tests = new TestNotifications(deps(new Map([['webhook', createWebhookChannel('RAX')]]), { attemptTimeoutMs: 200 }));
    receiver.script(503);
    const before = receiver.requests.length;
    expect(await tests.send('t1', hook(`${receiver.url}/busy`), 'unsaved')).toMatchObject({ status: 'failure', message: 'webhook answered 503' });
    expect(receiver.requests.length - before).toBe(1);
    expect(await tests.send('t1', hook(`http://127.0.0.1:${await closedPort()}/`), 'unsaved')).toMatchObject({ status: 'failure', message: 'webhook unreachable (ECONNREFUSED)' });
    receiver.script('hang');
    expect(await tests.send('t1', hook(`${receiver.url}/hang`), 'unsaved')).toMatchObject({ status: 'failure', message: 'webhook request timed out' });
    receiver.script(200);
    expect(await tests.send('t1', { id: 'ntMail', label: 'mail', type: 'email', details: { address: 'ops@example.com' } }, 'unsaved')).toMatchObject({
      status: 'failure',
      message: 'no channel delivers email notifications',
      notification_type: 'email',
    });
  });

  it('refuses tests past the in-flight bounds with MONITORING_TEST_RUNS_BUSY, and gives every slot back', async () => {
    const held = heldChannel();
    const tests = new TestNotifications(deps(new Map([['webhook', held.channel]]), { limits: { inFlightMax: 2, perTenantMax: 1 } }));
    const first = tests.send('t1', hook('http://unused.example/'), 'unsaved');
    await expect(tests.send('t1', hook('http://unused.example/'), 'unsaved')).rejects.toMatchObject({ code: 'MONITORING_TEST_RUNS_BUSY', details: { scope: 'tenant', limit: 1 } });
    const second = tests.send('t2', hook('http://unused.example/'), 'unsaved');
    await expect(tests.send('t3', hook('http://unused.example/'), 'unsaved')).rejects.toMatchObject({ code: 'MONITORING_TEST_RUNS_BUSY', details: { scope: 'server', limit: 2 } });
    held.release();
    expect((await Promise.all([first, second])).map((r) => r.status)).toEqual(['success', 'success']);
    const again = tests.send('t1', hook('http://unused.example/'), 'unsaved');
    held.release();
    expect((await again).message).toBe('released');
  });

  it('ends a test in flight as a failure when the runtime stops', async () => {
    const held = heldChannel();
    const stop = new AbortController();
    const tests = new TestNotifications(deps(new Map([['webhook', held.channel]]), { stop: stop.signal }));
    const pending = tests.send('t1', hook('http://unused.example/'), 'unsaved');
    stop.abort();
    expect(await pending).toMatchObject({ status: 'failure', message: 'the server is stopping' });
  });
});
