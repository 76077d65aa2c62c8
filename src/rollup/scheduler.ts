// Owns scheduling rollups: turning due work into worker tasks, bounded, and recording their results.
import type { Clock } from '../core/clock.js';
import { coarserOf, type Resolution, type RollupResolution } from '../model/resolution.js';
import type { Catalog, DueRow, PartitionRow } from '../storage/catalog.js';
import type { Durability } from '../storage/open-database.js';
import { damageFromDetails, type PartitionDamage } from '../storage/partition-damage.js';
import type { PartitionCount, PartitionNote } from '../storage/partition-ledger.js';
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
  /** The store's partition ledger; without it tasks verify every file they open and report nothing. */
  readonly partitions?: SchedulerPartitions;
}

/** What the scheduler needs of the partition ledger. */
export interface SchedulerPartitions {
  /** What a task is told about a partition it will open. */
  note(res: Resolution, startMs: number): PartitionNote;
  /** The damage of a partition, or undefined when it is usable. */
  damageOf(res: Resolution, startMs: number): PartitionDamage | undefined;
  /** How many partitions are damaged: while none is, groups are not searched for damaged files. */
  readonly damagedCount: number;
  /** Records counts a task observed. */
  learn(counts: readonly PartitionCount[]): void;
  /** Records a damage a task found. */
  damaged(damage: PartitionDamage): void;
}

/** The partition files a group reads (its sources) and writes (its target). */
function filesOf(group: DueGroup): { res: Resolution; startMs: number }[] {
  const files = new Map<string, { res: Resolution; startMs: number }>();
  files.set(`${group.targetRes}:${group.targetStartMs}`, { res: group.targetRes, startMs: partitionStartOf(group.targetRes, group.targetStartMs) });
  for (const row of group.rows) {
    const startMs = partitionStartOf(row.sourceRes, row.sourceStartMs);
    files.set(`${row.sourceRes}:${startMs}`, { res: row.sourceRes, startMs });
  }
  return [...files.values()];
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
    // A group whose target or a source is damaged waits, without a task or a log line, until a
    // repair (with the store closed) clears the damage: retrying could only fail the same way.
    const ledger = this.deps.partitions;
    const damage = ledger !== undefined && ledger.damagedCount > 0 ? ledger : undefined;
    const blocked = (res: RollupResolution, startMs: number, group: DueGroup): boolean =>
      (this.failedUntil.get(`${res}:${startMs}`) ?? 0) > now || (damage !== undefined && filesOf(group).some((f) => damage.damageOf(f.res, f.startMs) !== undefined));
    for (const group of this.deps.due.groups(blocked)) {
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
    const ledger = this.deps.partitions;
    const task = {
      dataDir: this.deps.dataDir,
      durability: this.deps.durability,
      sourceRes: group.sourceRes,
      targetRes: group.targetRes,
      targetStartMs: group.targetStartMs,
      series: group.series,
      ...(ledger === undefined ? {} : { partitions: filesOf(group).map((f) => ledger.note(f.res, f.startMs)) }),
    };
    const done = this.deps.pool
      .run(task)
      .then((outcome) => {
        if (outcome.ok) {
          this.sourcePointsRolled += outcome.sourcePoints;
          if (outcome.counts !== undefined) ledger?.learn(outcome.counts);
          this.finish(group, outcome.counts);
          return;
        }
        this.failedUntil.set(key, this.deps.clock.now() + RETRY_AFTER_FAILURE_MS);
        const damage = outcome.code === 'STORE_PARTITION_DAMAGED' ? damageFromDetails(outcome.details) : undefined;
        // The ledger logs a damage once; the group then waits (see pump) rather than fail again.
        if (damage !== undefined && ledger !== undefined) ledger.damaged(damage);
        else this.deps.logger.error({ code: outcome.code, task: key }, `rollup task failed: ${outcome.message}`);
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

  /** Records a finished task: next level due, consumed rows cleared and the target's chunk count, in one transaction. */
  private finish(group: DueGroup, counts: readonly PartitionCount[] | undefined): void {
    const ids = group.series.map((s) => s.id);
    this.deps.onTargetWritten(group.targetRes, group.targetStartMs, ids);
    const added: DueRow[] = coarserOf(group.targetRes) === undefined ? [] : this.deps.due.add(group.targetRes, group.targetStartMs, ids, this.deps.clock.now());
    // The task reports the target's count last (after its write); rollup partitions are one chunk wide.
    const target = counts?.[counts.length - 1];
    const written: PartitionRow | undefined = target === undefined ? undefined : { res: target.res, startMs: target.startMs, chunks: target.chunks, firstSeq: null };
    this.deps.catalog.commitRollup(added, group.rows, written);
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
