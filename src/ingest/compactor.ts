// Owns compaction: rewriting a quiet FULL partition file with one chunk per series over its whole window, encoded with the entropy stage.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SampleColumns } from '../model/bucket.js';
import { mergeSamples } from '../model/merge-samples.js';
import { LAYOUT } from '../model/resolution.js';
import { CHUNK_LENGTH_MAX, decodeChunk, encodeChunk } from '../storage/chunk-codec.js';
import { CompactedFileWriter } from '../storage/compacted-file.js';
import type { Durability } from '../storage/open-database.js';
import {
  compactedKey,
  PARTITIONS_DIR,
  seriesOfKey,
  type ChunkRow,
  type PartitionSet,
} from '../storage/partition-set.js';

/** Series compacted per step: a step decodes, merges and encodes them (about 0.1 to 0.3 ms each). */
export const COMPACT_STEP_SERIES = 32;

/** Rows one series may have in a FULL partition file: a chunk per window and a compacted one. */
const ROWS_PER_SERIES_MAX = LAYOUT.FULL.partitionWidthMs / LAYOUT.FULL.chunkWidthMs + 1;

/** Suffix of the file a compaction builds next to the partition it replaces. */
const COMPACTION_SUFFIX = '.compacting';

/** What compaction needs from the store; store.ts wires it. */
export interface CompactorDeps {
  readonly dataDir: string;
  readonly durability: Durability;
  readonly partitions: PartitionSet;
  /** Records the replacement's exact (lower) chunk count before the swap (catalog and ledger). */
  readonly lowerCount: (partitionStartMs: number, chunks: number) => void;
}

/** What one finished compaction did. */
export interface CompactionResult {
  readonly partitionStartMs: number;
  /** Rows (chunks) in the file before and after. */
  readonly rowsBefore: number;
  readonly rowsAfter: number;
  /** Sum of the chunks' bytes before and after (payload, without SQLite's pages). */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/**
 * Compacts one FULL partition in bounded steps. `step` reads the next series' rows from the file
 * (in key order, a page at a time, so seals may write between steps), merges each series' window
 * chunks over its compacted chunk (the newer wins per timestamp, as in sealing) and writes one
 * compacted chunk per series ('compact' effort: the entropy stage, long runs) into a new file.
 * `finish` replaces the file, only if nothing was written to it since `begin`: a seal in between
 * would be lost with the old file, so the run is abandoned instead and the partition stays as it is.
 *
 * Crash safety: the new file is complete and synced before the catalog's count is lowered to its
 * row count, and that happens before the rename; a crash at any point leaves either the old file
 * (holding at least the recorded count) or the new one, and a leftover new file is deleted at the
 * next open (removeCompactionLeftovers).
 */
export class CompactRun {
  readonly partitionStartMs: number;
  private readonly deps: CompactorDeps;
  private readonly writesAtBegin: number;
  private readonly target: CompactedFileWriter;
  private lastKey = -1;
  private done = false;
  private rowsBefore = 0;
  private rowsAfter = 0;
  private bytesBefore = 0;
  private bytesAfter = 0;

  constructor(deps: CompactorDeps, partitionStartMs: number) {
    this.deps = deps;
    this.partitionStartMs = partitionStartMs;
    this.writesAtBegin = deps.partitions.writeCount('FULL', partitionStartMs);
    this.target = new CompactedFileWriter(deps.partitions.pathOf('FULL', partitionStartMs) + COMPACTION_SUFFIX, deps.durability);
  }

  /** True once every row of the file was read. */
  get read(): boolean {
    return this.done;
  }

