// Owns the SQL of alarm changelogs (a time series per tenant) and declared check metric types.
import type Database from 'better-sqlite3';
import type { SeriesQuery } from './time-series.js';
import { SERIES_PAGE_SQL, seriesParams } from './time-series-store.js';

/** One alarm state change (spec 2.6 plus previous_state). */
export interface ChangelogRow {
  readonly id: string;
  readonly timestampMs: number;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly state: string;
  readonly previousState: string | null;
  readonly zoneId: string | null;
}

/** A changelog query: [fromMs, toMs), optionally one entity, starting at the entry `marker`. */
export interface ChangelogQuery extends SeriesQuery {
  readonly entityId?: string;
}

interface RawChangelog {
  id: string;
  timestamp_ms: number;
  entity_id: string;
  alarm_id: string;
  check_id: string;
  state: string;
  previous_state: string | null;
  zone_id: string | null;
}

function toRow(row: RawChangelog): ChangelogRow {
  return {
    id: row.id,
    timestampMs: row.timestamp_ms,
    entityId: row.entity_id,
    alarmId: row.alarm_id,
    checkId: row.check_id,
    state: row.state,
    previousState: row.previous_state,
    zoneId: row.zone_id,
  };
}

const COLUMNS = 'id, timestamp_ms, entity_id, alarm_id, check_id, state, previous_state, zone_id';
// Entries at or after the marker in (timestamp, id) order, inside the window.
const PAGE = `tenant = ? AND ${SERIES_PAGE_SQL}`;

/** Prepared statements over mon_alarm_changelog and mon_check_metric_type. */
export class ChangelogStore {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare(`INSERT INTO mon_alarm_changelog (tenant, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      one: db.prepare<[string, string], RawChangelog>(`SELECT ${COLUMNS} FROM mon_alarm_changelog WHERE tenant = ? AND id = ?`),
      page: db.prepare<[string, number, number, number, number, string, number], RawChangelog>(
        `SELECT ${COLUMNS} FROM mon_alarm_changelog WHERE ${PAGE} ORDER BY timestamp_ms, id LIMIT ?`,
      ),
      pageOfEntity: db.prepare<[string, number, number, number, number, string, string, number], RawChangelog>(
        `SELECT ${COLUMNS} FROM mon_alarm_changelog WHERE ${PAGE} AND entity_id = ? ORDER BY timestamp_ms, id LIMIT ?`,
      ),
      putType: db.prepare('INSERT OR REPLACE INTO mon_check_metric_type (tenant, entity_id, check_id, name, type) VALUES (?, ?, ?, ?, ?)'),
      types: db.prepare<[string, string, string], { name: string; type: string }>(
        'SELECT name, type FROM mon_check_metric_type WHERE tenant = ? AND entity_id = ? AND check_id = ?',
      ),
      dropTypes: db.prepare('DELETE FROM mon_check_metric_type WHERE tenant = ? AND entity_id = ? AND check_id = ?'),
    };
  }

  /** Appends an entry (the alarm evaluator calls this on each state change). */
  append(tenant: string, entry: ChangelogRow): void {
    this.s.insert.run(tenant, entry.id, entry.timestampMs, entry.entityId, entry.alarmId, entry.checkId, entry.state, entry.previousState, entry.zoneId);
  }

  /** One entry by id. */
  entry(tenant: string, id: string): ChangelogRow | undefined {
    const row = this.s.one.get(tenant, id);
    return row === undefined ? undefined : toRow(row);
  }

  /** Up to `limit` entries of the query, oldest first. */
  page(tenant: string, q: ChangelogQuery): ChangelogRow[] {
    const rows = q.entityId === undefined ? this.s.page.all(tenant, ...seriesParams(q), q.limit) : this.s.pageOfEntity.all(tenant, ...seriesParams(q), q.entityId, q.limit);
    return rows.map(toRow);
  }

  /** Declares the one-letter type of a check metric. */
  putMetricType(tenant: string, entityId: string, checkId: string, name: string, type: string): void {
    this.s.putType.run(tenant, entityId, checkId, name, type);
  }

  /** Declared metric types of a check, by metric name. */
  metricTypes(tenant: string, entityId: string, checkId: string): Map<string, string> {
    return new Map(this.s.types.all(tenant, entityId, checkId).map((row) => [row.name, row.type]));
  }

  /** Forgets the declared types of a deleted check. */
  dropMetricTypes(tenant: string, entityId: string, checkId: string): void {
    this.s.dropTypes.run(tenant, entityId, checkId);
  }
}
