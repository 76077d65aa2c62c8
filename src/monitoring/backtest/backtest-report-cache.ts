// Owns keeping the last backtest reports for their next pages: bounded in reports and in changes, each kept a short time.
import type { BacktestReport } from './backtest-service.js';
import { BACKTEST_REPORT_TTL_MS, BACKTEST_REPORTS_KEPT_MAX, BACKTEST_KEPT_CHANGES_MAX } from '../monitoring-limits.js';

interface Kept {
  readonly report: BacktestReport;
  readonly keptAtMs: number;
}

/**
 * The last backtest reports by key (tenant, what was replayed, window: the caller builds it), in
 * the order they were kept. Memory is bounded by `reportsMax` and by `changesMax` changes in all;
 * a report expires `ttlMs` after it was kept, and is dropped when it is next looked up or pushed
 * out by newer ones.
 */
export class BacktestReportCache {
  private readonly kept = new Map<string, Kept>();
  private changes = 0;

  constructor(
    private readonly ttlMs: number = BACKTEST_REPORT_TTL_MS,
    private readonly reportsMax: number = BACKTEST_REPORTS_KEPT_MAX,
    private readonly changesMax: number = BACKTEST_KEPT_CHANGES_MAX,
  ) {}

  /** The report kept under `key`, unless it expired (then it is dropped). */
  get(key: string, nowMs: number): BacktestReport | undefined {
    const entry = this.kept.get(key);
    if (entry === undefined) return undefined;
    if (nowMs - entry.keptAtMs >= this.ttlMs || nowMs < entry.keptAtMs) {
      this.drop(key);
      return undefined;
    }
    return entry.report;
  }

  /** Keeps `report` under `key` (replacing what was kept there), then drops the oldest reports until both bounds hold. */
  put(key: string, report: BacktestReport, nowMs: number): void {
    this.drop(key);
    if (report.changes.length > this.changesMax) return;
    this.kept.set(key, { report, keptAtMs: nowMs });
    this.changes += report.changes.length;
    while (this.kept.size > this.reportsMax || this.changes > this.changesMax) this.drop(this.kept.keys().next().value as string);
  }

  /** Reports kept now. */
  get size(): number {
    return this.kept.size;
  }

  /** Changes in the reports kept now. */
  get keptChanges(): number {
    return this.changes;
  }

  private drop(key: string): void {
    const entry = this.kept.get(key);
    if (entry === undefined) return;
    this.kept.delete(key);
    this.changes -= entry.report.changes.length;
  }
}
