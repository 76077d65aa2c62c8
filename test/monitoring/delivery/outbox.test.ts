// Owns the outbox tests on a real SQLite file: enqueue inside transactions, listing and tenant isolation, claims, retry, upkeep and the depth limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { DAY_MS } from '../../../src/core/time.js';
import { DeliveryIds, EXPIRED_ERROR, Outbox, type OutboxEntry } from '../../../src/monitoring/delivery/outbox.js';
import { UNREADABLE_EVENT_ERROR } from '../../../src/monitoring/delivery/outbox-store.js';
import {
  DELIVERY_ATTEMPTS_SHOWN_MAX,
  OUTBOX_DEPTH_CHECK_EVERY,
  OUTBOX_FINISHED_RETENTION_MS,
  OUTBOX_PENDING_AGE_MAX_MS,
  OUTBOX_PENDING_MAX,
  OUTBOX_PRUNE_BATCH_MAX,
} from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { sampleEvent } from './channel-jobs.js';
import { memoryLogger } from './delivery-fixture.js';

const T0 = 1_700_000_000_000;

function entry(n = 1): OutboxEntry {
  return { notificationId: `nt${n}`, entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', event: sampleEvent() };
}

describe('Outbox', () => {
  let dir: string;
  let clock: ManualClock;
  let monitoring: MonitoringService;
  let logger: ReturnType<typeof memoryLogger>;
  let outbox: Outbox;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-outbox-'));
    clock = new ManualClock(T0);
    monitoring = openMonitoring({ dir, clock });
    logger = memoryLogger();
    outbox = new Outbox({ db: monitoring.store.db, clock, logger });
  });
  afterEach(() => {
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('enqueues inside the caller transaction: a rollback leaves no row, a commit one pending row due now', () => {
    let told = 0;
    outbox.onReady(() => (told += 1));
    expect(() =>
      monitoring.store.transaction(() => {
        outbox.enqueue('acme', entry());
        throw new Error('the alarm change failed');
      }),
    ).toThrow('the alarm change failed');
    expect(outbox.list('acme', { limit: 10 }).values).toHaveLength(0);
    const id = monitoring.store.transaction(() => outbox.enqueue('acme', entry()));
    expect(told).toBe(2);
    const { item, attempts } = outbox.delivery('acme', id);
    expect(item).toMatchObject({ id, notificationId: 'nt1', entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', status: 'pending', attempts: 0 });
    expect(item).toMatchObject({ nextAttemptMs: T0, lastError: null, createdMs: T0, updatedMs: T0 });
    expect(attempts).toEqual([]);
    expect(outbox.store.claimDue(T0, 10)[0]?.event).toEqual(sampleEvent());
  });

  it('ids sort by enqueue time; lists page by id and filter by status; other tenants see nothing', () => {
    const ids: string[] = [];
    // Several enqueues per millisecond: ids still follow the enqueue order.
    for (let i = 0; i < 5; i += 1) {
      ids.push(outbox.enqueue('acme', entry(i)));
      if (i % 2 === 1) clock.advance(1);
    }
    outbox.enqueue('other', entry(9));
    expect([...ids].sort()).toEqual(ids);
    const made = new DeliveryIds();
    const burst = [made.next(T0), made.next(T0), made.next(T0), made.next(T0 - 5), made.next(T0 + 1)];
    for (const id of burst) expect(id).toMatch(/^dl[0-9a-z]{9}[0-9a-z]{3}[A-Za-z0-9_-]{8}$/);
    expect([...burst].sort()).toEqual(burst);
    // Ids of one millisecond, many more than a sequence holds, still sort in the order they were made.
    const many = Array.from({ length: 50_000 }, () => made.next(T0 + 2));
    expect(many.every((id, i) => i === 0 || (many[i - 1] as string) < id)).toBe(true);
    const first = outbox.list('acme', { limit: 2 });
    expect(first.values.map((item) => item.id)).toEqual(ids.slice(0, 2));
    expect(first.nextMarker).toBe(ids[2]);
    const second = outbox.list('acme', { limit: 10, marker: first.nextMarker as string });
    expect(second.values.map((item) => item.id)).toEqual(ids.slice(2));
    expect(second.nextMarker).toBeNull();
    // Make one dead: claim it and record a refused attempt.
    outbox.store.claimDue(clock.now(), 1);
    outbox.store.recordAttempt({ tenant: 'acme', id: ids[0] as string }, { attempt: 1, txnId: 'tx1', startedMs: T0, durationMs: 3, outcome: 'dead', detail: 'webhook answered 404' }, { status: 'dead', nextAttemptMs: T0, lastError: 'webhook answered 404', nowMs: T0 });
    expect(outbox.list('acme', { limit: 10 }, 'dead').values.map((item) => item.id)).toEqual([ids[0]]);
    expect(outbox.list('acme', { limit: 10 }, 'pending').values).toHaveLength(4);
    expect(outbox.list('acme', { limit: 10 }, 'delivered').values).toHaveLength(0);
    expect(() => outbox.delivery('other', ids[0] as string)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    expect(() => outbox.retry('other', ids[0] as string)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    expect(outbox.list('other', { limit: 10 }).values).toHaveLength(1);
  });

  it('claims due rows soonest first, never twice, and releases claims', () => {
    const a = outbox.enqueue('acme', entry(1));
    clock.advance(10);
    const b = outbox.enqueue('acme', entry(2));
    expect(outbox.store.claimDue(T0 - 1, 10)).toHaveLength(0);
    expect(outbox.store.claimDue(clock.now(), 1).map((row) => row.id)).toEqual([a]);
    expect(outbox.store.claimDue(clock.now(), 10).map((row) => row.id)).toEqual([b]);
    expect(outbox.store.claimDue(clock.now(), 10)).toHaveLength(0);
    expect(outbox.store.nextDueMs()).toBeUndefined();
    expect(outbox.store.releaseAll()).toBe(2);
    expect(outbox.store.nextDueMs()).toBe(T0);
    expect(outbox.store.claimDue(clock.now(), 10).map((row) => row.id)).toEqual([a, b]);
  });

  it('a row whose stored event does not parse is made dead, not claimed, and the rows behind it still are', () => {
    const bad = outbox.enqueue('acme', entry(1));
    const good = outbox.enqueue('acme', entry(2));
    monitoring.store.db.prepare('UPDATE mon_outbox SET event = ? WHERE id = ?').run('{"cut', bad);
    expect(outbox.store.claimDue(clock.now(), 10).map((row) => row.id)).toEqual([good]);
    expect(outbox.delivery('acme', bad).item).toMatchObject({ status: 'dead', lastError: UNREADABLE_EVENT_ERROR });
  });

  it('retries only dead deliveries: pending again, due now, with a fresh budget', () => {
    const id = outbox.enqueue('acme', entry());
    expect(() => outbox.retry('acme', id)).toThrow(expect.objectContaining({ code: 'MONITORING_DELIVERY_NOT_DEAD', kind: 'invalid' }));
    outbox.store.claimDue(clock.now(), 1);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const last = attempt === 3;
      outbox.store.recordAttempt(
        { tenant: 'acme', id },
        { attempt, txnId: `tx${attempt}`, startedMs: clock.now(), durationMs: 2, outcome: last ? 'dead' : 'failed', detail: 'webhook answered 500' },
        { status: last ? 'dead' : 'pending', nextAttemptMs: clock.now(), lastError: 'webhook answered 500', nowMs: clock.now() },
      );
    }
    clock.advance(1000);
    let told = 0;
    outbox.onReady(() => (told += 1));
    outbox.retry('acme', id);
    expect(told).toBe(1);
    const { item, attempts } = outbox.delivery('acme', id);
    expect(item).toMatchObject({ status: 'pending', attempts: 3, retryFrom: 3, nextAttemptMs: T0 + 1000, updatedMs: T0 + 1000 });
    expect(attempts.map((a) => [a.attempt, a.outcome, a.txnId])).toEqual([[1, 'failed', 'tx1'], [2, 'failed', 'tx2'], [3, 'dead', 'tx3']]);
    expect(() => outbox.retry('acme', id)).toThrow(expect.objectContaining({ code: 'MONITORING_DELIVERY_NOT_DEAD' }));
  });

  it('shows the latest attempts only, oldest first', () => {
    const id = outbox.enqueue('acme', entry());
    const extra = 7;
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS_SHOWN_MAX + extra; attempt += 1) {
      outbox.store.recordAttempt({ tenant: 'acme', id }, { attempt, txnId: `tx${attempt}`, startedMs: T0, durationMs: 1, outcome: 'failed', detail: 'x' }, { status: 'pending', nextAttemptMs: T0, lastError: 'x', nowMs: T0 });
    }
    const { item, attempts } = outbox.delivery('acme', id);
    expect(item.attempts).toBe(DELIVERY_ATTEMPTS_SHOWN_MAX + extra);
    expect(attempts).toHaveLength(DELIVERY_ATTEMPTS_SHOWN_MAX);
    expect(attempts[0]?.attempt).toBe(extra + 1);
    expect(attempts.at(-1)?.attempt).toBe(DELIVERY_ATTEMPTS_SHOWN_MAX + extra);
  });

  it('upkeep prunes finished deliveries past retention in bounded steps and expires old pending ones', () => {
    const finish = (id: string, status: 'delivered' | 'dead') => {
      outbox.store.recordAttempt({ tenant: 'acme', id }, { attempt: 1, txnId: 'tx', startedMs: clock.now(), durationMs: 1, outcome: status, detail: 'd' }, { status, nextAttemptMs: clock.now(), lastError: null, nowMs: clock.now() });
    };
    const old: string[] = [];
    monitoring.store.transaction(() => {
      for (let i = 0; i < OUTBOX_PRUNE_BATCH_MAX + 20; i += 1) {
        const id = outbox.enqueue('acme', entry(i));
        finish(id, i % 2 === 0 ? 'delivered' : 'dead');
        old.push(id);
      }
    });
    const stale = outbox.enqueue('acme', entry(1000));
    const claimedStale = outbox.enqueue('acme', entry(1001));
    outbox.store.claimDue(clock.now(), 0);
    clock.advance(OUTBOX_PENDING_AGE_MAX_MS + 1);
    const fresh = outbox.enqueue('acme', entry(1002));
    const kept = outbox.enqueue('acme', entry(1003));
    finish(kept, 'delivered');
    // Claim claimedStale only: it is in flight, so expiry leaves it alone.
    const claimed = outbox.store.claimDue(clock.now(), 2).map((row) => row.id);
    expect(claimed).toEqual([stale, claimedStale]);
    outbox.store.release({ tenant: 'acme', id: stale });

    expect(outbox.upkeep()).toEqual({ pruned: 0, expired: 1 });
    expect(outbox.delivery('acme', stale).item).toMatchObject({ status: 'dead', lastError: EXPIRED_ERROR, nextAttemptMs: null });
    expect(outbox.delivery('acme', claimedStale).item.status).toBe('pending');
    expect(outbox.delivery('acme', fresh).item.status).toBe('pending');
    expect(logger.lines.some((line) => line.level === 'warn' && line.msg.includes('expired'))).toBe(true);

    clock.advance(OUTBOX_FINISHED_RETENTION_MS - OUTBOX_PENDING_AGE_MAX_MS);
    expect(outbox.upkeep().pruned).toBe(OUTBOX_PRUNE_BATCH_MAX);
    expect(outbox.upkeep().pruned).toBe(20);
    expect(outbox.upkeep().pruned).toBe(0);
    for (const id of old) expect(outbox.store.item('acme', id)).toBeUndefined();
    expect(outbox.store.attempts('acme', old[0] as string, 10)).toEqual([]);
    // The expired one is dead since OUTBOX_PENDING_AGE_MAX_MS later, and the kept delivery is recent: both stay.
    expect(outbox.delivery('acme', stale).item.status).toBe('dead');
    expect(outbox.delivery('acme', kept).item.status).toBe('delivered');
    clock.advance(2 * DAY_MS);
    expect(outbox.upkeep().pruned).toBe(2);
  });

  it(`over ${OUTBOX_PENDING_MAX} pending deliveries an enqueue is still recorded, counted and logged`, () => {
    const started = performance.now();
    // A tiny event keeps the fill quick: the depth counts rows, whatever they hold.
    const tiny = { ...entry(), event: { event_id: 'e', log_entry_id: 'l', tenant_id: 'bulk' } };
    monitoring.store.transaction(() => {
      for (let i = 0; i <= OUTBOX_PENDING_MAX; i += 1) outbox.store.insert('bulk', { ...tiny, id: `dl${String(i).padStart(17, '0')}`, nowMs: T0 });
    });
    const fillMs = performance.now() - started;
    expect(outbox.overDepthCount).toBe(0);
    const ids = [];
    for (let i = 0; i < OUTBOX_DEPTH_CHECK_EVERY; i += 1) ids.push(outbox.enqueue('acme', entry(i)));
    expect(outbox.overDepthCount).toBe(OUTBOX_DEPTH_CHECK_EVERY);
    for (const id of ids) expect(outbox.delivery('acme', id).item.status).toBe('pending');
    expect(logger.lines.filter((line) => line.msg.includes('over its depth'))).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toContain('webhook-token');
    expect(fillMs).toBeLessThan(10_000);
  });
});
