// Owns the SQL of suppressions (mon_suppression, ended ones pruned) and suppression logs (mon_suppression_log, a time series per tenant).
import type Database from 'better-sqlite3';
import type { SeriesQuery } from '../time-series.js';
import { SERIES_PAGE_SQL, seriesParams } from '../time-series-store.js';
import type { StoredDoc } from '../doc-store.js';
import type { SuppressionDoc } from './suppression-rules.js';

/** One suppression log entry: a change whose notifications a suppression stopped. */
export interface SuppressionLogRow {
  readonly id: string;
  readonly timestampMs: number;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly planId: string;
  readonly suppressions: readonly string[];
  readonly state: string;
  readonly previousState: string | null;
  readonly txnId: string;
}

/** A log page query: [fromMs, toMs), starting at the entry `after` (its timestamp and id) when given. */
export type SuppressionLogQuery = SeriesQuery;

interface RawSuppression {
  id: string;
  doc: string;
  created_ms: number;
  updated_ms: number;
}

interface RawLog {
  id: string;
  timestamp_ms: number;
  entity_id: string;
  alarm_id: string;
  check_id: string;
  plan_id: string;
  suppressions: string;
  state: string;
  previous_state: string | null;
  txn_id: string;
}

function toStored(row: RawSuppression): StoredDoc<SuppressionDoc> {
  return { id: row.id, entityId: null, doc: JSON.parse(row.doc) as SuppressionDoc, createdMs: row.created_ms, updatedMs: row.updated_ms };
}

function toLog(row: RawLog): SuppressionLogRow {
  return {
    id: row.id,
    timestampMs: row.timestamp_ms,
    entityId: row.entity_id,
    alarmId: row.alarm_id,
    checkId: row.check_id,
    planId: row.plan_id,
    suppressions: JSON.parse(row.suppressions) as string[],
    state: row.state,
    previousState: row.previous_state,
    txnId: row.txn_id,
  };
}

const SUPPRESSION_COLUMNS = 'id, doc, created_ms, updated_ms';
const LOG_COLUMNS = 'id, timestamp_ms, entity_id, alarm_id, check_id, plan_id, suppressions, state, previous_state, txn_id';
/**
 * A page of a tenant's log: entries inside the window at or after the marker in (timestamp, id)
 * order, one range of mon_suppression_log_time. Exported so a test can ask SQLite for its plan.
 */
export const LOG_PAGE_SQL = `SELECT ${LOG_COLUMNS} FROM mon_suppression_log WHERE tenant = ? AND ${SERIES_PAGE_SQL} ORDER BY timestamp_ms, id LIMIT ?`;
/**
 * The oldest `max` entries of every tenant before a time, through mon_suppression_log_age; the
 * table has no rowid, so its key picks the rows. Exported so a test can ask SQLite for its plan.
 */
export const PRUNE_LOGS_SQL =
  'DELETE FROM mon_suppression_log WHERE (tenant, id) IN (SELECT tenant, id FROM mon_suppression_log WHERE timestamp_ms < ? ORDER BY timestamp_ms LIMIT ?)';
/**
 * The `max` suppressions of every tenant that ended earliest, among those that ended before a
 * time, answering which (tenant, id) went. The end is spelled json_extract(doc, '$.end_time')
 * exactly as an index over it must be. Exported so a test can ask SQLite for its plan.
 */
export const PRUNE_ENDED_SQL =
  "DELETE FROM mon_suppression WHERE (tenant, id) IN (SELECT tenant, id FROM mon_suppression WHERE json_extract(doc, '$.end_time') < ? ORDER BY json_extract(doc, '$.end_time') LIMIT ?) RETURNING tenant, id";

/** A suppression the prune deleted. */
export interface PrunedSuppression {
  readonly tenant: string;
  readonly id: string;
}

