// Owns the partition files of every resolution: naming, opening, chunk reads and writes, dropping.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { assert } from '../core/assert.js';
import { alignDown } from '../core/time.js';
import { LAYOUT, RESOLUTIONS, type Resolution } from '../model/resolution.js';
import { openDatabase, PRIVATE_DIR_MODE, type Durability } from './open-database.js';

/** Chunk slots per partition file; the chunk key is series_id * SLOTS_PER_PARTITION + slot. */
export const SLOTS_PER_PARTITION = 16;

for (const res of RESOLUTIONS) {
  const { chunkWidthMs, partitionWidthMs } = LAYOUT[res];
  if (partitionWidthMs % chunkWidthMs !== 0 || partitionWidthMs / chunkWidthMs > SLOTS_PER_PARTITION) {
    throw new Error(`layout of ${res}: partition width must be a multiple of at most ${SLOTS_PER_PARTITION} chunk widths`);
  }
}

/**
 * Page size per resolution. Chunks are stored whole in leaf pages, and a page holds whole chunks
 * only, so a page should hold many chunks: MIN5 and MIN20 chunks are 2 to 5 KB (with 4 KiB pages
 * each would waste about 20 % of its page), FULL chunks 0.2 to 1.5 KB, the coarser ones small
 * files where big pages would be mostly empty.
 */
const PAGE_BYTES: Readonly<Record<Resolution, number>> = {
  FULL: 16_384,
  MIN5: 65_536,
  MIN20: 65_536,
  MIN60: 16_384,
  MIN240: 16_384,
  MIN1440: 16_384,
};

/** One chunk to store. */
export interface ChunkWrite {
  readonly seriesId: number;
  readonly chunkStartMs: number;
  readonly data: Uint8Array;
}

interface OpenPartition {
  readonly db: Database.Database;
  readonly select: Database.Statement;
  readonly upsert: Database.Statement;
}

/** Start of the partition window holding `timeMs` at `res`. */
export function partitionStartOf(res: Resolution, timeMs: number): number {
  return alignDown(timeMs, LAYOUT[res].partitionWidthMs);
}

function chunkKey(res: Resolution, seriesId: number, chunkStartMs: number): number {
  const slot = (chunkStartMs - partitionStartOf(res, chunkStartMs)) / LAYOUT[res].chunkWidthMs;
  return seriesId * SLOTS_PER_PARTITION + slot;
}

/**
 * Checks, before anything is written, that every chunk belongs to the partition: the chunk key
 * only holds the slot within a partition, so a chunk of the next partition would overwrite slot 0
 * of this one, and one off the chunk grid would have no slot at all.
 */
function assertInPartition(res: Resolution, partitionStartMs: number, chunks: readonly ChunkWrite[]): void {
  const { chunkWidthMs } = LAYOUT[res];
  assert(partitionStartOf(res, partitionStartMs) === partitionStartMs, `${partitionStartMs} is not a ${res} partition start`);
  for (const c of chunks) {
    const inPartition = partitionStartOf(res, c.chunkStartMs) === partitionStartMs;
    const onGrid = alignDown(c.chunkStartMs, chunkWidthMs) === c.chunkStartMs;
    // Messages are built only on failure: a seal writes one chunk per series.
    if (inPartition && onGrid) continue;
    const where = `chunk of series ${c.seriesId} at ${c.chunkStartMs}`;
    assert(inPartition, `${where} is not in the ${res} partition starting at ${partitionStartMs}`);
    assert(onGrid, `${where} is not on the ${res} chunk grid (${chunkWidthMs} ms)`);
  }
}

/**
 * The partition files under `<dir>/partitions/<RES>/<startMs>.sqlite`. A thread keeps one
 * connection per file it touches; the owner of the store writes FULL files, rollup workers write
 * rollup files, and queries read any of them.
 */
export class PartitionSet {
  private readonly root: string;
  private readonly durability: Durability;
  private readonly open = new Map<string, OpenPartition>();
  private readonly known = new Map<Resolution, Set<number>>();

  constructor(dataDir: string, durability: Durability) {
    this.root = join(dataDir, 'partitions');
    this.durability = durability;
    for (const res of RESOLUTIONS) {
      const dir = join(this.root, res);
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const starts = readdirSync(dir)
        .map((name) => /^(-?\d+)\.sqlite$/.exec(name)?.[1])
        .filter((s): s is string => s !== undefined)
        .map(Number);
      this.known.set(res, new Set(starts));
    }
  }

  /** Path of the partition file of `res` starting at `partitionStartMs`. */
  pathOf(res: Resolution, partitionStartMs: number): string {
    return join(this.root, res, `${partitionStartMs}.sqlite`);
  }

  /** Partition starts of `res` known to exist, ascending. */
  starts(res: Resolution): number[] {
    return [...(this.known.get(res) as Set<number>)].sort((a, b) => a - b);
  }

  /** Tells this set that another thread created a partition file. */
  noteCreated(res: Resolution, partitionStartMs: number): void {
    (this.known.get(res) as Set<number>).add(partitionStartMs);
  }

  private partition(res: Resolution, partitionStartMs: number, create: boolean): OpenPartition | undefined {
    const path = this.pathOf(res, partitionStartMs);
    let part = this.open.get(path);
    if (part !== undefined) return part;
    const known = this.known.get(res) as Set<number>;
    if (!create && !known.has(partitionStartMs) && !existsSync(path)) return undefined;
    const db = openDatabase(path, { file: 'partition', durability: this.durability, pageBytes: PAGE_BYTES[res] });
    part = {
      db,
      select: db.prepare('SELECT data FROM chunk WHERE key = ?').pluck(),
      upsert: db.prepare('INSERT INTO chunk (key, data) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data'),
    };
    this.open.set(path, part);
    known.add(partitionStartMs);
    return part;
  }

  /** The stored chunk of a series at `chunkStartMs`, or undefined. */
  readChunk(res: Resolution, seriesId: number, chunkStartMs: number): Uint8Array | undefined {
    const part = this.partition(res, partitionStartOf(res, chunkStartMs), false);
    if (part === undefined) return undefined;
    return part.select.get(chunkKey(res, seriesId, chunkStartMs)) as Uint8Array | undefined;
  }

  /**
   * Writes chunks that all lie in one partition file, in one transaction. Every chunk must start on
   * the chunk grid of `res` inside the partition starting at `partitionStartMs` (asserted).
   */
  writeChunks(res: Resolution, partitionStartMs: number, chunks: readonly ChunkWrite[]): void {
    assertInPartition(res, partitionStartMs, chunks);
    const part = this.partition(res, partitionStartMs, true) as OpenPartition;
    part.db.transaction(() => {
      for (const c of chunks) part.upsert.run(chunkKey(res, c.seriesId, c.chunkStartMs), c.data);
    })();
  }

  /** Deletes a partition file (and its -wal and -shm); the caller ensures nobody reads it. */
  drop(res: Resolution, partitionStartMs: number): void {
    const path = this.pathOf(res, partitionStartMs);
    const part = this.open.get(path);
    if (part !== undefined) {
      part.db.close();
      this.open.delete(path);
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    (this.known.get(res) as Set<number>).delete(partitionStartMs);
  }

  /** Checkpoints every open file's WAL into the file (for exact disk accounting and clean shutdown). */
  checkpoint(): void {
    for (const part of this.open.values()) part.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Closes every open connection. */
  close(): void {
    for (const part of this.open.values()) part.db.close();
    this.open.clear();
  }
}
