// Owns the retention upkeep: what outlived its retention (notification history, suppression logs, ended suppressions, audits), and one timer that prunes it in bounded steps and logs what it deleted.
import type { Clock } from '../../core/clock.js';
import { configError } from '../../core/config-error.js';
import { OUTBOX_PRUNE_INTERVAL_MS, RETENTION_PRUNE_BATCH_MAX } from '../monitoring-limits.js';
import { loggableError } from '../loggable-error.js';
import type { MonitoringService } from '../monitoring-service.js';

/** One kind of record kept for a retention, with its bounded prune. */
export interface PruneTask {
  /** What it prunes, for the log (`notification history`). */
  readonly name: string;
  readonly retentionMs: number;
  /** Deletes up to `max` records older than `beforeMs`; returns how many. */
  prune(beforeMs: number, max: number): number;
}

/**
 * What the runtime's upkeep prunes: the notification history, the suppression logs and the
 * suppressions that ended for the history retention (a suppression is kept while the records that
 * name it are), the audit trail for its own (finished outbox rows are the deliverer's upkeep, kept
 * as long as the history).
 */
export function retentionTasks(monitoring: Pick<MonitoringService, 'history' | 'suppressions' | 'audits'>): PruneTask[] {
  const historyMs = monitoring.history.retentionMs;
  return [
    { name: 'notification history', retentionMs: historyMs, prune: (beforeMs, max) => monitoring.history.prune(beforeMs, max) },
    { name: 'suppression logs', retentionMs: historyMs, prune: (beforeMs, max) => monitoring.suppressions.pruneLogs(beforeMs, max) },
    { name: 'ended suppressions', retentionMs: historyMs, prune: (beforeMs, max) => monitoring.suppressions.pruneEnded(beforeMs, max) },
    { name: 'audits', retentionMs: monitoring.audits.retentionMs, prune: (beforeMs, max) => monitoring.audits.prune(beforeMs, max) },
  ];
}

/** The log lines the upkeep writes (a pino Logger fits). */
export interface UpkeepLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the upkeep runs. */
export interface RetentionUpkeepDeps {
  readonly tasks: readonly PruneTask[];
  readonly clock: Clock;
  readonly logger: UpkeepLogger;
  /** Time between steps when nothing is left to prune (OUTBOX_PRUNE_INTERVAL_MS). */
  readonly intervalMs?: number;
  /** Most records one task deletes per step (RETENTION_PRUNE_BATCH_MAX). */
  readonly batchMax?: number;
}

/**
 * Prunes every task's records past its retention: a step deletes at most `batchMax` of each (one
 * short transaction each), and a step that filled a batch is followed by another at once (after
 * the event loop's other work), so a backlog drains without one long stall. A task that fails is
 * logged and tried again at the next step; the others still run.
 */
export class RetentionUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly deps: RetentionUpkeepDeps) {
    const interval = deps.intervalMs;
    if (interval !== undefined && (!Number.isSafeInteger(interval) || interval < 1)) throw configError('upkeepIntervalMs', 'an integer number of ms of at least 1', interval);
  }

  /** Starts the timer: a first step at once, then every interval. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops the timer. Idempotent. */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs one step of every task now; returns how many records each deleted, by name. */
  step(): Record<string, number> {
    const nowMs = this.deps.clock.now();
    const max = this.deps.batchMax ?? RETENTION_PRUNE_BATCH_MAX;
    const deleted: Record<string, number> = {};
    for (const task of this.deps.tasks) {
      try {
        deleted[task.name] = task.prune(nowMs - task.retentionMs, max);
      } catch (error) {
        this.deps.logger.error({ task: task.name, ...loggableError(error) }, 'retention prune failed; it is tried again at the next step');
      }
    }
    const total = Object.values(deleted).reduce((sum, n) => sum + n, 0);
    if (total > 0) this.deps.logger.info({ deleted }, 'pruned records past their retention');
    return deleted;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => this.turn(), delayMs);
    this.timer.unref();
  }

  private turn(): void {
    this.timer = undefined;
    if (!this.running) return;
    const deleted = this.step();
    const max = this.deps.batchMax ?? RETENTION_PRUNE_BATCH_MAX;
    const more = Object.values(deleted).some((n) => n >= max);
    this.schedule(more ? 0 : (this.deps.intervalMs ?? OUTBOX_PRUNE_INTERVAL_MS));
  }
}
