// Owns sealing: turning a head window into one compressed chunk per series in a FULL partition file.
import type { SampleColumns } from '../model/bucket.js';
import type { Catalog, DueRow, PartitionRow } from '../storage/catalog.js';
import { decodeChunk, encodeChunk } from '../storage/chunk-codec.js';
import { damageOfError } from '../storage/partition-damage.js';
import { partitionStartOf, type ChunkWrite, type PartitionSet } from '../storage/partition-set.js';
import type { WalLog } from '../storage/wal-log.js';
import type { Head, HeadWindow } from './head.js';
import { mergeSamples } from '../model/merge-samples.js';

/** What sealing needs from the rest of the engine; store.ts wires it. */
export interface SealerDeps {
  readonly head: Head;
  readonly partitions: PartitionSet;
  readonly catalog: Catalog;
  readonly wal: WalLog;
  /** Sealed markers: FULL window start -> WAL seq through which it is sealed. */
  readonly sealed: Map<number, number>;
  /** Records that the FULL chunks of these series in this window changed; returns the due rows. */
  readonly markDue: (windowStartMs: number, seriesIds: readonly number[]) => DueRow[];
  /** Called after the chunks are on disk, so caches can forget the old ones. */
  readonly onChunksWritten: (windowStartMs: number, seriesIds: readonly number[]) => void;
  /** Seq of the last record appended to the WAL. */
  readonly lastSeq: () => number;
  /** True when the FULL partition starting at `partitionStartMs` is damaged: nothing is sealed into it. */
  readonly partitionDamaged: (partitionStartMs: number) => boolean;
  /** Called after the catalog recorded what a partition file holds now. */
  readonly onPartitionRecorded: (row: PartitionRow) => void;
}

/** WAL records still holding unsealed points: seq -> number of head windows they touch. */
export type LiveRecords = Map<number, number>;

/**
 * Seals one head window. Order matters for crash safety: (1) the chunks are written to the FULL
 * partition file; (2) one catalog transaction records the sealed marker, the rollups now due and
 * the file's chunk count; (3) the window leaves the head and WAL records whose points are all
 * sealed are released. A crash after (1) replays the WAL into the head and seals again (the merge
 * is idempotent); after (2) replay skips the sealed points.
 *
 * A damaged partition is never written: sealing into it could bury good points under a rebuilt
 * empty file or make the damage worse. The window then stays in the head (and its records in the
 * WAL) and 0 is returned; the damage is in the store's health until `strata check --repair` fixes it.
 */
export function sealWindow(deps: SealerDeps, windowStartMs: number, live: LiveRecords): number {
  const window = deps.head.windows.get(windowStartMs);
  if (window === undefined) return 0;
  const partitionStartMs = partitionStartOf('FULL', windowStartMs);
  if (deps.partitionDamaged(partitionStartMs)) return 0;
  let chunks: number;
  const ids: number[] = [];
  try {
    const writes: ChunkWrite[] = [];
    for (const [seriesId, buffer] of window.series) {
      let samples: SampleColumns = buffer.samples();
      // Always look: a stored chunk (an earlier seal, or one a crash left without its marker) is
      // merged under the head's samples, so sealing never depends on bookkeeping to keep data.
      const stored = deps.partitions.readChunk('FULL', seriesId, windowStartMs);
      if (stored !== undefined) samples = mergeSamples(decodeChunk(stored), samples);
      writes.push({ seriesId, chunkStartMs: windowStartMs, data: encodeChunk(samples) });
      ids.push(seriesId);
    }
    chunks = deps.partitions.writeChunks('FULL', partitionStartMs, writes);
  } catch (error) {
    // Found damaged on first use (the partition set recorded and logged it): keep the window.
    if (damageOfError(error) !== undefined) return 0;
    throw error;
  }
  // Taken only now: until the chunks are on disk the head must keep serving and holding them.
  deps.head.take(windowStartMs);
  deps.onChunksWritten(windowStartMs, ids);
  const throughSeq = deps.lastSeq();
  const written: PartitionRow = { res: 'FULL', startMs: partitionStartMs, chunks, firstSeq: window.seqs[0] ?? null };
  deps.catalog.commitSeal(windowStartMs, throughSeq, deps.markDue(windowStartMs, ids), written);
  deps.onPartitionRecorded(written);
  deps.sealed.set(windowStartMs, throughSeq);
  releaseRecords(deps.wal, window, live);
  return window.points;
}

function releaseRecords(wal: WalLog, window: HeadWindow, live: LiveRecords): void {
  for (const seq of window.seqs) {
    const remaining = (live.get(seq) ?? 1) - 1;
    if (remaining > 0) {
      live.set(seq, remaining);
    } else {
      live.delete(seq);
      wal.release(seq);
    }
  }
}
