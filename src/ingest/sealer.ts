// Owns sealing: turning a head window into one compressed chunk per series in a FULL partition file.
import type { SampleColumns } from '../model/bucket.js';
import type { Catalog, DueRow, PartitionRow } from '../storage/catalog.js';
import { encodeChunk } from '../storage/chunk-codec.js';
import { readFullWindows } from '../storage/full-window.js';
import { damageOfError } from '../storage/partition-damage.js';
import { partitionStartOf, type ChunkWrite, type PartitionSet } from '../storage/partition-set.js';
import type { WalLog } from '../storage/wal-log.js';
import type { Head, HeadWindow } from './head.js';
import type { HeadBuffer } from './head-buffer.js';
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
  /** Called after the chunks of a step are on disk, so caches can forget the old ones. */
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

/** What one step of a seal covered, and whether the window can still be sealed. */
export interface SealStepResult {
  /** Head points of the series the step wrote (their buffers' lengths). */
  readonly points: number;
  /** Series the step wrote. */
  readonly series: number;
  /** False when the partition is damaged: the run must be abandoned (the window goes back). */
  readonly ok: boolean;
}

/**
 * Seals one head window in bounded steps. `begin` freezes the window out of the head in O(series)
 * and fixes `throughSeq`, the WAL's last seq at that moment: writes arriving later for the same
 * range go to a fresh window with later seqs, which the sealed marker does not cover.
 *
 * Order matters for crash safety: (1) each `step` writes the chunks of some series to the FULL
 * partition file, with the rollups now due and the file's chunk count, in its own transactions;
 * (2) `finish` records the sealed marker in one catalog transaction; (3) only then the window's
 * points leave the head's count and WAL records whose points are all sealed are released. A crash
 * before (2) replays the WAL into the head and seals again (the merge with the stored chunk is
 * idempotent: the newer sample wins per timestamp); after (2) replay skips the sealed points.
 *
 * A damaged partition is never written: sealing into it could bury good points under a rebuilt
 * empty file or make the damage worse. The run is then abandoned: the window goes back into the
 * head (and its records stay in the WAL); the damage is in the store's health until
 * `strata check --repair` fixes it.
 */
export class SealRun {
  /** The frozen window: readers merge it under the head's fresh window of the same start. */
  readonly window: HeadWindow;
  /** WAL seq through which the window's points are sealed once the run finishes. */
  readonly throughSeq: number;
  /** Start of the FULL partition file the window is sealed into. */
  readonly partitionStartMs: number;
  /** Steps taken so far. */
  steps = 0;
  private readonly deps: SealerDeps;
  private readonly series: [number, HeadBuffer][];
  private next = 0;
  private state: 'sealing' | 'finished' | 'abandoned' = 'sealing';

  private constructor(deps: SealerDeps, window: HeadWindow) {
    this.deps = deps;
    this.window = window;
    this.throughSeq = deps.lastSeq();
    this.partitionStartMs = partitionStartOf('FULL', window.startMs);
    this.series = [...window.series];
  }

  /** Freezes the head window at `windowStartMs`; undefined when there is none or its partition is damaged. */
  static begin(deps: SealerDeps, windowStartMs: number): SealRun | undefined {
    if (!deps.head.windows.has(windowStartMs)) return undefined;
    if (deps.partitionDamaged(partitionStartOf('FULL', windowStartMs))) return undefined;
    return new SealRun(deps, deps.head.freeze(windowStartMs) as HeadWindow);
  }

  /** True once every series is written: `finish` may run. */
  get written(): boolean {
    return this.next >= this.series.length;
  }

  /**
   * Merges, encodes and writes the next series, at least one, until `pointsMax` head points or
   * `seriesMax` series are covered, in one partition transaction.
   */
  step(pointsMax: number, seriesMax: number): SealStepResult {
    const { deps, window } = this;
    if (deps.partitionDamaged(this.partitionStartMs)) return { points: 0, series: 0, ok: false };
    const writes: ChunkWrite[] = [];
    const ids: number[] = [];
    let points = 0;
    try {
      const buffers: HeadBuffer[] = [];
      while (this.next < this.series.length && (ids.length === 0 || (points < pointsMax && ids.length < seriesMax))) {
        const [seriesId, buffer] = this.series[this.next++] as [number, HeadBuffer];
        ids.push(seriesId);
        buffers.push(buffer);
        points += buffer.length;
      }
      // Always look: a stored chunk (an earlier seal, or one a crash left without its marker) is
      // merged under the head's samples, so sealing never depends on bookkeeping to keep data.
      // The step's series are read together, in one read of the partition file.
      const stored = readFullWindows(deps.partitions, ids, window.startMs);
      for (let k = 0; k < ids.length; k++) {
        // A view, not a copy: encoded (or merged into new columns) before the buffer can change.
        let samples: SampleColumns = (buffers[k] as HeadBuffer).samplesView();
        const before = stored[k];
        if (before !== undefined) samples = mergeSamples(before, samples);
        writes.push({ seriesId: ids[k] as number, chunkStartMs: window.startMs, data: encodeChunk(samples) });
      }
      const chunks = deps.partitions.writeChunks('FULL', this.partitionStartMs, writes);
      const row: PartitionRow = { res: 'FULL', startMs: this.partitionStartMs, chunks, firstSeq: window.seqs[0] ?? null };
      // Due rows may precede the marker: these series' chunks are final for this window, and a
      // rollup of a chunk is idempotent, so a crash before the marker only repeats work.
      deps.catalog.commitSealStep(deps.markDue(window.startMs, ids), row);
      deps.onPartitionRecorded(row);
    } catch (error) {
      // Found damaged on first use (the partition set recorded and logged it): keep the window.
      if (damageOfError(error) !== undefined) return { points, series: ids.length, ok: false };
      throw error;
    }
    deps.onChunksWritten(window.startMs, ids);
    this.steps++;
    return { points, series: ids.length, ok: true };
  }

  /** Records the sealed marker, then lets the window's points and its WAL records go. */
  finish(live: LiveRecords): void {
    const { deps, window } = this;
    if (this.state !== 'sealing' || !this.written) throw new Error('a seal finishes once, after every series is written');
    deps.catalog.commitSeal(window.startMs, this.throughSeq, []);
    deps.sealed.set(window.startMs, this.throughSeq);
    this.state = 'finished';
    deps.head.release(window);
    releaseRecords(deps.wal, window, live);
  }

  /** Puts the window back into the head; its records stay live. Nothing happens once finished. */
  abandon(): void {
    if (this.state !== 'sealing') return;
    this.state = 'abandoned';
    this.deps.head.thaw(this.window);
  }
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
