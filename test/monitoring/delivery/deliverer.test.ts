// Owns the delivery loop tests with real receivers and real SQLite files: retries, dead letters, timeouts, stop, restart and crash recovery.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/monitoring/delivery/channel-types.js';
import type { Deliverer } from '../../../src/monitoring/delivery/deliverer.js';
import { openFixture, SECRET_PATH, TOKEN, type Fixture } from './delivery-fixture.js';
import { eventually, startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/**
 * The attempt timeout of a test whose receiver holds one request open ('hang') while later attempts
 * must succeed: the timeout applies to every attempt, so it leaves a fresh HTTP exchange on a loaded
 * machine seconds, not milliseconds.
 */
const HUNG_ATTEMPT_TIMEOUT_MS = 2_000;
/** How long a test waits for what takes one timed-out attempt and a retry. */
const AFTER_TIMEOUT_WAIT_MS = 15_000;
/** A bound that proves stop(50) did not wait for the attempt (it would wait DELIVERY_STOP_WAIT_MS_MAX, 10 s), with seconds of slack. */
const STOP_BOUND_MS = 5_000;

const SPEC_TOP = ['alarm', 'check', 'details', 'entity', 'event_id', 'log_entry_id', 'tenant_id'];
const SPEC_DETAILS = ['collector_address_v4', 'collector_address_v6', 'metrics', 'observations', 'state', 'status', 'target', 'timestamp', 'txn_id'];

describe('Deliverer', () => {
  let dir: string;
  let receiver: WebhookReceiver;
  let fx: Fixture;
  const running: Deliverer[] = [];
  const start = (d: Deliverer): Deliverer => {
    running.push(d);
    d.start();
    return d;
  };
  const status = (id: string) => fx.outbox.delivery('acme', id);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-deliverer-'));
    receiver = await startReceiver();
    fx = openFixture(dir, receiver);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((d) => d.stop()));
    await receiver.close();
    fx.monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('POSTs the spec 6.1 payload with the token header, records the attempt and logs it without secrets', async () => {
    const id = fx.enqueue();
    start(fx.deliverer());
    await eventually('delivered', () => status(id).item.status === 'delivered');
    const [request] = receiver.requests;
    expect(request?.path).toBe(SECRET_PATH);
    expect(request?.headers['x-rax-webhook-token']).toBe(TOKEN);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(Object.keys(request?.json).sort()).toEqual(SPEC_TOP);
    for (const key of SPEC_DETAILS) expect(request?.json.details).toHaveProperty(key);
    expect(request?.json).toEqual(fx.event);
    const { item, attempts } = status(id);
    expect(item).toMatchObject({ status: 'delivered', attempts: 1, lastError: null, nextAttemptMs: null });
    expect(attempts).toEqual([{ attempt: 1, txnId: '.txn-test-1', startedMs: expect.any(Number), durationMs: expect.any(Number), outcome: 'delivered', detail: 'webhook answered 200' }]);
    expect(request?.headers['x-strata-txn-id']).toBe('.txn-test-1');
    const line = fx.logger.lines.find((l) => l.msg === 'notification delivered');
    expect(line?.obj).toMatchObject({ txnId: '.txn-test-1', outboxId: id, tenant: 'acme', notificationType: 'webhook', attempt: 1, outcome: 'delivered' });
    const logs = JSON.stringify(fx.logger.lines);
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain('s3cret');
  });

  it('a receiver that fails twice then succeeds: three attempts, backed off, then delivered', async () => {
    receiver.script(503, 500, 200);
    const id = fx.enqueue();
    start(fx.deliverer());
    await eventually('delivered', () => status(id).item.status === 'delivered');
    const { attempts } = status(id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.detail])).toEqual([
      [1, 'failed', 'webhook answered 503'],
      [2, 'failed', 'webhook answered 500'],
      [3, 'delivered', 'webhook answered 200'],
    ]);
    expect(new Set(attempts.map((a) => a.txnId)).size).toBe(3);
    expect(receiver.requests.map((r) => r.headers['x-strata-txn-id'])).toEqual(attempts.map((a) => a.txnId));
    // Equal jitter: at least half the cap (10 ms, then 20 ms) between attempts.
    const gaps = attempts.slice(1).map((a, i) => a.startedMs - ((attempts[i]?.startedMs ?? 0) + (attempts[i]?.durationMs ?? 0)));
    expect(gaps[0]).toBeGreaterThanOrEqual(5);
    expect(gaps[1]).toBeGreaterThanOrEqual(10);
    expect(fx.logger.lines.filter((l) => l.msg.includes('retrying')).map((l) => l.obj['attempt'])).toEqual([1, 2]);
  });

  it('a 404 is dead at once', async () => {
    receiver.script(404);
    const id = fx.enqueue();
    start(fx.deliverer());
    await eventually('dead', () => status(id).item.status === 'dead');
    expect(status(id).item).toMatchObject({ attempts: 1, lastError: 'webhook answered 404' });
    expect(status(id).attempts.map((a) => a.outcome)).toEqual(['dead']);
    expect(receiver.requests).toHaveLength(1);
    expect(fx.logger.lines.find((l) => l.level === 'error')?.obj).toMatchObject({ outboxId: id, outcome: 'dead', error: 'webhook answered 404' });
  });

  it('a receiver that always fails: dead after attemptsMax, every attempt recorded; a retry gets a fresh budget', async () => {
    receiver.script(500);
    const id = fx.enqueue();
    const deliverer = start(fx.deliverer({ attemptsMax: 4 }));
    await eventually('dead', () => status(id).item.status === 'dead');
    expect(status(id).attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'dead']);
    expect(receiver.requests).toHaveLength(4);
    expect(deliverer.stats()).toMatchObject({ pending: 0, delivered: 0, dead: 1, oldestPendingAgeMs: 0 });
    receiver.script(200);
    fx.outbox.retry('acme', id);
    await eventually('delivered after retry', () => status(id).item.status === 'delivered');
    expect(status(id).item).toMatchObject({ attempts: 5, retryFrom: 4 });
    expect(status(id).attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a notification deleted meanwhile is dead without a request', async () => {
    const other = fx.monitoring.notifications.createNotification('acme', { label: 'gone', type: 'webhook', details: { url: `${receiver.url}/gone` } });
    const id = fx.enqueue(other);
    fx.monitoring.notifications.deleteNotification('acme', other);
    start(fx.deliverer());
    await eventually('dead', () => status(id).item.status === 'dead');
    expect(status(id).item.lastError).toBe('notification deleted');
    expect(receiver.requests).toHaveLength(0);
  });

  it('a slow receiver times out (retryable) and the next attempt delivers', async () => {
    // The receiver never answers the first request, so only the timeout ends that attempt.
    receiver.script('hang', 200);
    const id = fx.enqueue();
    start(fx.deliverer({ attemptTimeoutMs: HUNG_ATTEMPT_TIMEOUT_MS }));
    await eventually('delivered', () => status(id).item.status === 'delivered', AFTER_TIMEOUT_WAIT_MS);
    expect(status(id).attempts.map((a) => [a.outcome, a.detail])).toEqual([
      ['failed', 'webhook request timed out'],
      ['delivered', 'webhook answered 200'],
    ]);
    expect(status(id).attempts[0]?.durationMs).toBeGreaterThanOrEqual(HUNG_ATTEMPT_TIMEOUT_MS - 10);
  });

  it('runs at most `concurrency` attempts at once and reports stats', async () => {
    receiver.script({ status: 200, delayMs: 30 });
    const ids = Array.from({ length: 12 }, () => fx.enqueue());
    const deliverer = fx.deliverer({ concurrency: 3 });
    expect(deliverer.stats()).toMatchObject({ pending: 12, delivered: 0, dead: 0 });
    start(deliverer);
    await eventually('all delivered', () => ids.every((id) => status(id).item.status === 'delivered'));
    expect(receiver.maxInFlight()).toBeLessThanOrEqual(3);
    expect(receiver.maxInFlight()).toBeGreaterThanOrEqual(2);
    expect(deliverer.stats()).toMatchObject({ pending: 0, delivered: 12, dead: 0, oldestPendingAgeMs: 0, overDepthEnqueues: 0 });
  });

  it('stop drops queued attempts, lets the running one finish and leaves the rest pending for the next start', async () => {
    receiver.script({ status: 200, delayMs: 150 });
    const ids = Array.from({ length: 4 }, () => fx.enqueue());
    const first = start(fx.deliverer({ concurrency: 1 }));
    await eventually('first request', () => receiver.requests.length === 1);
    await first.stop();
    expect(receiver.requests).toHaveLength(1);
    const after = ids.map((id) => status(id).item.status);
    expect(after.filter((s) => s === 'delivered')).toHaveLength(1);
    expect(after.filter((s) => s === 'pending')).toHaveLength(3);
    expect(fx.outbox.store.nextDueMs()).toBeDefined();
    receiver.script(200);
    start(fx.deliverer());
    await eventually('the rest delivered', () => ids.every((id) => status(id).item.status === 'delivered'));
    expect(receiver.requests).toHaveLength(4);
  });

  it('stop aborts a running attempt after its wait: nothing is recorded and the row is due at the next start', async () => {
    let aborted = 0;
    const waiting: Channel = {
      type: 'webhook',
      deliver: (_job, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => ((aborted += 1), resolve({ ok: false, retryable: true, error: 'aborted' })), { once: true })),
    };
    const id = fx.enqueue();
    const deliverer = start(fx.deliverer({ attemptTimeoutMs: 30_000 }, new Map([['webhook', waiting]])));
    await eventually('attempt claimed', () => fx.outbox.store.nextDueMs() === undefined && deliverer.stats().pending === 1);
    const started = performance.now();
    await deliverer.stop(50);
    expect(performance.now() - started).toBeLessThan(STOP_BOUND_MS);
    expect(aborted).toBe(1);
    expect(status(id).item).toMatchObject({ status: 'pending', attempts: 0 });
    expect(status(id).attempts).toEqual([]);
    expect(fx.outbox.store.nextDueMs()).toBeDefined();
  });

  it('stop gives up on a channel that ignores its signal, and the row stays pending', async () => {
    let calls = 0;
    const stuck: Channel = { type: 'webhook', deliver: () => ((calls += 1), new Promise(() => undefined)) };
    const id = fx.enqueue();
    const deliverer = start(fx.deliverer({ attemptTimeoutMs: 30_000 }, new Map([['webhook', stuck]])));
    await eventually('attempt started', () => calls === 1);
    await deliverer.stop(20);
    expect(status(id).item).toMatchObject({ status: 'pending', attempts: 0 });
    expect(fx.outbox.store.nextDueMs()).toBeDefined();
  });

  it('a restart resumes a pending retry: the row left with one attempt is delivered by a new process', async () => {
    receiver.script(500);
    const id = fx.enqueue();
    const first = start(fx.deliverer({ retryBaseMs: 300, retryMaxMs: 300 }));
    await eventually('first attempt recorded', () => status(id).item.attempts === 1);
    await first.stop();
    fx.monitoring.close();
    expect(receiver.requests).toHaveLength(1);
    receiver.script(200);
    fx = openFixture(dir, receiver, { notificationId: fx.notificationId, event: fx.event });
    expect(status(id).item).toMatchObject({ status: 'pending', attempts: 1 });
    start(fx.deliverer());
    await eventually('delivered after restart', () => status(id).item.status === 'delivered');
    expect(status(id).attempts.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'failed'], [2, 'delivered']]);
    expect(receiver.requests.map((r) => r.json.event_id)).toEqual([fx.event.event_id, fx.event.event_id]);
  });

  it('a crash during an attempt: the claimed row is due again at the next start (at least once)', async () => {
    receiver.script('hang', 200);
    const id = fx.enqueue();
    // A timeout far beyond the test: the dead process's attempt must not end (and be recorded) before the "crash".
    const crashed = start(fx.deliverer({ attemptTimeoutMs: 30_000 }));
    await eventually('request in flight', () => receiver.requests.length === 1);
    // The process dies mid-attempt: the file keeps the row claimed, nothing recorded.
    fx.monitoring.close();
    fx = openFixture(dir, receiver, { notificationId: fx.notificationId, event: fx.event });
    expect(status(id).item).toMatchObject({ status: 'pending', attempts: 0 });
    expect(fx.outbox.store.nextDueMs()).toBeUndefined();
    start(fx.deliverer());
    await eventually('delivered after the crash', () => status(id).item.status === 'delivered');
    expect(receiver.requests).toHaveLength(2);
    expect(fx.logger.lines.some((l) => l.msg.includes('due again') && l.obj['released'] === 1)).toBe(true);
    // Ends the dead process's hung attempt at once instead of waiting for its timeout.
    await crashed.stop(50);
  });
});
