// Owns when compaction runs: picking quiet FULL partitions, running one compaction at a time in turns, and the swap's guards.
import { LAYOUT } from './model/resolution.js';
import { CompactRun, type CompactionResult, type CompactorDeps } from './ingest/compactor.js';
import type { StoreLogger } from './store-types.js';

/** What the runner asks the store about a partition (store.ts wires it). */
export interface CompactionGuards {
  /** True when compaction must not touch the partition now: damaged, being sealed into, holding head windows, or expired. */
  readonly unavailable: (partitionStartMs: number) => boolean;
  /** True while a rollup task may have the partition's file open (the swap waits for it). */
  readonly readByWorkers: (partitionStartMs: number) => boolean;
  /** Waits for the rollup tasks going on. */
  readonly settleWorkers: () => Promise<void>;
  /** Called after a swap (caches may forget the partition's decoded windows). */
  readonly onReplaced: (partitionStartMs: number) => void;
  readonly closed: () => boolean;
  readonly nowMs: () => number;
  readonly logger: StoreLogger;
}

/**
 * How long a partition must go without a seal writing into it before the background compacts it:
 * a backfill or a burst of late data seals into the same files many times in a row, and each
 * compaction rewrites the whole file. compactAll (compactStore) does not wait.
 */
export const COMPACTION_QUIET_MS = 5 * 60_000;

const FULL_PARTITION_MS = LAYOUT.FULL.partitionWidthMs;

/**
 * Runs compactions one at a time. A partition is a candidate when it is available (see the
 * guards) and not already compacted with nothing sealed into it since; the current partition
 * holds the head's window while data streams in, so in steady state a partition is compacted
 * once, soon after it ends, and again only if late points are sealed into it.
 */
export class CompactionRunner {
  private readonly deps: CompactorDeps;
  private readonly guards: CompactionGuards;
  /** Partitions found fully compacted, with the set's write count at that moment. */
  private readonly clean = new Map<number, number>();
  private running: { readonly run: CompactRun; readonly done: Promise<CompactionResult | undefined> } | undefined;
  /** Per partition, the write count last seen and since when it has not changed. */
  private readonly seen = new Map<number, { writes: number; sinceMs: number }>();

  constructor(deps: CompactorDeps, guards: CompactionGuards) {
    this.deps = deps;
    this.guards = guards;
  }

  /** The partition being compacted, if any (the sweeper leaves it alone). */
  get current(): number | undefined {
    return this.running?.run.partitionStartMs;
  }

  /** Partitions worth compacting now, oldest first; `quietOnly` keeps those no seal wrote into for COMPACTION_QUIET_MS. */
  candidates(quietOnly = false): number[] {
    const { partitions } = this.deps;
    const out: number[] = [];
    const starts = partitions.starts('FULL');
    // Forget dropped partitions, so both maps stay as small as the set of files.
    const present = new Set(starts);
    for (const map of [this.seen, this.clean]) for (const start of map.keys()) if (!present.has(start)) map.delete(start);
    for (const start of starts) {
      if (this.guards.unavailable(start)) continue;
      const writes = partitions.writeCount('FULL', start);
      if (this.clean.get(start) === writes) continue;
      const seen = this.seen.get(start);
      const nowMs = this.guards.nowMs();
      if (seen === undefined || seen.writes !== writes) this.seen.set(start, { writes, sinceMs: nowMs });
      if (quietOnly && nowMs - (seen?.writes === writes ? seen.sinceMs : nowMs) < COMPACTION_QUIET_MS) continue;
      if (partitions.isCompacted('FULL', start)) {
        this.clean.set(start, writes);
        continue;
      }
      out.push(start);
    }
    return out;
  }

  /** Starts compacting the oldest candidate unless a compaction is going; errors are logged. */
  startNext(): void {
    if (this.running !== undefined || this.guards.closed()) return;
    const start = this.candidates(true)[0];
    if (start === undefined) return;
    this.start(start).catch((error: unknown) => this.guards.logger.error({ err: error, partitionStartMs: start }, 'compaction failed'));
  }

  /** Compacts every candidate in turn (after the compaction going on); resolves with what each did. */
  async compactAll(): Promise<CompactionResult[]> {
    const results: CompactionResult[] = [];
    await this.settled();
    for (const start of this.candidates()) {
      if (this.guards.closed()) break;
      // A background start may have taken the turn meanwhile; wait for it rather than run two.
      await this.settled();
      if (this.guards.unavailable(start)) continue;
      const result = await this.start(start);
      if (result !== undefined) results.push(result);
    }
    return results;
  }

  /** Resolves once the compaction going on, if any, has finished or been abandoned. */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running.done.catch(() => undefined);
  }

  private start(partitionStartMs: number): Promise<CompactionResult | undefined> {
    const run = new CompactRun(this.deps, partitionStartMs);
    const done = this.drive(run).finally(() => {
      this.running = undefined;
    });
    this.running = { run, done };
    return done;
  }

  private async drive(run: CompactRun): Promise<CompactionResult | undefined> {
    const start = run.partitionStartMs;
    try {
      while (!run.read) {
        if (this.guards.closed() || this.guards.unavailable(start)) {
          run.abandon();
          return undefined;
        }
        run.step();
        // A turn of the event loop between steps: writes, queries and seals go on meanwhile.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // The swap closes and renames the file: no rollup task may have it open.
      while (this.guards.readByWorkers(start) && !this.guards.closed()) await this.guards.settleWorkers();
      if (this.guards.closed() || this.guards.unavailable(start)) {
        run.abandon();
        return undefined;
      }
      const result = run.finish();
      if (result === undefined) return undefined;
      this.clean.set(start, this.deps.partitions.writeCount('FULL', start));
      this.guards.onReplaced(start);
      this.guards.logger.info({ ...result, partitionEndMs: start + FULL_PARTITION_MS }, 'compacted a partition');
      return result;
    } catch (error) {
      run.abandon();
      throw error;
    }
  }
}
