// Checks the delivery API over real HTTP: deliveries and dead letters listed per tenant, one delivery with its attempts, retrying a dead letter, roles.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { Deliverer } from '../../src/monitoring/delivery/deliverer.js';
import { resolveDeliveryConfig } from '../../src/monitoring/delivery/delivery-config.js';
import type { Outbox } from '../../src/monitoring/delivery/outbox.js';
import { createWebhookChannel } from '../../src/monitoring/delivery/webhook-channel.js';
import type { MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { call, startHarness, type Harness } from '../http/harness.js';
import { sampleEvent } from '../monitoring/delivery/channel-jobs.js';
import { eventually, startReceiver, type WebhookReceiver } from '../monitoring/delivery/webhook-receiver.js';
import { base, create, expectFault } from './monitoring-client.js';

const ITEM_KEYS = ['alarm_id', 'attempts', 'check_id', 'created_at', 'entity_id', 'id', 'last_error', 'next_attempt_at', 'notification_id', 'state', 'status', 'updated_at'];
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** How long a retried delivery may take to be sent: a bound on a broken test only (the wake is proved by a spy, not by time). */
const RETRIED_DELIVERY_WAIT_MS = 15_000;

describe('notification delivery API', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let monitoring: MonitoringService;
  let outbox: Outbox;
  let alice: string;
  let olga: string;
  let bob: string;
  let dead: string;
  let delivered: string;
  let pending: string;
  let theirs: string;

  function deliverer(): Deliverer {
    return new Deliverer({
      outbox,
      clock: systemClock,
      logger: quiet,
      config: resolveDeliveryConfig({ retryBaseMs: 10, retryMaxMs: 20, concurrency: 1 }),
      channels: new Map([['webhook', createWebhookChannel('RAX')]]),
      notification: (tenant, id) => {
        const stored = monitoring.notifications.notificationWithSecrets(tenant, id);
        return { id: stored.id, label: stored.doc.label, type: stored.doc.type, details: stored.doc.details };
      },
      account: (tenant) => monitoring.account.deliveryAccount(tenant),
      newTxnId: () => `.txn-${Math.random().toString(36).slice(2)}`,
    });
  }

  const enqueue = (tenant: string, notificationId: string): string =>
    monitoring.store.transaction(() => outbox.enqueue(tenant, { notificationId, entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', event: sampleEvent({ tenant }) }));

  beforeAll(async () => {
    h = await startHarness({});
    receiver = await startReceiver();
    monitoring = h.app.strata.monitoring;
    // The runtime's outbox, which the routes use: a retry wakes the deliverer built over it.
    outbox = h.app.strata.runtime.outbox;
    [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
    const hook = await create(h, alice, `${base('t1')}/notifications`, { label: 'hook', type: 'webhook', details: { url: `${receiver.url}/t1` } });
    const bobHook = await create(h, bob, `${base('t2')}/notifications`, { label: 'hook', type: 'webhook', details: { url: `${receiver.url}/t2` } });
    // Concurrency 1 and oldest first: the first row meets the 404, the second the 200.
    receiver.script(404, 200);
    dead = enqueue('t1', hook);
    delivered = enqueue('t1', hook);
    theirs = enqueue('t2', bobHook);
    const sender = deliverer();
    sender.start();
    await eventually('three attempts', () => outbox.list('t1', { limit: 10 }).values.every((item) => item.status !== 'pending') && outbox.delivery('t2', theirs).item.status !== 'pending');
    await sender.stop();
    pending = enqueue('t1', hook);
  });

  afterAll(async () => {
    await receiver.close();
    await h.close();
  });

  it('sent each tenant its own token in x-rax-webhook-token', () => {
    const byPath = new Map(receiver.requests.map((r) => [r.path, r.headers['x-rax-webhook-token']]));
    expect(byPath.get('/t1')).toBe(monitoring.account.deliveryAccount('t1').webhookToken);
    expect(byPath.get('/t2')).toBe(monitoring.account.deliveryAccount('t2').webhookToken);
    expect(byPath.get('/t1')).not.toBe(byPath.get('/t2'));
  });

  it("lists the tenant's deliveries by id with their status", async () => {
    const res = await call(h, 'GET', `${base('t1')}/deliveries`, { token: olga });
    expect(res.status, res.text).toBe(200);
    expect(res.json.values.map((v: { id: string }) => v.id)).toEqual([dead, delivered, pending]);
    for (const value of res.json.values) expect(Object.keys(value).sort()).toEqual(ITEM_KEYS);
    const [d, ok, p] = res.json.values;
    expect(d).toMatchObject({ status: 'dead', attempts: 1, last_error: 'webhook answered 404', next_attempt_at: null, state: 'CRITICAL', alarm_id: 'alA' });
    expect(ok).toMatchObject({ status: 'delivered', attempts: 1, last_error: null, next_attempt_at: null });
    expect(p).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: expect.any(Number) });
    expect(res.json.metadata).toMatchObject({ count: 3, next_marker: null });
  });

  it('filters by status and pages with limit and marker', async () => {
    const deadOnly = await call(h, 'GET', `${base('t1')}/deliveries?status=dead`, { token: alice });
    expect(deadOnly.json.values.map((v: { id: string }) => v.id)).toEqual([dead]);
    const first = await call(h, 'GET', `${base('t1')}/deliveries?limit=2`, { token: alice });
    expect(first.json.metadata).toMatchObject({ count: 2, limit: 2, next_marker: pending });
    const next = await call(h, 'GET', new URL(first.json.metadata.next_href).pathname + new URL(first.json.metadata.next_href).search, { token: alice });
    expect(next.json.values.map((v: { id: string }) => v.id)).toEqual([pending]);
    expectFault(await call(h, 'GET', `${base('t1')}/deliveries?status=lost`, { token: alice }), 400, 'badRequest');
    expectFault(await call(h, 'GET', `${base('t1')}/deliveries?limit=0`, { token: alice }), 400, 'invalidLimit');
  });

  it('shows one delivery with its attempts', async () => {
    const res = await call(h, 'GET', `${base('t1')}/deliveries/${dead}`, { token: olga });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: dead, status: 'dead', attempt_count: 1, attempts: [{ attempt: 1, outcome: 'dead', detail: 'webhook answered 404' }] });
    expect(Object.keys(res.json).sort()).toEqual([...ITEM_KEYS, 'attempt_count'].sort());
    expect(Object.keys(res.json.attempts[0]).sort()).toEqual(['attempt', 'detail', 'duration_ms', 'outcome', 'started_at', 'txn_id']);
    expect(res.json.attempts[0].txn_id).toMatch(/^\.txn-/);
    expectFault(await call(h, 'GET', `${base('t1')}/deliveries/dlnothere`, { token: alice }), 404, 'notFoundError');
  });

  it('keeps tenants apart', async () => {
    const mine = await call(h, 'GET', `${base('t2')}/deliveries`, { token: bob });
    expect(mine.json.values.map((v: { id: string }) => v.id)).toEqual([theirs]);
    expectFault(await call(h, 'GET', `${base('t1')}/deliveries`, { token: bob }), 403, 'forbiddenError');
    expectFault(await call(h, 'GET', `${base('t2')}/deliveries/${dead}`, { token: bob }), 404, 'notFoundError');
    expectFault(await call(h, 'POST', `${base('t2')}/deliveries/${dead}/retry`, { token: bob }), 404, 'notFoundError');
    const res = await call(h, 'GET', `${base('t1')}/deliveries/${dead}`, { token: alice });
    expect(res.json.status).toBe('dead');
  });

  it('retries a dead letter (writers only): 204, pending, then delivered by a running deliverer', async () => {
    expectFault(await call(h, 'POST', `${base('t1')}/deliveries/${dead}/retry`, { token: olga }), 403, 'forbiddenError');
    const notDead = await call(h, 'POST', `${base('t1')}/deliveries/${delivered}/retry`, { token: alice });
    expectFault(notDead, 400, 'badRequest');
    expect(notDead.json.details).toMatchObject({ code: 'MONITORING_DELIVERY_NOT_DEAD', status: 'delivered' });
    expectFault(await call(h, 'POST', `${base('t1')}/deliveries/${pending}/retry`, { token: alice }), 400, 'badRequest');
    receiver.script(200);
    const sender = deliverer();
    sender.start();
    try {
      // The sender's first turn sends the pending row; once it is delivered the sender has nothing to do and wakes itself no more.
      await eventually('the pending delivery sent', () => outbox.delivery('t1', pending).item.status === 'delivered');
      // What the retried row looked like at each wake of the sender from here on.
      const atWake: { status: string; attempts: number }[] = [];
      const wakeSender = sender.wake.bind(sender);
      vi.spyOn(sender, 'wake').mockImplementation(() => {
        const { status, attempts } = outbox.delivery('t1', dead).item;
        atWake.push({ status, attempts });
        wakeSender();
      });
      const res = await call(h, 'POST', `${base('t1')}/deliveries/${dead}/retry`, { token: alice });
      expect(res.status, res.text).toBe(204);
      expect(res.text).toBe('');
      // The retry told the deliverer over the same outbox before answering: woken with the row pending and not yet attempted
      // again, not by its own poll (every DELIVERY_POLL_INTERVAL_MS) nor by an attempt that finished.
      expect(atWake[0]).toEqual({ status: 'pending', attempts: 1 });
      await eventually('retried delivery sent', () => outbox.delivery('t1', dead).item.status === 'delivered', RETRIED_DELIVERY_WAIT_MS);
      const after = await call(h, 'GET', `${base('t1')}/deliveries/${dead}`, { token: alice });
      expect(after.json).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, outcome: 'dead' }, { attempt: 2, outcome: 'delivered' }] });
    } finally {
      await sender.stop();
    }
  });

  it('answers other methods with 405', async () => {
    const res = await call(h, 'DELETE', `${base('t1')}/deliveries/${dead}`, { token: alice });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
