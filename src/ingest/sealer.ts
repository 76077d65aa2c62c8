// Owns sealing: turning a head window into one compressed chunk per series in a FULL partition file.
import type { SampleColumns } from '../model/bucket.js';
import type { Catalog, DueRow } from '../storage/catalog.js';
import { decodeChunk, encodeChunk } from '../storage/chunk-codec.js';
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
}

/** WAL records still holding unsealed points: seq -> number of head windows they touch. */
export type LiveRecords = Map<number, number>;

/**
 * Seals one head window. Order matters for crash safety: (1) the chunks are written to the FULL
 * partition file; (2) one catalog transaction records the sealed marker and the rollups now due;
 * (3) WAL records whose points are all sealed are released. A crash after (1) replays the WAL into
 * the head and seals again (the merge is idempotent); after (2) replay skips the sealed points.
 */
export function sealWindow(deps: SealerDeps, windowStartMs: number, live: LiveRecords): number {
  const window = deps.head.take(windowStartMs);
  if (window === undefined) return 0;
  const writes: ChunkWrite[] = [];
  const ids: number[] = [];
  for (const [seriesId, buffer] of window.series) {
    let samples: SampleColumns = buffer.samples();
    // Always look: a stored chunk (an earlier seal, or one a crash left without its marker) is
    // merged under the head's samples, so sealing never depends on bookkeeping to keep data.
    const stored = deps.partitions.readChunk('FULL', seriesId, windowStartMs);
    if (stored !== undefined) samples = mergeSamples(decodeChunk(stored), samples);
    writes.push({ seriesId, chunkStartMs: windowStartMs, data: encodeChunk(samples) });
    ids.push(seriesId);
  }
  deps.partitions.writeChunks('FULL', partitionStartOf('FULL', windowStartMs), writes);
  deps.onChunksWritten(windowStartMs, ids);
  const throughSeq = deps.lastSeq();
  deps.catalog.commitSeal(windowStartMs, throughSeq, deps.markDue(windowStartMs, ids));
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