/** Prepared statements over mon_suppression and mon_suppression_log; every statement but the two prunes filters by tenant first. */
export class SuppressionStore {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare('INSERT INTO mon_suppression (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?)'),
      one: db.prepare<[string, string], RawSuppression>(`SELECT ${SUPPRESSION_COLUMNS} FROM mon_suppression WHERE tenant = ? AND id = ?`),
      update: db.prepare('UPDATE mon_suppression SET doc = ?, updated_ms = ? WHERE tenant = ? AND id = ?'),
      remove: db.prepare('DELETE FROM mon_suppression WHERE tenant = ? AND id = ?'),
      page: db.prepare<[string, string, number], RawSuppression>(`SELECT ${SUPPRESSION_COLUMNS} FROM mon_suppression WHERE tenant = ? AND id >= ? ORDER BY id LIMIT ?`),
      all: db.prepare<[string], RawSuppression>(`SELECT ${SUPPRESSION_COLUMNS} FROM mon_suppression WHERE tenant = ? ORDER BY id`),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM mon_suppression WHERE tenant = ?'),
      insertLog: db.prepare(`INSERT INTO mon_suppression_log (tenant, ${LOG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      oneLog: db.prepare<[string, string], RawLog>(`SELECT ${LOG_COLUMNS} FROM mon_suppression_log WHERE tenant = ? AND id = ?`),
      logPage: db.prepare<[string, number, number, number, number, string, number], RawLog>(LOG_PAGE_SQL),
      prune: db.prepare(PRUNE_LOGS_SQL),
      pruneEnded: db.prepare<[number, number], PrunedSuppression>(PRUNE_ENDED_SQL),
    };
  }

  /** Inserts a new suppression. */
  insert(tenant: string, id: string, doc: SuppressionDoc, nowMs: number): void {
    this.s.insert.run(tenant, id, JSON.stringify(doc), nowMs, nowMs);
  }

  /** One suppression, if any. */
  get(tenant: string, id: string): StoredDoc<SuppressionDoc> | undefined {
    const row = this.s.one.get(tenant, id);
    return row === undefined ? undefined : toStored(row);
  }

  /** Replaces a suppression's fields; false when it does not exist. */
  update(tenant: string, id: string, doc: SuppressionDoc, nowMs: number): boolean {
    return this.s.update.run(JSON.stringify(doc), nowMs, tenant, id).changes === 1;
  }

  /** Deletes a suppression; false when it did not exist. */
  remove(tenant: string, id: string): boolean {
    return this.s.remove.run(tenant, id).changes === 1;
  }

  /** Up to `limit` suppressions with id >= `marker`, by id. */
  page(tenant: string, marker: string, limit: number): StoredDoc<SuppressionDoc>[] {
    return this.s.page.all(tenant, marker, limit).map(toStored);
  }

  /** Every suppression of the tenant (at most its account limit), by id: what the service compiles into its cache. */
  all(tenant: string): StoredDoc<SuppressionDoc>[] {
    return this.s.all.all(tenant).map(toStored);
  }

  /** How many suppressions the tenant stores (ended ones included). */
  count(tenant: string): number {
    return (this.s.count.get(tenant) as { n: number }).n;
  }

  /** Appends a log entry. */
  appendLog(tenant: string, row: SuppressionLogRow): void {
    this.s.insertLog.run(
      tenant, row.id, row.timestampMs, row.entityId, row.alarmId, row.checkId, row.planId,
      JSON.stringify(row.suppressions), row.state, row.previousState, row.txnId,
    );
  }

  /** One log entry by id. */
  logEntry(tenant: string, id: string): SuppressionLogRow | undefined {
    const row = this.s.oneLog.get(tenant, id);
    return row === undefined ? undefined : toLog(row);
  }

  /** Up to `limit` log entries of the query, oldest first. */
  logPage(tenant: string, q: SuppressionLogQuery): SuppressionLogRow[] {
    return this.s.logPage.all(tenant, ...seriesParams(q), q.limit).map(toLog);
  }

  /** Deletes up to `max` log entries (every tenant) older than `beforeMs`, oldest first; returns how many. */
  pruneLogs(beforeMs: number, max: number): number {
    return this.s.prune.run(beforeMs, max).changes;
  }

  /** Deletes up to `max` suppressions (every tenant) that ended before `beforeMs`, earliest end first; returns which. */
  pruneEnded(beforeMs: number, max: number): PrunedSuppression[] {
    return this.s.pruneEnded.all(beforeMs, max);
  }
}
