// Checks how history items read: the reference's fields, each delivery's result, attempt count and attempts (cut attempts said so), suppressed and none records, targets without secrets, and the notification lookup.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { REDACTED_SECRET } from '../../../src/monitoring/detail-secrets.js';
import type { AttemptRecord, DeliveryItem } from '../../../src/monitoring/delivery/outbox-store.js';
import { attemptsPart, historyAttemptView, historyItemView, notificationLookup, notificationTarget, type NotificationLookup } from '../../../src/monitoring/history/history-view.js';
import type { HistoryDelivery, HistoryEntry } from '../../../src/monitoring/history/notification-history.js';
import { openMonitoring } from '../../../src/monitoring/monitoring-service.js';
import { NOW_MS, record } from './history-world.js';

const ITEM_KEYS = ['id', 'notification_plan_id', 'notification_results', 'previous_state', 'state', 'status', 'suppressed', 'suppressions', 'timestamp', 'transaction_id'];
const RESULT_KEYS = ['attempt_count', 'attempts', 'attempts_truncated', 'delivery_id', 'in_progress', 'message', 'notification_details', 'notification_id', 'notification_type', 'success', 'suppressed', 'target'];

function item(id: string, status: DeliveryItem['status'], attempts: number, lastError: string | null): DeliveryItem {
  return {
    tenant: 't1',
    id,
    notificationId: `nt-${id}`,
    entityId: 'enA',
    alarmId: 'alA',
    checkId: 'chA',
    state: 'CRITICAL',
    status,
    attempts,
    retryFrom: 0,
    nextAttemptMs: status === 'pending' ? NOW_MS : null,
    lastError,
    createdMs: NOW_MS,
    updatedMs: NOW_MS,
  };
}

function attempt(n: number, outcome: AttemptRecord['outcome'], detail: string): AttemptRecord {
  return { attempt: n, txnId: `.txn-${n}`, startedMs: NOW_MS + n * 1000, durationMs: 12, outcome, detail };
}

const lookup: NotificationLookup = (id) => (id === 'nt-gone' ? undefined : { type: 'webhook', details: { url: REDACTED_SECRET }, target: `${id}.example.com` });

describe('historyItemView', () => {
  it('shows a notified record with one result per delivery: success, failure after retries, in progress, and a pruned row', () => {
    const deliveries: HistoryDelivery[] = [
      { outboxId: 'ok', item: item('ok', 'delivered', 2, null), attempts: [attempt(1, 'failed', 'webhook answered 503'), attempt(2, 'delivered', 'webhook answered 200')] },
      { outboxId: 'dead', item: item('dead', 'dead', 3, 'webhook unreachable (ECONNREFUSED)'), attempts: [1, 2, 3].map((n) => attempt(n, n === 3 ? 'dead' : 'failed', 'webhook unreachable (ECONNREFUSED)')) },
      { outboxId: 'wait', item: item('wait', 'pending', 0, null), attempts: [] },
      { outboxId: 'retry', item: item('retry', 'pending', 1, 'webhook answered 429'), attempts: [attempt(1, 'failed', 'webhook answered 429')] },
      { outboxId: 'gone', item: undefined, attempts: [] },
    ];
    const entry: HistoryEntry = { record: record('u1', NOW_MS, { notificationIds: ['nt-ok', 'nt-dead', 'nt-wait', 'nt-retry', 'nt-gone'], outboxIds: deliveries.map((d) => d.outboxId) }), deliveries };
    const view = historyItemView(entry, lookup) as Record<string, any>;
    expect(Object.keys(view).sort()).toEqual(ITEM_KEYS);
    expect(view).toMatchObject({ id: 'u1', timestamp: NOW_MS, notification_plan_id: 'npA', transaction_id: 'txn.u1', status: 'HTTP 503', state: 'CRITICAL', previous_state: 'OK', suppressed: false, suppressions: null });
    const results = view['notification_results'] as Record<string, any>[];
    for (const result of results) expect(Object.keys(result).sort()).toEqual(RESULT_KEYS);
    expect(results.map((r) => [r.notification_id, r.in_progress, r.success, r.message, r.delivery_id, r.attempts.length])).toEqual([
      ['nt-ok', false, true, 'Success: webhook answered 200', 'ok', 2],
      ['nt-dead', false, false, 'Notification failed after 3 attempts: webhook unreachable (ECONNREFUSED)', 'dead', 3],
      ['nt-wait', true, false, 'Waiting for the first attempt', 'wait', 0],
      ['nt-retry', true, false, 'Attempt 1 failed: webhook answered 429; retrying', 'retry', 1],
      ['nt-gone', false, false, 'The delivery record is no longer kept', 'gone', 0],
    ]);
    // Every attempt was read: the counts match and nothing is said to be cut.
    expect(results.map((r) => [r.attempt_count, r.attempts_truncated])).toEqual([
      [2, false],
      [3, false],
      [0, false],
      [1, false],
      [0, false],
    ]);
    expect(results[0]).toMatchObject({ notification_type: 'webhook', notification_details: { url: REDACTED_SECRET }, target: 'nt-ok.example.com', suppressed: false });
    expect(results[4]).toMatchObject({ notification_type: null, notification_details: null, target: null });
    expect(results[0]?.attempts).toEqual([
      { attempt: 1, outcome: 'failed', message: 'webhook answered 503', started_at: NOW_MS + 1000, duration_ms: 12, transaction_id: '.txn-1' },
      { attempt: 2, outcome: 'delivered', message: 'webhook answered 200', started_at: NOW_MS + 2000, duration_ms: 12, transaction_id: '.txn-2' },
    ]);
  });

  it('shows a suppressed record with one suppressed result per planned notification and no attempts; a none record with none', () => {
    const suppressed = historyItemView({ record: record('u2', NOW_MS, { status: 'suppressed', suppressions: ['spA', 'spB'], notificationIds: ['nt-a', 'nt-b'] }), deliveries: [] }, lookup) as Record<string, any>;
    expect(suppressed).toMatchObject({ suppressed: true, suppressions: ['spA', 'spB'] });
    expect(suppressed['notification_results']).toEqual(
      ['nt-a', 'nt-b'].map((id) => ({
        notification_id: id,
        notification_type: 'webhook',
        notification_details: { url: REDACTED_SECRET },
        target: `${id}.example.com`,
        suppressed: true,
        in_progress: false,
        success: false,
        message: 'Suppressed by spA, spB',
        delivery_id: null,
        attempt_count: 0,
        attempts_truncated: false,
        attempts: [],
      })),
    );
    const none = historyItemView({ record: record('u3', NOW_MS, { status: 'none', previousState: null }), deliveries: [] }, lookup);
    expect(none).toMatchObject({ suppressed: false, suppressions: null, notification_results: [], previous_state: null });
  });
});

