// Checks the suppression store's SQL plans: log pages are one range of mon_suppression_log_time, pruning walks mon_suppression_log_age.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { LOG_PAGE_SQL, PRUNE_LOGS_SQL } from '../../../src/monitoring/suppressions/suppression-store.js';

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
});