  /** Compacts the next COMPACT_STEP_SERIES series. */
  step(): void {
    if (this.done) return;
    const { partitions } = this.deps;
    const limit = COMPACT_STEP_SERIES * ROWS_PER_SERIES_MAX;
    let rows = partitions.readRowsAfter('FULL', this.partitionStartMs, this.lastKey, limit);
    const cut = rows.findIndex((r, i) => i > 0 && seriesOfKey(r.key) !== seriesOfKey(rows[i - 1]!.key) && seriesCount(rows, i) >= COMPACT_STEP_SERIES);
    if (cut > 0) {
      // Series with fewer rows than the most: the page holds more than a step's series.
      rows = rows.slice(0, cut);
    } else if (rows.length === limit) {
      // The last series may continue past the page: leave it for the next step (a series has at
      // most ROWS_PER_SERIES_MAX rows, so a step compacts between COMPACT_STEP_SERIES - 1 and
      // COMPACT_STEP_SERIES series).
      const lastSeries = seriesOfKey(rows[rows.length - 1]!.key);
      rows = rows.filter((r) => seriesOfKey(r.key) !== lastSeries);
    } else {
      this.done = true;
    }
    const out: ChunkRow[] = [];
    let i = 0;
    while (i < rows.length) {
      const series = seriesOfKey(rows[i]!.key);
      let j = i;
      while (j < rows.length && seriesOfKey(rows[j]!.key) === series) j++;
      for (const row of this.compactSeries(series, rows.slice(i, j))) {
        out.push(row);
        this.rowsAfter++;
        this.bytesAfter += row.data.length;
      }
      i = j;
    }
    this.target.append(out);
    if (rows.length > 0) this.lastKey = rows[rows.length - 1]!.key;
  }

  /** One series' rows in the new file: a compacted chunk, or the rows as they were when it would be too long. */
  private compactSeries(seriesId: number, rows: readonly ChunkRow[]): ChunkRow[] {
    let merged: SampleColumns | undefined;
    const compacted = rows.find((r) => r.key === compactedKey(seriesId));
    if (compacted !== undefined) merged = decodeChunk(compacted.data);
    for (const row of rows) {
      this.rowsBefore++;
      this.bytesBefore += row.data.length;
      if (row === compacted) continue;
      const samples = decodeChunk(row.data);
      merged = merged === undefined ? samples : mergeSamples(merged, samples);
    }
    if (merged === undefined || merged.length > CHUNK_LENGTH_MAX) return [...rows];
    return [{ key: compactedKey(seriesId), data: encodeChunk(merged, 'compact') }];
  }

  /**
   * Replaces the partition file with the compacted one, unless a write reached the old file since
   * begin (then abandons and returns undefined). The caller ensures no other thread has the file
   * open (no rollup task reads it).
   */
  finish(): CompactionResult | undefined {
    const { partitions } = this.deps;
    if (!this.done || partitions.writeCount('FULL', this.partitionStartMs) !== this.writesAtBegin) {
      this.abandon();
      return undefined;
    }
    this.target.close();
    this.deps.lowerCount(this.partitionStartMs, this.rowsAfter);
    partitions.replaceFile('FULL', this.partitionStartMs, this.target.path);
    return {
      partitionStartMs: this.partitionStartMs,
      rowsBefore: this.rowsBefore,
      rowsAfter: this.rowsAfter,
      bytesBefore: this.bytesBefore,
      bytesAfter: this.bytesAfter,
    };
  }

  /** Drops the new file; the partition stays as it is. */
  abandon(): void {
    this.done = true;
    this.target.discard();
  }
}

/** Deletes files a compaction left when the process ended mid-run (their partition is intact). */
export function removeCompactionLeftovers(dataDir: string): number {
  const dir = join(dataDir, PARTITIONS_DIR, 'FULL');
  if (!existsSync(dir)) return 0;
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!/\.sqlite\.compacting(-wal|-shm|-journal)?$/.test(name)) continue;
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** Distinct series among rows[0..end) (rows in key order). */
function seriesCount(rows: readonly ChunkRow[], end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) if (i === 0 || seriesOfKey(rows[i]!.key) !== seriesOfKey(rows[i - 1]!.key)) count++;
  return count;
}
