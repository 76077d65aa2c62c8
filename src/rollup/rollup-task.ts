// Owns one unit of rollup work: recompute a target chunk's buckets over the source windows that changed.
import { isStrataError } from '../core/errors.js';
import type { BucketColumns } from '../model/bucket.js';
import { LAYOUT, type Resolution, type RollupResolution } from '../model/resolution.js';
import { decodeBuckets, encodeBuckets } from '../storage/bucket-codec.js';
import { readFullWindow } from '../storage/full-window.js';
import type { Durability } from '../storage/open-database.js';
import type { PartitionCount, PartitionNote } from '../storage/partition-ledger.js';
import { PartitionSet, type ChunkWrite, type PartitionState, type PartitionWatch } from '../storage/partition-set.js';
import { bucketsFromBuckets, bucketsFromSamples, overlayBuckets } from '../model/rollup-math.js';

/** One series of a task and the source chunk windows of it that changed. */
export interface TaskSeries {
  readonly id: number;
  readonly sourceStartsMs: readonly number[];
}

/** A rollup task, as sent to a worker (structured-clone friendly). */
export interface RollupTask {
  readonly dataDir: string;
  readonly durability: Durability;
  readonly sourceRes: Resolution;
  readonly targetRes: RollupResolution;
  /** Start of the target chunk (and partition) window all source windows lie in. */
  readonly targetStartMs: number;
  readonly series: readonly TaskSeries[];
  /**
   * What the store knows of the partitions the task opens (its target and sources). When given,
   * files already verified in this process are not verified again, a file the catalog lists must
   * exist, and the outcome reports the counts the task learnt (`counts`). Without it every file is
   * verified on first use and nothing is reported (a task run on its own, as in tests).
   */
  readonly partitions?: readonly PartitionNote[];
}

/** A task's outcome. Errors never cross the worker boundary as exceptions (piscina drops their fields). */
export type RollupOutcome =
  | {
      readonly ok: true;
      readonly seriesWritten: number;
      readonly sourcePoints: number;
      /** Only when the task was given `partitions`: counts seen by verifying files, and the target's count after the write. */
      readonly counts?: readonly PartitionCount[];
    }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> };

/**
 * The watch of a worker's partition set: the store's notes about the task's files, and a record of
 * what verifying them found (damage comes back as STORE_PARTITION_DAMAGED with its details).
 */
class TaskWatch implements PartitionWatch {
  private readonly notes = new Map<string, PartitionNote>();
  readonly counts: PartitionCount[] = [];

  constructor(notes: readonly PartitionNote[]) {
    for (const note of notes) this.notes.set(`${note.res}:${note.startMs}`, note);
  }

  state(res: Resolution, startMs: number): PartitionState {
    const note = this.notes.get(`${res}:${startMs}`);
    return { chunks: note?.chunks, verified: note?.verified ?? false, damage: undefined };
  }

  verified(res: Resolution, startMs: number, chunks: number): void {
    this.counts.push({ res, startMs, chunks });
  }

  damaged(): void {
    // The error thrown right after carries the damage back to the store, which records it.
  }
}

const EMPTY_BUCKETS: BucketColumns = {
  length: 0,
  startsMs: new Float64Array(0),
  numPoints: new Float64Array(0),
  count: new Float64Array(0),
  mean: new Float64Array(0),
  m2: new Float64Array(0),
  min: new Float64Array(0),
  max: new Float64Array(0),
};

interface Computed {
  readonly buckets: BucketColumns;
  readonly sourcePoints: number;
}

/** Buckets at the target width computed from one stored source chunk, or undefined when it is gone. */
function fromSource(parts: PartitionSet, task: RollupTask, seriesId: number, sourceStartMs: number): Computed | undefined {
  const widthMs = LAYOUT[task.targetRes].bucketWidthMs;
  if (task.sourceRes === 'FULL') {
    const samples = readFullWindow(parts, seriesId, sourceStartMs);
    if (samples === undefined) return undefined;
    return { buckets: bucketsFromSamples(samples, widthMs), sourcePoints: samples.length + (samples.strings?.length ?? 0) };
  }
  const bytes = parts.readChunk(task.sourceRes, seriesId, sourceStartMs);
  if (bytes === undefined) return undefined;
  const child = decodeBuckets(bytes);
  return { buckets: bucketsFromBuckets(child, widthMs), sourcePoints: child.length };
}

/**
 * Runs a task against the files: for every series, reads the target chunk, replaces the buckets of
 * each changed source window with buckets recomputed from that source chunk, and writes the target
 * chunks back in one transaction. A source chunk that no longer exists (its file expired) leaves the
 * target buckets as they are: rollups outlive their sources by design.
 */
export function runRollupTask(task: RollupTask): RollupOutcome {
  // Opening the set creates directories and may fail (a missing or unwritable data directory): inside
  // the try, so that failure also comes back as a value rather than thrown across the worker boundary.
  let parts: PartitionSet | undefined;
  const watch = task.partitions === undefined ? undefined : new TaskWatch(task.partitions);
  try {
    parts = new PartitionSet(task.dataDir, task.durability, watch);
    const sourceWidthMs = LAYOUT[task.sourceRes].chunkWidthMs;
    const writes: ChunkWrite[] = [];
    let sourcePoints = 0;
    for (const s of task.series) {
      const stored = parts.readChunk(task.targetRes, s.id, task.targetStartMs);
      let buckets = stored === undefined ? EMPTY_BUCKETS : decodeBuckets(stored);
      for (const sourceStartMs of s.sourceStartsMs) {
        const computed = fromSource(parts, task, s.id, sourceStartMs);
        if (computed === undefined) continue;
        sourcePoints += computed.sourcePoints;
        buckets = overlayBuckets(buckets, computed.buckets, sourceStartMs, sourceStartMs + sourceWidthMs);
      }
      writes.push({ seriesId: s.id, chunkStartMs: task.targetStartMs, data: encodeBuckets(buckets) });
    }
    const chunks = parts.writeChunks(task.targetRes, task.targetStartMs, writes);
    if (watch === undefined) return { ok: true, seriesWritten: writes.length, sourcePoints };
    const counts = [...watch.counts, { res: task.targetRes, startMs: task.targetStartMs, chunks }];
    return { ok: true, seriesWritten: writes.length, sourcePoints, counts };
  } catch (error) {
    return failure(error);
  } finally {
    parts?.close();
  }
}

/** A thrown error as an outcome: a StrataError keeps its code (piscina would drop it); anything else is INTERNAL. */
function failure(error: unknown): RollupOutcome {
  if (isStrataError(error)) return { ok: false, code: error.code, message: error.message, details: { ...error.details } };
  return { ok: false, code: 'INTERNAL', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}
