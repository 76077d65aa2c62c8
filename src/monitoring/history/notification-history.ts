// Owns the notification history: one record per alarm change that had notifications to send, its deliveries and their attempts, kept for the history retention.
import type { Clock } from '../../core/clock.js';
import { OutboxStore, type AttemptRecord, type DeliveryItem } from '../delivery/outbox-store.js';
import { fieldError, notFound } from '../monitoring-errors.js';
import {
  DELIVERY_ATTEMPTS_SHOWN_MAX,
  NOTIFICATION_HISTORY_CHECK_IDS_MAX,
  NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX,
  NOTIFICATION_HISTORY_LIST_LIMIT_MAX,
  NOTIFICATION_HISTORY_PAGE_ROWS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT,
  NOTIFICATION_HISTORY_RETENTION_MS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_MIN,
  TIME_SERIES_WINDOW_MS_DEFAULT,
} from '../monitoring-limits.js';
import type { MonitoringStore } from '../monitoring-store.js';
import type { Page } from '../paging.js';
import { resolveRetention, type RetentionRange } from '../retention-rule.js';
import { resolveWindow, seriesRows, type TimeSeriesRequest, type TimeWindow } from '../time-series.js';
import { budgetedPage } from './history-page.js';
import { HistoryStore, type HistoryRow, type HistoryScope } from './history-store.js';

export type { HistoryScope, HistoryStatus } from './history-store.js';

/** One history record as the alarm change writes it (id: the changelog entry's id). */
export type HistoryRecord = HistoryRow;

/** One queued delivery of a record: its outbox row (undefined once the row is gone) and its latest attempts, oldest first. */
export interface HistoryDelivery {
  readonly outboxId: string;
  /** The outbox row; its `attempts` counts every attempt made, shown or not. */
  readonly item: DeliveryItem | undefined;
  /** The latest attempts (at most the read's bound: fewer than `item.attempts` when cut). */
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
  /** Most outbox and attempt rows one list page reads (NOTIFICATION_HISTORY_PAGE_ROWS_MAX); tests pass a small one. */
  readonly pageRowsMax?: number;
}

/** The history retentions accepted (the shared retention rule's range for the history). */
export const HISTORY_RETENTION: RetentionRange = {
  option: 'historyRetentionMs',
  defaultMs: NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT,
  minMs: NOTIFICATION_HISTORY_RETENTION_MS_MIN,
  maxMs: NOTIFICATION_HISTORY_RETENTION_MS_MAX,
};

/** The rows a list page counts for a record at worst: each delivery's outbox row and its shown attempts. */
export function listRowsOf(record: HistoryRow): number {
  return record.outboxIds.length * (1 + NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX);
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
    this.retentionMs = resolveRetention(deps.retentionMs, HISTORY_RETENTION);
    this.history = new HistoryStore(deps.store.db);
    this.outbox = new OutboxStore(deps.store.db);
  }

  /** Records a change's notifications; runs inside the caller's transaction (the alarm change's). */
  record(tenant: string, record: HistoryRecord): void {
    this.history.insert(tenant, record);
  }

  /** The window a read covers: `to` defaults to just after now, `from` to TIME_SERIES_WINDOW_MS_DEFAULT before `to`. */
  window(request: Pick<TimeSeriesRequest, 'fromMs' | 'toMs'>): TimeWindow {
    return resolveWindow(request, this.deps.clock.now(), TIME_SERIES_WINDOW_MS_DEFAULT);
  }

  /**
   * Ids of the checks with records of the alarm within the retention, sorted. At most one: the
   * alarm commit records the alarm's check, whose id cannot change, and alarm ids are never reused
   * (NOTIFICATION_HISTORY_CHECK_IDS_MAX only keeps a damaged file's read finite).
   */
  checkIds(tenant: string, entityId: string, alarmId: string): string[] {
    return this.history.checkIds(tenant, entityId, alarmId, this.deps.clock.now() - this.retentionMs, NOTIFICATION_HISTORY_CHECK_IDS_MAX);
  }

  /**
   * A page of the scope's records in the request's window, oldest first, each delivery with its
   * latest NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX attempts; a marker naming no record of the scope
   * yields an empty page. The page reads at most `limit + 1` (≤ NOTIFICATION_HISTORY_LIST_LIMIT_MAX
   * + 1) history rows and stops early, with a next marker, before a record whose deliveries would
   * take its outbox and attempt reads past `pageRowsMax` (the first record is always shown).
   */
  list(tenant: string, scope: HistoryScope, request: TimeSeriesRequest): Page<HistoryEntry> {
    if (!Number.isSafeInteger(request.limit) || request.limit < 1 || request.limit > NOTIFICATION_HISTORY_LIST_LIMIT_MAX) {
      throw fieldError('limit', `must be an integer from 1 to ${NOTIFICATION_HISTORY_LIST_LIMIT_MAX}`);
    }
    const inScopeRecord = (id: string): HistoryRow | undefined => {
      const start = this.history.record(tenant, id);
      return start !== undefined && inScope(start, scope) ? start : undefined;
    };
    const rows = seriesRows(request, this.window(request), inScopeRecord, (query) => this.history.page(tenant, scope, query));
    if (rows === undefined) return { values: [], nextMarker: null };
    const page = budgetedPage(rows, request.limit, this.deps.pageRowsMax ?? NOTIFICATION_HISTORY_PAGE_ROWS_MAX, listRowsOf, (row) => row.id);
    return { values: page.values.map((row) => this.entryOf(tenant, row, NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX)), nextMarker: page.nextMarker };
  }

  /** One record of the scope with its deliveries, each with its latest DELIVERY_ATTEMPTS_SHOWN_MAX attempts; MONITORING_OBJECT_NOT_FOUND when the scope has none with this id. */
  entry(tenant: string, scope: HistoryScope, id: string): HistoryEntry {
    const row = this.history.record(tenant, id);
    if (row === undefined || !inScope(row, scope)) throw notFound('NotificationHistory', id);
    return this.entryOf(tenant, row, DELIVERY_ATTEMPTS_SHOWN_MAX);
  }

  /** Deletes up to `max` records (every tenant) older than `beforeMs`; returns how many (the retention upkeep's step). */
  prune(beforeMs: number, max: number): number {
    return this.history.pruneBefore(beforeMs, max);
  }

  /** The record with each delivery's row and its latest `attemptsMax` attempts (none read for a row that is gone). */
  private entryOf(tenant: string, record: HistoryRecord, attemptsMax: number): HistoryEntry {
    const deliveries = record.outboxIds.map((outboxId) => {
      const item = this.outbox.item(tenant, outboxId);
      return { outboxId, item, attempts: item === undefined || item.attempts === 0 ? [] : this.outbox.attempts(tenant, outboxId, attemptsMax) };
    });
    return { record, deliveries };
  }
}

function inScope(row: HistoryRow, scope: HistoryScope): boolean {
  return row.entityId === scope.entityId && row.alarmId === scope.alarmId && row.checkId === scope.checkId;
}
