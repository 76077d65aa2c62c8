// Owns the shapes of outbox rows and attempts, and turning SQLite rows into them.
import type { AlarmEventPayload } from './channel-types.js';

/** Where a delivery is: waiting to be sent (or being sent), sent, or given up. */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead';
/** The delivery statuses, for filters and schemas. */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];
/** What one attempt did. */
export type AttemptOutcome = 'delivered' | 'failed' | 'dead';

/** One delivery as lists show it (no event). */
export interface DeliveryItem {
  readonly tenant: string;
  readonly id: string;
  readonly notificationId: string;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly state: string;
  readonly status: DeliveryStatus;
  /** Attempts made, all rounds together. */
  readonly attempts: number;
  /** `attempts` at the last manual retry (0 if none): the retry budget counts from here. */
  readonly retryFrom: number;
  /** When the next attempt is due; null unless pending. */
  readonly nextAttemptMs: number | null;
  readonly lastError: string | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

/** A delivery with its payload, as the deliverer claims it. */
export interface DeliveryRow extends DeliveryItem {
  readonly event: AlarmEventPayload;
}

/** A new outbox row. */
export interface NewDelivery {
  readonly id: string;
  readonly notificationId: string;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly state: string;
  readonly event: AlarmEventPayload;
  readonly nowMs: number;
}

/** One recorded attempt. */
export interface AttemptRecord {
  readonly attempt: number;
  readonly txnId: string;
  readonly startedMs: number;
  readonly durationMs: number;
  readonly outcome: AttemptOutcome;
  readonly detail: string | null;
}

/** An attempt's effect on its delivery: the new status, when the next attempt is due, the error kept. */
export interface AttemptResult {
  readonly status: DeliveryStatus;
  readonly nextAttemptMs: number;
  readonly lastError: string | null;
  readonly nowMs: number;
}

/** A delivery's key. */
export interface DeliveryKey {
  readonly tenant: string;
  readonly id: string;
}

/** A mon_outbox row as SQLite returns it. */
export interface RawDelivery {
  tenant: string;
  id: string;
  notification_id: string;
  entity_id: string;
  alarm_id: string;
  check_id: string;
  state: string;
  status: DeliveryStatus;
  attempts: number;
  retry_from: number;
  next_attempt_ms: number;
  last_error: string | null;
  created_ms: number;
  updated_ms: number;
  event?: string;
}

/** A mon_delivery_attempt row as SQLite returns it. */
export interface RawAttempt {
  attempt: number;
  txn_id: string;
  started_ms: number;
  duration_ms: number;
  outcome: AttemptOutcome;
  detail: string | null;
}

/** A delivery from its row. */
export function toItem(row: RawDelivery): DeliveryItem {
  return {
    tenant: row.tenant,
    id: row.id,
    notificationId: row.notification_id,
    entityId: row.entity_id,
    alarmId: row.alarm_id,
    checkId: row.check_id,
    state: row.state,
    status: row.status,
    attempts: row.attempts,
    retryFrom: row.retry_from,
    nextAttemptMs: row.status === 'pending' ? row.next_attempt_ms : null,
    lastError: row.last_error,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
  };
}

/** An attempt from its row. */
export function toAttempt(row: RawAttempt): AttemptRecord {
  return { attempt: row.attempt, txnId: row.txn_id, startedMs: row.started_ms, durationMs: row.duration_ms, outcome: row.outcome, detail: row.detail };
}

/** The last_error of a delivery whose stored event cannot be read back. */
export const UNREADABLE_EVENT_ERROR = 'the stored event is not a JSON object';

/** A stored event, or undefined when it is not a JSON object. */
export function parseEvent(text: string | undefined): DeliveryRow['event'] | undefined {
  try {
    const event: unknown = JSON.parse(text ?? '');
    return typeof event === 'object' && event !== null && !Array.isArray(event) ? (event as DeliveryRow['event']) : undefined;
  } catch {
    return undefined;
  }
}
