// Owns scheduling rollups: turning due work into worker tasks, bounded, and recording their results.
import type { Clock } from '../core/clock.js';
import { coarserOf, type Resolution, type RollupResolution } from '../model/resolution.js';
import type { Catalog, DueRow } from '../storage/catalog.js';
import type { Durability } from '../storage/open-database.js';
import { partitionStartOf } from '../storage/partition-set.js';
import type { StoreLogger } from '../store-types.js';
import type { DueIndex, DueGroup } from './due-index.js';
import type { RollupPool } from './rollup-pool.js';

/** What the scheduler needs; store.ts wires it. */
export interface SchedulerDeps {
  readonly pool: RollupPool;
  readonly catalog: Catalog;
  readonly due: DueIndex;
  readonly dataDir: string;
  readonly durability: Durability;
  readonly clock: Clock;
  readonly logger: StoreLogger;
  /** Called after a task wrote target chunks, so caches can forget them. */
  readonly onTargetWritten: (res: RollupResolution, targetStartMs: number, seriesIds: readonly number[]) => void;
}

/** A failed task is retried after this long, so a persistent failure does not spin. */
const RETRY_AFTER_FAILURE_MS = 10_000;

/** Starts rollup tasks for due work, at most one per target chunk at a time. */
export class RollupScheduler {
  private readonly deps: SchedulerDeps;
  private readonly inFlight = new Set<string>();
  /** Source partition files read by running tasks: the sweeper must not delete them. */
  private readonly reading = new Map<string, number>();
  private readonly failedUntil = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  /** Raw points (or finer buckets) rolled up since the store opened. */
  sourcePointsRolled = 0;

  constructor(deps: SchedulerDeps) {
    this.deps = deps;
  }

  /** Tasks running now. */
  get active(): number {
    return this.inFlight.size;
  }

  /** True while a running task may read the partition file of `res` starting at `partitionStartMs`. */
  isReading(res: Resolution, partitionStartMs: number): boolean {
    return this.reading.has(`${res}:${partitionStartMs}`);
  }

  /** Starts as many due tasks as the pool has room for. Returns how many started. */
  pump(): number {
    let started = 0;
    if (this.deps.pool.capacity === 0) return started;
    const now = this.deps.clock.now();
    const backingOff = (res: RollupResolution, startMs: number): boolean => (this.failedUntil.get(`${res}:${startMs}`) ?? 0) > now;
    for (const group of this.deps.due.groups(backingOff)) {
      if (this.deps.pool.capacity === 0) break;
      const key = `${group.targetRes}:${group.targetStartMs}`;
      if (this.inFlight.has(key)) continue;
      this.start(key, group);
      started++;
    }
    return started;
  }

  private start(key: string, group: DueGroup): void {
    this.inFlight.add(key);
    const files = new Set<string>();
    for (const row of group.rows) files.add(`${row.sourceRes}:${partitionStartOf(row.sourceRes, row.sourceStartMs)}`);
    for (const f of files) this.reading.set(f, (this.reading.get(f) ?? 0) + 1);
    const task = {
      dataDir: this.deps.dataDir,
      durability: this.deps.durability,
      sourceRes: group.sourceRes,
      targetRes: group.targetRes,
      targetStartMs: group.targetStartMs,
      series: group.series,
    };
    const done = this.deps.pool
      .run(task)
      .then((outcome) => {
        if (outcome.ok) {
          this.sourcePointsRolled += outcome.sourcePoints;
          this.finish(group);
        } else {
          this.failedUntil.set(key, this.deps.clock.now() + RETRY_AFTER_FAILURE_MS);
          this.deps.logger.error({ code: outcome.code, task: key }, `rollup task failed: ${outcome.message}`);
        }
      })
      .catch((error: unknown) => {
        this.failedUntil.set(key, this.deps.clock.now() + RETRY_AFTER_FAILURE_MS);
        this.deps.logger.error({ task: key, err: error }, 'rollup task failed');
      })
      .finally(() => {
        this.inFlight.delete(key);
        for (const f of files) {
          const left = (this.reading.get(f) ?? 1) - 1;
          if (left > 0) this.reading.set(f, left);
          else this.reading.delete(f);
        }
        this.running.delete(done);
      });
    this.running.add(done);
  }

  /** Records a finished task: next level due, consumed rows cleared, both in one transaction. */
  private finish(group: DueGroup): void {
    const ids = group.series.map((s) => s.id);
    this.deps.onTargetWritten(group.targetRes, group.targetStartMs, ids);
    const added: DueRow[] = coarserOf(group.targetRes) === undefined ? [] : this.deps.due.add(group.targetRes, group.targetStartMs, ids, this.deps.clock.now());
    this.deps.catalog.commitRollup(added, group.rows);
    this.deps.due.consume(group.rows);
  }

  /** Runs tasks until nothing is due and nothing runs (failed tasks are not retried here). */
  async drain(): Promise<void> {
    // Work that failed earlier gets one more chance now; if it fails again, drain returns anyway.
    this.failedUntil.clear();
    for (;;) {
      const started = this.pump();
      if (started === 0 && this.running.size === 0) return;
      if (this.running.size > 0) await Promise.race(this.running);
    }
  }

  /** Waits for running tasks to finish. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
  }
}
