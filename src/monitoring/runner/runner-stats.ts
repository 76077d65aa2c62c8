// Owns the check runner's counters and the window of recent start lags behind /metrics' strata_check_lag_seconds.
import { CHECK_LAG_WINDOW_RUNS } from '../monitoring-limits.js';

/** How a run ended: the probe reported the target available or not, or the probe itself failed (threw: a bug, logged). */
export type RunOutcome = 'available' | 'unavailable' | 'error';

/** Why a due run did not run: the queue was full, the slot's previous run was still going, or the scheduler fell a period behind. */
export type SkipReason = 'queue_full' | 'overlap' | 'behind';

/** Start lag percentiles over the most recent runs, in ms. */
export interface LagSummary {
  /** How many recent runs the figures cover (at most CHECK_LAG_WINDOW_RUNS). */
  readonly runs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** A snapshot of the runner's counters for /metrics and the bench. */
export interface RunnerStatsSnapshot {
  /** Runs since start by check type and outcome. */
  readonly runs: readonly { readonly type: string; readonly outcome: RunOutcome; readonly count: number }[];
  /** Due runs skipped since start, by reason. */
  readonly skipped: Readonly<Record<SkipReason, number>>;
  readonly lag: LagSummary;
}

/** The value at quantile `q` of sorted values (nearest rank). */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/** Counters of runs and skips, and a ring of the last CHECK_LAG_WINDOW_RUNS start lags. */
export class RunnerStats {
  private readonly lags = new Float64Array(CHECK_LAG_WINDOW_RUNS);
  private lagCount = 0;
  private lagNext = 0;
  private readonly runCounts = new Map<string, { type: string; outcome: RunOutcome; count: number }>();
  private readonly skipCounts: Record<SkipReason, number> = { queue_full: 0, overlap: 0, behind: 0 };

  /** Records the start lag (start time minus due time) of one run. */
  recordLag(lagMs: number): void {
    this.lags[this.lagNext] = Math.max(0, lagMs);
    this.lagNext = (this.lagNext + 1) % this.lags.length;
    if (this.lagCount < this.lags.length) this.lagCount++;
  }

  /** Records how one run ended. */
  recordRun(type: string, outcome: RunOutcome): void {
    const key = `${type} ${outcome}`;
    const counter = this.runCounts.get(key);
    if (counter === undefined) this.runCounts.set(key, { type, outcome, count: 1 });
    else counter.count++;
  }

  /** Records `count` due runs that did not run. */
  recordSkip(reason: SkipReason, count = 1): void {
    this.skipCounts[reason] += count;
  }

  /** Percentiles of the recent start lags (sorting at most CHECK_LAG_WINDOW_RUNS numbers: per scrape, not per run). */
  lagSummary(): LagSummary {
    const recent = this.lags.slice(0, this.lagCount).sort();
    return { runs: this.lagCount, p50Ms: quantile(recent, 0.5), p99Ms: quantile(recent, 0.99), maxMs: quantile(recent, 1) };
  }

  /** The counters now. */
  snapshot(): RunnerStatsSnapshot {
    return {
      runs: [...this.runCounts.values()].map((counter) => ({ ...counter })),
      skipped: { ...this.skipCounts },
      lag: this.lagSummary(),
    };
  }
}

/** Due times in arrival order (a FIFO with a head index, not shift(): O(1) per run), for the age of the oldest waiting run. */
export class DueFifo {
  private dues: number[] = [];
  private head = 0;

  /** Adds the due time of a run that starts waiting. */
  push(dueMs: number): void {
    this.dues.push(dueMs);
  }

  /** Drops the oldest (a waiting run started); compacts once the dropped part is most of the array. */
  shift(): void {
    if (this.head < this.dues.length) this.head++;
    if (this.head > 1024 && this.head * 2 > this.dues.length) {
      this.dues = this.dues.slice(this.head);
      this.head = 0;
    }
  }

  /** The due time of the oldest waiting run, if any. */
  oldest(): number | undefined {
    return this.dues[this.head];
  }
}
