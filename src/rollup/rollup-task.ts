// Owns one unit of rollup work: recompute a target chunk's buckets over the source windows that changed.
import { isStrataError } from '../core/errors.js';
import type { BucketColumns } from '../model/bucket.js';
import { LAYOUT, type Resolution, type RollupResolution } from '../model/resolution.js';
import { decodeBuckets, encodeBuckets } from '../storage/bucket-codec.js';
import { decodeChunk } from '../storage/chunk-codec.js';
import type { Durability } from '../storage/open-database.js';
import { PartitionSet, type ChunkWrite } from '../storage/partition-set.js';
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
}

/** A task's outcome. Errors never cross the worker boundary as exceptions (piscina drops their fields). */
export type RollupOutcome =
  | { readonly ok: true; readonly seriesWritten: number; readonly sourcePoints: number }
  | { readonly ok: false; readonly code: string; readonly message: string };

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
  const bytes = parts.readChunk(task.sourceRes, seriesId, sourceStartMs);
  if (bytes === undefined) return undefined;
  const widthMs = LAYOUT[task.targetRes].bucketWidthMs;
  if (task.sourceRes === 'FULL') {
    const samples = decodeChunk(bytes);
    return { buckets: bucketsFromSamples(samples, widthMs), sourcePoints: samples.length + (samples.strings?.length ?? 0) };
  }
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
  try {
    parts = new PartitionSet(task.dataDir, task.durability);
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
    parts.writeChunks(task.targetRes, task.targetStartMs, writes);
    return { ok: true, seriesWritten: writes.length, sourcePoints };
  } catch (error) {
    return failure(error);
  } finally {
    parts?.close();
  }
}

/** A thrown error as an outcome: a StrataError keeps its code (piscina would drop it); anything else is INTERNAL. */
function failure(error: unknown): RollupOutcome {
  if (isStrataError(error)) return { ok: false, code: error.code, message: error.message };
  return { ok: false, code: 'INTERNAL', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}
