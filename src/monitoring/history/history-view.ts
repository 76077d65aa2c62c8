// Owns how a notification history record reads in the API: the reference's item with each notification's result, its attempt count and its latest attempts.
import { isStrataError } from '../../core/errors.js';
import type { AttemptRecord } from '../delivery/outbox-store.js';
import type { NotificationService } from '../notification-service.js';
import type { HistoryDelivery, HistoryEntry } from './notification-history.js';

/** What a history item shows of a notification: its type, its details as reads show them, and where it goes. */
export interface NotificationInfo {
  readonly type: string;
  /** Details with every secret redacted (as GET /notifications/{id} shows them). */
  readonly details: Readonly<Record<string, string>>;
  /** Where deliveries go, never a secret (notificationTarget); null when the type names no place. */
  readonly target: string | null;
}

/** The notification of an id as it is now, or undefined when it was deleted. */
export type NotificationLookup = (notificationId: string) => NotificationInfo | undefined;

/** The host (and port) of an http(s) URL, without user info, path or query; null for anything else. */
function urlHost(text: string | undefined): string | null {
  if (text === undefined) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}

/**
 * Where a notification's deliveries go, shown without any secret: a webhook's URL host (its path
 * and query may hold a token, so they are never shown), an email address, a phone number, an
 * incidentA endpoint's host, an eventFeed category; null for types that name no place (incidentB,
 * managed, technicalContactsEmail, and incidentA on the default endpoint).
 */
export function notificationTarget(type: string, details: Readonly<Record<string, string>>): string | null {
  switch (type) {
    case 'webhook':
      return urlHost(details['url']);
    case 'email':
      return details['address'] ?? null;
    case 'sms':
      return details['phone_number'] ?? null;
    case 'incidentA':
      return urlHost(details['service_endpoint']);
    case 'eventFeed':
      return details['category'] ?? null;
    default:
      return null;
  }
}

/**
 * The lookup of a tenant's notifications for one read (each read once, then remembered): the type
 * and redacted details as GET /notifications/{id} shows them, and the target, for which a webhook's
 * URL is decrypted only to take its host. Undefined for a deleted notification; a secret that does
 * not decrypt leaves the target null.
 */
export function notificationLookup(notifications: Pick<NotificationService, 'notification' | 'notificationWithSecrets'>, tenant: string): NotificationLookup {
  const seen = new Map<string, NotificationInfo | undefined>();
  const read = (id: string): NotificationInfo | undefined => {
    let shown;
    try {
      shown = notifications.notification(tenant, id);
    } catch (error) {
      if (isStrataError(error) && error.code === 'MONITORING_OBJECT_NOT_FOUND') return undefined;
      throw error;
    }
    const { type, details } = shown.doc;
    let target: string | null = null;
    try {
      target = notificationTarget(type, type === 'webhook' ? notifications.notificationWithSecrets(tenant, id).doc.details : details);
    } catch (error) {
      if (!isStrataError(error)) throw error;
    }
    return { type, details, target };
  };
  return (id) => {
    if (!seen.has(id)) seen.set(id, read(id));
    return seen.get(id);
  };
}

/** One attempt as a history item shows it. */
export function historyAttemptView(attempt: AttemptRecord): Record<string, unknown> {
  return {
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    message: attempt.detail,
    started_at: attempt.startedMs,
    duration_ms: attempt.durationMs,
    transaction_id: attempt.txnId,
  };
}

/** The notification's part of a result: id, type, details and target (nulls once the notification is deleted). */
function notificationPart(notificationId: string, lookup: NotificationLookup): Record<string, unknown> {
  const info = lookup(notificationId);
  return {
    notification_id: notificationId,
    notification_type: info?.type ?? null,
    notification_details: info?.details ?? null,
    target: info?.target ?? null,
  };
}

/** Where a queued delivery stands, in words: the reference's "Success: ..." or "Notification failed after N attempts". */
function deliveryOutcome(delivery: HistoryDelivery): { inProgress: boolean; success: boolean; message: string } {
  const item = delivery.item;
  if (item === undefined) return { inProgress: false, success: false, message: 'The delivery record is no longer kept' };
  const last = delivery.attempts[delivery.attempts.length - 1];
  switch (item.status) {
    case 'delivered':
      return { inProgress: false, success: true, message: `Success: ${last?.detail ?? 'delivered'}` };
    case 'dead':
      return { inProgress: false, success: false, message: `Notification failed after ${item.attempts} attempts: ${item.lastError ?? 'unknown error'}` };
    default:
      if (item.attempts === 0) return { inProgress: true, success: false, message: 'Waiting for the first attempt' };
      return { inProgress: true, success: false, message: `Attempt ${item.attempts} failed: ${item.lastError ?? 'unknown error'}; retrying` };
  }
}

/**
 * A delivery's attempts as a result shows them: how many were made (`attempt_count`), the latest
 * ones read, oldest first (`attempts`), and whether older ones were left out (`attempts_truncated`).
 */
export function attemptsPart(delivery: Pick<HistoryDelivery, 'item' | 'attempts'>): Record<string, unknown> {
  const count = Math.max(delivery.item?.attempts ?? 0, delivery.attempts.length);
  return { attempt_count: count, attempts_truncated: count > delivery.attempts.length, attempts: delivery.attempts.map(historyAttemptView) };
}

/** The results of a notified record: one per queued delivery, with its attempt count and latest attempts. */
function notifiedResults(entry: HistoryEntry, lookup: NotificationLookup): Record<string, unknown>[] {
  return entry.deliveries.map((delivery, index) => {
    const notificationId = delivery.item?.notificationId ?? entry.record.notificationIds[index] ?? '';
    const outcome = deliveryOutcome(delivery);
    return {
      ...notificationPart(notificationId, lookup),
      suppressed: false,
      in_progress: outcome.inProgress,
      success: outcome.success,
      message: outcome.message,
      delivery_id: delivery.outboxId,
      ...attemptsPart(delivery),
    };
  });
}

/** The results of a suppressed record: one per notification the suppressions stopped, no delivery and no attempt. */
function suppressedResults(entry: HistoryEntry, lookup: NotificationLookup): Record<string, unknown>[] {
  const by = (entry.record.suppressions ?? []).join(', ');
  return entry.record.notificationIds.map((notificationId) => ({
    ...notificationPart(notificationId, lookup),
    suppressed: true,
    in_progress: false,
    success: false,
    message: `Suppressed by ${by}`,
    delivery_id: null,
    ...attemptsPart({ item: undefined, attempts: [] }),
  }));
}

/** A history item (reference shape plus `suppressed`, `suppressions` and per-result delivery ids, attempt counts and the attempts the read took). */
export function historyItemView(entry: HistoryEntry, lookup: NotificationLookup): Record<string, unknown> {
  const { record } = entry;
  const results = record.status === 'notified' ? notifiedResults(entry, lookup) : record.status === 'suppressed' ? suppressedResults(entry, lookup) : [];
  return {
    id: record.id,
    timestamp: record.timestampMs,
    notification_plan_id: record.planId,
    transaction_id: record.txnId,
    status: record.message,
    state: record.state,
    previous_state: record.previousState,
    suppressed: record.status === 'suppressed',
    suppressions: record.suppressions,
    notification_results: results,
  };
}
