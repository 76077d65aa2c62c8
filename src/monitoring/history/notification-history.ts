// Owns the notification history: one record per alarm change that had notifications to send, its deliveries and their attempts, kept for the history retention.
import type { Clock } from '../../core/clock.js';
import { configError } from '../../core/config-error.js';
import { OutboxStore, type AttemptRecord, type DeliveryItem } from '../delivery/outbox-store.js';
import { notFound } from '../monitoring-errors.js';
import {
  DELIVERY_ATTEMPTS_SHOWN_MAX,
  NOTIFICATION_HISTORY_CHECK_IDS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT,
  NOTIFICATION_HISTORY_RETENTION_MS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_MIN,
  NOTIFICATION_HISTORY_WINDOW_MS_DEFAULT,
} from '../monitoring-limits.js';
import type { MonitoringStore } from '../monitoring-store.js';
import { pageOf, type Page } from '../paging.js';
import { resolveWindow, type TimeSeriesRequest, type TimeWindow } from '../time-series.js';
import { HistoryStore, type HistoryRow, type HistoryScope } from './history-store.js';

export type { HistoryScope, HistoryStatus } from './history-store.js';

/** One history record as the alarm change writes it (id: the changelog entry's id). */
export type HistoryRecord = HistoryRow;

/** One queued delivery of a record: its outbox row and latest attempts, or undefined once the row is gone. */
export interface HistoryDelivery {
  readonly outboxId: string;
  readonly item: DeliveryItem | undefined;
  readonly attempts: readonly AttemptRecord[];
}

/** A record with its deliveries (in the order of the record's outboxIds). */
export interface HistoryEntry {
  readonly record: HistoryRecord;
  readonly deliveries: readonly HistoryDelivery[];
}

/** What the history is built from. */
export interface NotificationHistoryDeps {
  readonly store: MonitoringStore;
  readonly clock: Clock;
  /** How long records are kept (NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT). */
  readonly retentionMs?: number;
}

/** The retention asked for, or CONFIG_INVALID naming historyRetentionMs when outside the accepted range. */
function checkedRetention(retentionMs: number | undefined): number {
  const value = retentionMs ?? NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT;
  if (!Number.isSafeInteger(value) || value < NOTIFICATION_HISTORY_RETENTION_MS_MIN || value > NOTIFICATION_HISTORY_RETENTION_MS_MAX) {
    throw configError('historyRetentionMs', `an integer number of ms from ${NOTIFICATION_HISTORY_RETENTION_MS_MIN} (1 hour) to ${NOTIFICATION_HISTORY_RETENTION_MS_MAX} (366 days)`, value);
  }
  return value;
}

/**
 * The notification history of every tenant. A record is written in the alarm change's transaction
 * (alarm-commit.ts); its deliveries' outcomes are read from the outbox when the record is read, so
 * a record shows each attempt as soon as the deliverer has made it.
 */
export class NotificationHistory {
  /** How long records are kept; the suppression logs and finished outbox rows are kept as long. */
  readonly retentionMs: number;
  private readonly history: HistoryStore;
  private readonly outbox: OutboxStore;

  constructor(private readonly deps: NotificationHistoryDeps) {
    this.retentionMs = checkedRetention(deps.retentionMs);
    this.history = new HistoryStore(deps.store.db);
    this.outbox = new OutboxStore(deps.store.db);
  }

  /** Records a change's notifications; runs inside the caller's transaction (the alarm change's). */
  record(tenant: string, record: HistoryRecord): void {
    this.history.insert(tenant, record);
  }

  /** The window a read covers: `to` defaults to now, `from` to NOTIFICATION_HISTORY_WINDOW_MS_DEFAULT before `to`. */
  window(request: Pick<TimeSeriesRequest, 'fromMs' | 'toMs'>): TimeWindow {
    return resolveWindow(request, this.deps.clock.now(), NOTIFICATION_HISTORY_WINDOW_MS_DEFAULT);
  }

  /** Ids of the checks with records of the alarm within the retention, sorted (at most NOTIFICATION_HISTORY_CHECK_IDS_MAX). */
  checkIds(tenant: string, entityId: string, alarmId: string): string[] {
    return this.history.checkIds(tenant, entityId, alarmId, this.deps.clock.now() - this.retentionMs, NOTIFICATION_HISTORY_CHECK_IDS_MAX);
  }

  /** A page of the scope's records in the request's window, oldest first; a marker naming no record of the scope yields an empty page. */
  list(tenant: string, scope: HistoryScope, request: TimeSeriesRequest): Page<HistoryEntry> {
    const { fromMs, toMs } = this.window(request);
    let after: { timestampMs: number; id: string } | undefined;
    if (request.marker !== undefined) {
      const start = this.history.record(tenant, request.marker);
      if (start === undefined || !inScope(start, scope)) return { values: [], nextMarker: null };
      after = { timestampMs: start.timestampMs, id: start.id };
    }
    const rows = this.history.page(tenant, scope, { fromMs, toMs, limit: request.limit + 1, ...(after !== undefined ? { after } : {}) });
    const page = pageOf(rows, request.limit, (row) => row.id);
    return { values: page.values.map((row) => this.entryOf(tenant, row)), nextMarker: page.nextMarker };
  }

  /** One record of the scope with its deliveries; MONITORING_OBJECT_NOT_FOUND when the scope has none with this id. */
  entry(tenant: string, scope: HistoryScope, id: string): HistoryEntry {
    const row = this.history.record(tenant, id);
    if (row === undefined || !inScope(row, scope)) throw notFound('NotificationHistory', id);
    return this.entryOf(tenant, row);
  }

  /** Deletes up to `max` records (every tenant) older than `beforeMs`; returns how many (the retention upkeep's step). */
  prune(beforeMs: number, max: number): number {
    return this.history.pruneBefore(beforeMs, max);
  }

  private entryOf(tenant: string, record: HistoryRecord): HistoryEntry {
    const deliveries = record.outboxIds.map((outboxId) => {
      const item = this.outbox.item(tenant, outboxId);
      return { outboxId, item, attempts: item === undefined ? [] : this.outbox.attempts(tenant, outboxId, DELIVERY_ATTEMPTS_SHOWN_MAX) };
    });
    return { record, deliveries };
  }
}

function inScope(row: HistoryRow, scope: HistoryScope): boolean {
  return row.entityId === scope.entityId && row.alarmId === scope.alarmId && row.checkId === scope.checkId;
}
