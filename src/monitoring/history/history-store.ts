// Owns the SQL of the notification history (mon_notification_history) and turning its rows into records.
import type Database from 'better-sqlite3';
import type { SeriesQuery } from '../time-series.js';
import { SERIES_PAGE_SQL, seriesParams } from '../time-series-store.js';

/** What a history record says happened to a change's notifications. */
export type HistoryStatus = 'notified' | 'suppressed' | 'none';

/** One history record as the alarm change writes it (id: the changelog entry's id). */
export interface HistoryRow {
  readonly id: string;
  readonly timestampMs: number;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly planId: string;
  readonly state: string;
  readonly previousState: string | null;
  readonly status: HistoryStatus;
  /** The alarm's status message for the new state (the criteria's text). */
  readonly message: string;
  readonly txnId: string;
  /** Ids of the suppressions that stopped the notifications; null unless suppressed. */
  readonly suppressions: readonly string[] | null;
  /** The plan's notification ids for the state: those queued (notified) or stopped (suppressed). */
  readonly notificationIds: readonly string[];
  /** The outbox rows queued, in the order of notificationIds (empty unless notified). */
  readonly outboxIds: readonly string[];
}

/** Which alarm and check a history read is about. */
export interface HistoryScope {
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
}

/** A page query: [fromMs, toMs), starting at the record `after` (time-series marker), at most `limit` rows. */
export type HistoryQuery = SeriesQuery;

interface RawHistory {
  id: string;
  timestamp_ms: number;
  entity_id: string;
  alarm_id: string;
  check_id: string;
  plan_id: string;
  state: string;
  previous_state: string | null;
  status: HistoryStatus;
  alarm_status: string;
  txn_id: string;
  suppressions: string | null;
  notification_ids: string;
  outbox_ids: string;
}

/** A stored JSON array of ids, or [] when it is not one (a damaged row still reads). */
function idsOf(text: string | null): string[] {
  try {
    const value: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function toRow(raw: RawHistory): HistoryRow {
  return {
    id: raw.id,
    timestampMs: raw.timestamp_ms,
    entityId: raw.entity_id,
    alarmId: raw.alarm_id,
    checkId: raw.check_id,
    planId: raw.plan_id,
    state: raw.state,
    previousState: raw.previous_state,
    status: raw.status,
    message: raw.alarm_status,
    txnId: raw.txn_id,
    suppressions: raw.suppressions === null ? null : idsOf(raw.suppressions),
    notificationIds: idsOf(raw.notification_ids),
    outboxIds: idsOf(raw.outbox_ids),
  };
}

const COLUMNS = 'id, timestamp_ms, entity_id, alarm_id, check_id, plan_id, state, previous_state, status, alarm_status, txn_id, suppressions, notification_ids, outbox_ids';
// One alarm's records of one check, inside the window, at or after the marker in (timestamp, id)
// order: a range of the index mon_history_alarm.
const PAGE =
  `tenant = ? AND entity_id = ? AND alarm_id = ? AND check_id = ? AND ${SERIES_PAGE_SQL}`;

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(`INSERT INTO mon_notification_history (tenant, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    one: db.prepare<[string, string], RawHistory>(`SELECT ${COLUMNS} FROM mon_notification_history WHERE tenant = ? AND id = ?`),
    page: db.prepare<[string, string, string, string, number, number, number, number, string, number], RawHistory>(
      `SELECT ${COLUMNS} FROM mon_notification_history WHERE ${PAGE} ORDER BY timestamp_ms, id LIMIT ?`,
    ),
    // The next check id after `?` with a record since the cut: one seek of mon_history_alarm per check.
    nextCheck: db.prepare<[string, string, string, string, number], { check_id: string }>(
      `SELECT check_id FROM mon_notification_history WHERE tenant = ? AND entity_id = ? AND alarm_id = ? AND check_id > ? AND timestamp_ms >= ?
       ORDER BY check_id LIMIT 1`,
    ),
    oldBefore: db.prepare<[number, number], { tenant: string; id: string }>(
      'SELECT tenant, id FROM mon_notification_history INDEXED BY mon_history_age WHERE timestamp_ms < ? ORDER BY timestamp_ms LIMIT ?',
    ),
    deleteRow: db.prepare<[string, string]>('DELETE FROM mon_notification_history WHERE tenant = ? AND id = ?'),
  };
}

/** Prepared statements over mon_notification_history; every method is synchronous. */
export class HistoryStore {
  private readonly s: ReturnType<typeof prepare>;

  constructor(readonly db: Database.Database) {
    this.s = prepare(db);
  }

  /** Inserts a record (inside the caller's transaction). */
  insert(tenant: string, row: HistoryRow): void {
    this.s.insert.run(
      tenant,
      row.id,
      row.timestampMs,
      row.entityId,
      row.alarmId,
      row.checkId,
      row.planId,
      row.state,
      row.previousState,
      row.status,
      row.message,
      row.txnId,
      row.suppressions === null ? null : JSON.stringify(row.suppressions),
      JSON.stringify(row.notificationIds),
      JSON.stringify(row.outboxIds),
    );
  }

  /** One record of the tenant, or undefined. */
  record(tenant: string, id: string): HistoryRow | undefined {
    const raw = this.s.one.get(tenant, id);
    return raw === undefined ? undefined : toRow(raw);
  }

  /** Up to `limit` records of the scope in the query's window, oldest first. */
  page(tenant: string, scope: HistoryScope, q: HistoryQuery): HistoryRow[] {
    return this.s.page.all(tenant, scope.entityId, scope.alarmId, scope.checkId, ...seriesParams(q), q.limit).map(toRow);
  }

  /** The ids of the checks with records of the alarm at or after `sinceMs`, sorted, at most `limit`. */
  checkIds(tenant: string, entityId: string, alarmId: string, sinceMs: number, limit: number): string[] {
    const ids: string[] = [];
    let last = '';
    while (ids.length < limit) {
      const next = this.s.nextCheck.get(tenant, entityId, alarmId, last, sinceMs);
      if (next === undefined) break;
      ids.push(next.check_id);
      last = next.check_id;
    }
    return ids;
  }

  /** Deletes up to `limit` records (every tenant) older than `beforeMs`, oldest first, in one transaction. Returns how many. */
  pruneBefore(beforeMs: number, limit: number): number {
    return this.db.transaction(() => {
      const keys = this.s.oldBefore.all(beforeMs, limit);
      for (const key of keys) this.s.deleteRow.run(key.tenant, key.id);
      return keys.length;
    })();
  }
}
