// Owns the SQL that counts an account's objects of each limited kind (the usage GET /limits shows and creates are checked against).
import type Database from 'better-sqlite3';
import { DEFAULT_NOTIFICATION_ID, DEFAULT_PLAN_ID } from './default-objects.js';

/** The kinds of object an account's usage counts (the same names as the account limits). */
export type UsageKind = 'entities' | 'checks' | 'alarms' | 'notifications' | 'notification_plans' | 'suppressions';

/**
 * One count per kind. Every table is keyed (tenant, ...) first, so each count is one range of its
 * primary key: its cost grows with the account's own objects only. The default notification and
 * plan are not the account's own objects: they are left out (they do not count against the limits).
 * Suppressions count only those not ended (end_time after now, the second parameter): ended ones
 * stay stored for a while (the backtest and the logs name them) but hold no place; the end is
 * spelled json_extract(doc, '$.end_time') exactly as an index over (tenant, end) must be.
 */
const COUNT_SQL: Readonly<Record<UsageKind, string>> = {
  entities: 'SELECT count(*) AS n FROM mon_entity WHERE tenant = ?',
  checks: 'SELECT count(*) AS n FROM mon_check WHERE tenant = ?',
  alarms: 'SELECT count(*) AS n FROM mon_alarm WHERE tenant = ?',
  notifications: `SELECT count(*) AS n FROM mon_notification WHERE tenant = ? AND id <> '${DEFAULT_NOTIFICATION_ID}'`,
  notification_plans: `SELECT count(*) AS n FROM mon_plan WHERE tenant = ? AND id <> '${DEFAULT_PLAN_ID}'`,
  suppressions: "SELECT count(*) AS n FROM mon_suppression WHERE tenant = ? AND json_extract(doc, '$.end_time') > ?",
};

/** The SQL of the suppression count, exported so a test can ask SQLite for its plan. */
export const SUPPRESSIONS_NOT_ENDED_SQL = COUNT_SQL.suppressions;

/** The parameters of each kind's count: the tenant, and for suppressions the time they must end after. */
function paramsOf(kind: UsageKind, tenant: string, nowMs: number): [string] | [string, number] {
  return kind === 'suppressions' ? [tenant, nowMs] : [tenant];
}

/** Prepared count statements over the object tables of monitoring.sqlite. */
export class AccountUsageStore {
  private readonly counts: ReadonlyMap<UsageKind, Database.Statement<unknown[], { n: number }>>;

  constructor(db: Database.Database) {
    this.counts = new Map(Object.entries(COUNT_SQL).map(([kind, sql]) => [kind as UsageKind, db.prepare<unknown[], { n: number }>(sql)]));
  }

  /** How many objects of `kind` the tenant holds at `nowMs` (its default notification and plan aside; suppressions not ended). */
  count(tenant: string, kind: UsageKind, nowMs: number): number {
    return (this.counts.get(kind) as Database.Statement<unknown[], { n: number }>).get(...paramsOf(kind, tenant, nowMs))?.n ?? 0;
  }
}
