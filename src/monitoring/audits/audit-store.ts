// Owns the SQL of the audit trail (mon_audit): appending a record, a page of a tenant's records in (timestamp, id) order, and pruning old ones in bounded steps.
import type Database from 'better-sqlite3';
import type { SeriesQuery } from '../time-series.js';
import { SERIES_PAGE_SQL, seriesParams } from '../time-series-store.js';
import type { AuditRow } from './audit-record.js';

/** A page query: the window [fromMs, toMs), the record the page starts at (its marker), and the size. */
export type AuditPageQuery = SeriesQuery;

interface RawAudit {
  id: string;
  timestamp_ms: number;
  method: string;
  path: string;
  query: string | null;
  status: number;
  user: string | null;
  token_id: string | null;
  request_id: string;
  headers: string;
  who: string | null;
  why: string | null;
  body: string | null;
}

function toRow(raw: RawAudit): AuditRow {
  return {
    id: raw.id,
    timestampMs: raw.timestamp_ms,
    method: raw.method,
    path: raw.path,
    query: raw.query,
    status: raw.status,
    user: raw.user,
    tokenId: raw.token_id,
    requestId: raw.request_id,
    headers: raw.headers,
    who: raw.who,
    why: raw.why,
    body: raw.body,
  };
}

const COLUMNS = 'id, timestamp_ms, method, path, query, status, user, token_id, request_id, headers, who, why, body';
// Records at or after the marker in (timestamp, id) order, inside the window: one range of mon_audit_time.
const PAGE = `tenant = ? AND ${SERIES_PAGE_SQL}`;
/** The oldest records of every tenant before a time, at most a batch: a range of mon_audit_age. */
export const AUDIT_PRUNE_SQL = 'DELETE FROM mon_audit WHERE (tenant, id) IN (SELECT tenant, id FROM mon_audit WHERE timestamp_ms < ? ORDER BY timestamp_ms LIMIT ?)';

/** Prepared statements over mon_audit; every read filters by tenant first. */
export class AuditStore {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare(`INSERT INTO mon_audit (tenant, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      one: db.prepare<[string, string], RawAudit>(`SELECT ${COLUMNS} FROM mon_audit WHERE tenant = ? AND id = ?`),
      page: db.prepare<[string, number, number, number, number, string, number], RawAudit>(`SELECT ${COLUMNS} FROM mon_audit WHERE ${PAGE} ORDER BY timestamp_ms, id LIMIT ?`),
      prune: db.prepare<[number, number]>(AUDIT_PRUNE_SQL),
    };
  }

  /** Appends a record. */
  append(tenant: string, row: AuditRow): void {
    this.s.insert.run(tenant, row.id, row.timestampMs, row.method, row.path, row.query, row.status, row.user, row.tokenId, row.requestId, row.headers, row.who, row.why, row.body);
  }

  /** One record of the tenant by id. */
  record(tenant: string, id: string): AuditRow | undefined {
    const raw = this.s.one.get(tenant, id);
    return raw === undefined ? undefined : toRow(raw);
  }

  /** Up to `limit` records of the query, oldest first. */
  page(tenant: string, q: AuditPageQuery): AuditRow[] {
    return this.s.page.all(tenant, ...seriesParams(q), q.limit).map(toRow);
  }

  /** Deletes at most `max` records (of any tenant) older than `beforeMs`, oldest first; returns how many. */
  prune(beforeMs: number, max: number): number {
    return this.s.prune.run(beforeMs, max).changes;
  }
}
