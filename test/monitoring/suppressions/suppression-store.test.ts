// Checks the suppression store's SQL plans: log pages are one range of mon_suppression_log_time, pruning walks mon_suppression_log_age, and the end of a suppression is spelled as the indexes over it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { SUPPRESSIONS_NOT_ENDED_SQL } from '../../../src/monitoring/account/account-usage-store.js';
import { LOG_PAGE_SQL, PRUNE_ENDED_SQL, PRUNE_LOGS_SQL } from '../../../src/monitoring/suppressions/suppression-store.js';

/**
 * The indexes over a suppression's end asked of the lead for schema.sql (IF NOT EXISTS: a no-op once
 * there). The expression must be spelled exactly as the queries spell it for SQLite to use them.
 */
const END_INDEXES_DDL = `
CREATE INDEX IF NOT EXISTS mon_suppression_end ON mon_suppression (tenant, json_extract(doc, '$.end_time'));
CREATE INDEX IF NOT EXISTS mon_suppression_ended ON mon_suppression (json_extract(doc, '$.end_time'));`;

/** The detail lines of SQLite's plan for a statement. */
function planOf(monitoring: MonitoringService, sql: string, ...params: unknown[]): string {
  const rows = monitoring.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((row) => row.detail).join('\n');
}

describe('SuppressionStore SQL', () => {
  let monitoring: MonitoringService;

  beforeEach(() => {
    monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(1_750_000_000_000) });
  });
  afterEach(() => monitoring.close());

  it('reads a log page from the (tenant, timestamp, id) index without sorting', () => {
    const plan = planOf(monitoring, LOG_PAGE_SQL, 't1', 0, 10, 0, 0, '', 5);
    expect(plan).toContain('mon_suppression_log_time');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('picks the rows to prune from the age index', () => {
    const plan = planOf(monitoring, PRUNE_LOGS_SQL, 10, 5);
    expect(plan).toContain('mon_suppression_log_age');
    expect(plan).not.toMatch(/SCAN mon_suppression_log(?! USING)/);
  });

  it('counts a tenant\'s suppressions not ended from one range of (tenant, end), and picks ended ones to prune from one range of (end), without sorting', () => {
    monitoring.store.db.exec(END_INDEXES_DDL);
    const count = planOf(monitoring, SUPPRESSIONS_NOT_ENDED_SQL, 't1', 10);
    expect(count).toMatch(/SEARCH mon_suppression USING COVERING INDEX mon_suppression_end \(tenant=\? AND <expr>>\?\)/);
    const prune = planOf(monitoring, PRUNE_ENDED_SQL, 10, 5);
    expect(prune).toMatch(/SEARCH mon_suppression USING COVERING INDEX mon_suppression_ended \(<expr><\?\)/);
    expect(prune).not.toContain('TEMP B-TREE');
  });
});
