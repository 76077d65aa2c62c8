// Checks the notification history over a real monitoring file: records by alarm and check, the window and paging (the list's own limit and row budget), one record with its deliveries and attempts (fewer in a list), the check ids, retention and pruning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../../src/core/time.js';
import {
  DELIVERY_ATTEMPTS_SHOWN_MAX,
  NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX,
  NOTIFICATION_HISTORY_LIST_LIMIT_MAX,
  NOTIFICATION_HISTORY_PAGE_ROWS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT,
  PLAN_STATE_NOTIFICATIONS_MAX,
  TIME_SERIES_WINDOW_MS_DEFAULT,
} from '../../../src/monitoring/monitoring-limits.js';
import { listRowsOf, NotificationHistory } from '../../../src/monitoring/history/notification-history.js';
import { sampleEvent } from '../delivery/channel-jobs.js';
import { HistoryWorld, NOW_MS, record } from './history-world.js';

const SCOPE = { entityId: 'enA', alarmId: 'alA', checkId: 'chA' };

describe('NotificationHistory', () => {
  let world: HistoryWorld;

  beforeEach(() => {
    world = new HistoryWorld();
  });
  afterEach(() => world.close());

  const ids = (values: readonly { record: { id: string } }[]) => values.map((entry) => entry.record.id);

  it('keeps every field of a record as written, and refuses a second record of the same change', () => {
    const written = record('u1', NOW_MS - 10, { status: 'suppressed', suppressions: ['spA', 'spB'], notificationIds: ['ntA', 'ntB'], previousState: null, message: 'ünïcode "quoted"' });
    world.add('t1', written);
    expect(world.monitoring.history.entry('t1', SCOPE, 'u1')).toEqual({ record: written, deliveries: [] });
    expect(() => world.add('t1', written)).toThrow();
  });

  it('lists the last 7 days by default, oldest first by (timestamp, id), one alarm and check of one tenant', () => {
    const window = TIME_SERIES_WINDOW_MS_DEFAULT;
    expect(window).toBe(7 * DAY_MS);
    world.add(
      't1',
      record('u-too-old', NOW_MS - window),
      record('u-b', NOW_MS - window + 1),
      record('u-a', NOW_MS - 5),
      record('u-c', NOW_MS - 5),
      record('u-now', NOW_MS),
      record('u-other-check', NOW_MS - 5, { checkId: 'chB' }),
      record('u-other-alarm', NOW_MS - 5, { alarmId: 'alB' }),
    );
    world.add('t2', record('u-other-tenant', NOW_MS - 5));
    const page = world.monitoring.history.list('t1', SCOPE, { limit: 100 });
    // `to` defaults to just after now: the window is [now + 1 - 7 days, now + 1), so a record of now is in it.
    expect(ids(page.values)).toEqual(['u-b', 'u-a', 'u-c', 'u-now']);
    expect(page.nextMarker).toBeNull();
    expect(ids(world.monitoring.history.list('t1', SCOPE, { limit: 100, fromMs: 0, toMs: NOW_MS + 1 }).values)).toEqual(['u-too-old', 'u-b', 'u-a', 'u-c', 'u-now']);
    expect(ids(world.monitoring.history.list('t2', SCOPE, { limit: 100 }).values)).toEqual(['u-other-tenant']);
  });

  it('pages with markers that name the first record of the next page; a marker of another scope is an empty page', () => {
    world.add('t1', record('u1', NOW_MS - 30), record('u2', NOW_MS - 20), record('u3', NOW_MS - 20), record('u4', NOW_MS - 10), record('x1', NOW_MS - 15, { checkId: 'chB' }));
    const first = world.monitoring.history.list('t1', SCOPE, { limit: 2 });
    expect(ids(first.values)).toEqual(['u1', 'u2']);
    expect(first.nextMarker).toBe('u3');
    const second = world.monitoring.history.list('t1', SCOPE, { limit: 2, marker: 'u3' });
    expect(ids(second.values)).toEqual(['u3', 'u4']);
    expect(second.nextMarker).toBeNull();
    expect(world.monitoring.history.list('t1', SCOPE, { limit: 2, marker: 'x1' })).toEqual({ values: [], nextMarker: null });
    expect(world.monitoring.history.list('t1', SCOPE, { limit: 2, marker: 'nothing' })).toEqual({ values: [], nextMarker: null });
    expect(() => world.monitoring.history.list('t1', SCOPE, { limit: 2, fromMs: NOW_MS, toMs: NOW_MS })).toThrow(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
  });

  it('finds one record only in its own tenant, alarm and check', () => {
    world.add('t1', record('u1', NOW_MS - 30));
    expect(world.monitoring.history.entry('t1', SCOPE, 'u1').record.id).toBe('u1');
    for (const [tenant, scope] of [
      ['t2', SCOPE],
      ['t1', { ...SCOPE, checkId: 'chB' }],
      ['t1', { ...SCOPE, alarmId: 'alB' }],
      ['t1', { ...SCOPE, entityId: 'enB' }],
    ] as const) {
      expect(() => world.monitoring.history.entry(tenant, scope, 'u1')).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    }
  });

  it('shows the outbox rows a record names with their latest attempts, and tells a pruned row', () => {
    const [delivered, pending] = world.monitoring.store.transaction(() =>
      ['ntA', 'ntB'].map((notificationId) => world.outbox.enqueue('t1', { notificationId, entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', event: sampleEvent({ tenant: 't1' }) })),
    ) as [string, string];
    const key = { tenant: 't1', id: delivered };
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS_SHOWN_MAX + 2; attempt++) {
      const last = attempt === DELIVERY_ATTEMPTS_SHOWN_MAX + 2;
      world.outbox.store.recordAttempt(
        key,
        { attempt, txnId: `.t${attempt}`, startedMs: NOW_MS + attempt, durationMs: 3, outcome: last ? 'delivered' : 'failed', detail: last ? 'webhook answered 200' : 'webhook answered 503' },
        { status: last ? 'delivered' : 'pending', nextAttemptMs: NOW_MS, lastError: last ? null : 'webhook answered 503', nowMs: NOW_MS + attempt },
      );
    }
    world.add('t1', record('u1', NOW_MS - 30, { notificationIds: ['ntA', 'ntB', 'ntC'], outboxIds: [delivered, pending, 'dlgone'] }));
    const entry = world.monitoring.history.entry('t1', SCOPE, 'u1');
    expect(entry.deliveries.map((d) => [d.outboxId, d.item?.status, d.attempts.length])).toEqual([
      [delivered, 'delivered', DELIVERY_ATTEMPTS_SHOWN_MAX],
      [pending, 'pending', 0],
      ['dlgone', undefined, 0],
    ]);
    // The latest attempts, oldest first.
    expect(entry.deliveries[0]?.attempts.at(-1)).toMatchObject({ attempt: DELIVERY_ATTEMPTS_SHOWN_MAX + 2, outcome: 'delivered', txnId: `.t${DELIVERY_ATTEMPTS_SHOWN_MAX + 2}` });
    expect(entry.deliveries[0]?.attempts[0]?.attempt).toBe(3);
    // Another tenant's outbox row is never shown, even when a record names its id.
    world.add('t2', record('u2', NOW_MS - 30, { outboxIds: [delivered] }));
    expect(world.monitoring.history.entry('t2', SCOPE, 'u2').deliveries[0]?.item).toBeUndefined();
    // A list shows fewer: the latest NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX, the count staying on the row.
    const listed = world.monitoring.history.list('t1', SCOPE, { limit: 10 }).values[0];
    expect(listed?.deliveries.map((d) => [d.item?.attempts, d.attempts.length, d.attempts[0]?.attempt, d.attempts.at(-1)?.attempt])).toEqual([
      [DELIVERY_ATTEMPTS_SHOWN_MAX + 2, NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX, DELIVERY_ATTEMPTS_SHOWN_MAX + 3 - NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX, DELIVERY_ATTEMPTS_SHOWN_MAX + 2],
      [0, 0, undefined, undefined],
      [undefined, 0, undefined, undefined],
    ]);
  });

  it('refuses a list page above NOTIFICATION_HISTORY_LIST_LIMIT_MAX records, and takes one at it', () => {
    expect(NOTIFICATION_HISTORY_LIST_LIMIT_MAX).toBe(100);
    world.add('t1', ...Array.from({ length: NOTIFICATION_HISTORY_LIST_LIMIT_MAX + 1 }, (_, i) => record(`u${String(i).padStart(3, '0')}`, NOW_MS - 1000 + i)));
    const full = world.monitoring.history.list('t1', SCOPE, { limit: NOTIFICATION_HISTORY_LIST_LIMIT_MAX });
    expect(full.values).toHaveLength(NOTIFICATION_HISTORY_LIST_LIMIT_MAX);
    expect(full.nextMarker).toBe(`u${NOTIFICATION_HISTORY_LIST_LIMIT_MAX}`);
    for (const limit of [NOTIFICATION_HISTORY_LIST_LIMIT_MAX + 1, 0, 1.5]) {
      expect(() => world.monitoring.history.list('t1', SCOPE, { limit })).toThrow(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
    }
  });

  it('stops a page early, with a marker, before a record whose deliveries would pass the row budget; a record of the largest plan always fits', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `dl${i}`);
    const perDelivery = 1 + NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX;
    expect(listRowsOf(record('x', 0, { outboxIds: many(3) }))).toBe(3 * perDelivery);
    expect(listRowsOf(record('x', 0, { outboxIds: many(PLAN_STATE_NOTIFICATIONS_MAX) }))).toBeLessThanOrEqual(NOTIFICATION_HISTORY_PAGE_ROWS_MAX);
    world.add('t1', record('a', NOW_MS - 40, { outboxIds: many(2) }), record('b', NOW_MS - 30, { outboxIds: many(2) }), record('c', NOW_MS - 20, { outboxIds: many(1) }), record('d', NOW_MS - 10, { outboxIds: many(5) }));
    const history = new NotificationHistory({ store: world.monitoring.store, clock: world.clock, pageRowsMax: 4 * perDelivery });
    const first = history.list('t1', SCOPE, { limit: 10 });
    expect([ids(first.values), first.nextMarker]).toEqual([['a', 'b'], 'c']);
    const second = history.list('t1', SCOPE, { limit: 10, marker: 'c' });
    expect([ids(second.values), second.nextMarker]).toEqual([['c'], 'd']);
    // Alone, a record over the budget is still shown: its own reads are bounded by the plan's list.
    const third = history.list('t1', SCOPE, { limit: 10, marker: 'd' });
    expect([ids(third.values), third.nextMarker]).toEqual([['d'], null]);
    // The default budget holds every record of a page of ordinary ones.
    expect(ids(world.monitoring.history.list('t1', SCOPE, { limit: 10 }).values)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lists the checks with records of the alarm within the retention, sorted (hand-made records: through the alarm commit an alarm has one)', () => {
    const retention = world.monitoring.history.retentionMs;
    expect(retention).toBe(NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT);
    world.add(
      't1',
      record('u1', NOW_MS - 5, { checkId: 'chZ' }),
      record('u2', NOW_MS - 5, { checkId: 'chB' }),
      record('u3', NOW_MS - 6, { checkId: 'chB' }),
      record('u4', NOW_MS - retention - 1, { checkId: 'chOld' }),
      record('u5', NOW_MS - retention, { checkId: 'chEdge' }),
      record('u6', NOW_MS - 5, { checkId: 'chOtherAlarm', alarmId: 'alB' }),
    );
    expect(world.monitoring.history.checkIds('t1', 'enA', 'alA')).toEqual(['chB', 'chEdge', 'chZ']);
    expect(world.monitoring.history.checkIds('t2', 'enA', 'alA')).toEqual([]);
  });

  it('prunes records older than the cut, every tenant, oldest first, at most max per call', () => {
    world.add('t1', record('u1', NOW_MS - 3 * DAY_MS), record('u2', NOW_MS - 2 * DAY_MS), record('u3', NOW_MS - DAY_MS));
    world.add('t2', record('v1', NOW_MS - 4 * DAY_MS));
    const history = world.monitoring.history;
    expect(history.prune(NOW_MS - DAY_MS, 2)).toBe(2);
    const all = (tenant: string) => ids(history.list(tenant, SCOPE, { limit: 100, fromMs: 0, toMs: NOW_MS }).values);
    expect(all('t2')).toEqual([]);
    expect(all('t1')).toEqual(['u2', 'u3']);
    expect(history.prune(NOW_MS - DAY_MS, 2)).toBe(1);
    expect(history.prune(NOW_MS - DAY_MS, 2)).toBe(0);
    expect(all('t1')).toEqual(['u3']);
  });

  it('takes a configured retention within an hour and 366 days, and refuses others', () => {
    const custom = new HistoryWorld({ historyRetentionMs: 2 * HOUR_MS });
    try {
      expect(custom.monitoring.history.retentionMs).toBe(2 * HOUR_MS);
    } finally {
      custom.close();
    }
    const store = world.monitoring.store;
    for (const retentionMs of [HOUR_MS - 1, 367 * DAY_MS, 1.5 * HOUR_MS + 0.5, Number.NaN]) {
      expect(() => new NotificationHistory({ store, clock: world.clock, retentionMs })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', details: expect.objectContaining({ option: 'historyRetentionMs' }) }));
    }
  });
});