describe('attemptsPart', () => {
  it('says when older attempts were left out: the count from the outbox row, the latest attempts read, truncated when fewer', () => {
    const latest = [11, 12].map((n) => attempt(n, n === 12 ? 'delivered' : 'failed', 'webhook answered 503'));
    expect(attemptsPart({ item: item('many', 'delivered', 12, null), attempts: latest })).toEqual({ attempt_count: 12, attempts_truncated: true, attempts: latest.map(historyAttemptView) });
    expect(attemptsPart({ item: item('all', 'delivered', 2, null), attempts: latest })).toMatchObject({ attempt_count: 2, attempts_truncated: false });
    expect(attemptsPart({ item: undefined, attempts: [] })).toEqual({ attempt_count: 0, attempts_truncated: false, attempts: [] });
    const view = historyItemView({ record: record('u4', NOW_MS, { notificationIds: ['nt-many'], outboxIds: ['many'] }), deliveries: [{ outboxId: 'many', item: item('many', 'delivered', 12, null), attempts: latest }] }, lookup) as Record<string, any>;
    expect(view['notification_results'][0]).toMatchObject({ attempt_count: 12, attempts_truncated: true, success: true, message: 'Success: webhook answered 503' });
    expect(view['notification_results'][0].attempts.map((a: any) => a.attempt)).toEqual([11, 12]);
  });
});

describe('notificationTarget', () => {
  it('shows where a notification goes without any secret', () => {
    expect(notificationTarget('webhook', { url: 'https://user:pw@hooks.example.com:8443/t/SECRET?token=SECRET' })).toBe('hooks.example.com:8443');
    expect(notificationTarget('webhook', { url: 'not a url' })).toBeNull();
    expect(notificationTarget('webhook', { url: 'ftp://files.example.com/' })).toBeNull();
    expect(notificationTarget('email', { address: 'ops@example.com' })).toBe('ops@example.com');
    expect(notificationTarget('sms', { phone_number: '+15551234567' })).toBe('+15551234567');
    expect(notificationTarget('incidentA', { service_key: 'abc', service_endpoint: 'https://events.example.com/v1?k=1' })).toBe('events.example.com');
    expect(notificationTarget('incidentA', { service_key: 'abc' })).toBeNull();
    expect(notificationTarget('incidentB', { api_key: 'k' })).toBeNull();
    expect(notificationTarget('eventFeed', { category: 'ops' })).toBe('ops');
    expect(notificationTarget('managed', {})).toBeNull();
    expect(notificationTarget('technicalContactsEmail', {})).toBeNull();
  });
});

describe('notificationLookup', () => {
  it("reads a tenant's notifications redacted, with the webhook's host as target, once each; undefined once deleted", () => {
    const monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(NOW_MS) });
    try {
      const hook = monitoring.notifications.createNotification('t1', { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/path/SECRET-TOKEN' } });
      const mail = monitoring.notifications.createNotification('t1', { label: 'mail', type: 'email', details: { address: 'ops@example.com' } });
      let reads = 0;
      const counted = {
        notification: (tenant: string, id: string) => (reads++, monitoring.notifications.notification(tenant, id)),
        notificationWithSecrets: (tenant: string, id: string) => monitoring.notifications.notificationWithSecrets(tenant, id),
      };
      const find = notificationLookup(counted, 't1');
      expect(find(hook)).toEqual({ type: 'webhook', details: { url: REDACTED_SECRET }, target: 'hooks.example.com' });
      expect(find(hook)).toEqual({ type: 'webhook', details: { url: REDACTED_SECRET }, target: 'hooks.example.com' });
      expect(reads).toBe(1);
      expect(find(mail)).toEqual({ type: 'email', details: { address: 'ops@example.com' }, target: 'ops@example.com' });
      expect(find('ntMissing')).toBeUndefined();
      expect(notificationLookup(monitoring.notifications, 't2')(hook)).toBeUndefined();
      expect(JSON.stringify(find(hook))).not.toContain('SECRET-TOKEN');
    } finally {
      monitoring.close();
    }
  });
});
