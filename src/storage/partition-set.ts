// Owns the partition files of every resolution: naming, opening, chunk reads and writes, dropping.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { assert } from '../core/assert.js';
import { alignDown } from '../core/time.js';
import { LAYOUT, RESOLUTIONS, type Resolution } from '../model/resolution.js';
import { openDatabase, PRIVATE_DIR_MODE, type Durability } from './open-database.js';
import { fileFaultOf, partitionDamagedError, relativeFault, type FileFault, type PartitionDamage } from './partition-damage.js';
import { checkPartitionHeader } from './partition-header.js';
import { verifyOpenPartition } from './partition-verify.js';

/** Chunk slots per partition file; the chunk key is series_id * SLOTS_PER_PARTITION + slot. */
export const SLOTS_PER_PARTITION = 16;

/**
 * The slot of a compacted chunk: one chunk holding a series over its whole partition window,
 * written by compaction (ingest/compactor.ts). Readers merge it under the window slots (which hold
 * anything sealed after the compaction). Layouts use fewer slots (asserted below), so it is free.
 */
export const COMPACTED_SLOT = SLOTS_PER_PARTITION - 1;

for (const res of RESOLUTIONS) {
  const { chunkWidthMs, partitionWidthMs } = LAYOUT[res];
  if (partitionWidthMs % chunkWidthMs !== 0 || partitionWidthMs / chunkWidthMs > COMPACTED_SLOT) {
    throw new Error(`layout of ${res}: partition width must be a multiple of at most ${COMPACTED_SLOT} chunk widths`);
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
  readonly res: Resolution;
  readonly startMs: number;
  readonly db: Database.Database;
  readonly select: Database.Statement;
  readonly rowsAfter: Database.Statement;
  /** Inserts a chunk unless its key exists (then `changes` is 0 and `update` rewrites it). */
  readonly insert: Database.Statement;
  readonly update: Database.Statement;
  /** Chunks the file holds: counted when it was verified (or known exactly), plus every insert since. */
  chunks: number;
  /** The file was written by compaction (COMPACTED_APPLICATION_ID): it may hold compacted chunks. */
  readonly compacted: boolean;
}

/** What the owner of the catalog knows about one partition file, handed to whoever opens it. */
export interface PartitionState {
  /** Chunks recorded at the file's last write (a lower bound), or undefined when no record says it must exist. */
  readonly chunks: number | undefined;
  /** The file was verified in this process, so `chunks` is exact and opening skips quick_check and the count. */
  readonly verified: boolean;
  /** Set when the partition is known damaged or lost: opening it throws STORE_PARTITION_DAMAGED. */
  readonly damage: PartitionDamage | undefined;
}

/** How a PartitionSet learns what to expect of each file, and reports what it found. */
export interface PartitionWatch {
  state(res: Resolution, partitionStartMs: number): PartitionState;
  /** A file passed verification (or was created) and holds `chunks` chunks. */
  verified(res: Resolution, partitionStartMs: number, chunks: number): void;
  /** A file was found damaged; the set throws STORE_PARTITION_DAMAGED right after. */
  damaged(damage: PartitionDamage): void;
}

const NOTHING_KNOWN: PartitionState = { chunks: undefined, verified: false, damage: undefined };

/** The watch of a set nobody tells anything: every file is verified on first use, findings go nowhere. */
const UNWATCHED: PartitionWatch = { state: () => NOTHING_KNOWN, verified: () => {}, damaged: () => {} };

/** Name of the directory under the data directory that holds the partition files. */
export const PARTITIONS_DIR = 'partitions';

/** Path of the partition file of `res` starting at `partitionStartMs` under `dataDir`. */
export function partitionPath(dataDir: string, res: Resolution, partitionStartMs: number): string {
  return join(dataDir, PARTITIONS_DIR, res, `${partitionStartMs}.sqlite`);
}

/** Starts of the partition files of `res` present under `dataDir` (none when its directory is missing). */
export function partitionFilesOf(dataDir: string, res: Resolution): number[] {
  const dir = join(dataDir, PARTITIONS_DIR, res);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^(-?\d+)\.sqlite$/.exec(name)?.[1])
    .filter((s): s is string => s !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The series id a chunk key belongs to. */
export function seriesOfKey(key: number): number {
  return Math.floor(key / SLOTS_PER_PARTITION);
}

/** The chunk start a chunk key stands for in the partition of `res` starting at `partitionStartMs`. */
export function chunkStartOfKey(res: Resolution, partitionStartMs: number, key: number): number {
  return partitionStartMs + (key - seriesOfKey(key) * SLOTS_PER_PARTITION) * LAYOUT[res].chunkWidthMs;
}

/**
 * The chunk starts a key stands for: its own window, or every window of the partition for a
 * compacted chunk (COMPACTED_SLOT).
 */
export function chunkStartsOfKey(res: Resolution, partitionStartMs: number, key: number): number[] {
  if (key - seriesOfKey(key) * SLOTS_PER_PARTITION !== COMPACTED_SLOT) return [chunkStartOfKey(res, partitionStartMs, key)];
  const { chunkWidthMs, partitionWidthMs } = LAYOUT[res];
  const out: number[] = [];
  for (let start = partitionStartMs; start < partitionStartMs + partitionWidthMs; start += chunkWidthMs) out.push(start);
  return out;
}

/**
 * PRAGMA application_id of a file compaction wrote: readers look for compacted chunks only in such
 * files, so files never compacted cost no extra lookup per read.
 */
export const COMPACTED_APPLICATION_ID = 0x53544331;

/** The key of a series' compacted chunk (see COMPACTED_SLOT). */
export function compactedKey(seriesId: number): number {
  return seriesId * SLOTS_PER_PARTITION + COMPACTED_SLOT;
}

/** What readWindowChunks found: by position of the series asked for. */
export interface WindowChunks {
  readonly own: (Uint8Array | undefined)[];
  /** Undefined when the file was never compacted (it holds no compacted chunk). */
  readonly compacted: (Uint8Array | undefined)[] | undefined;
}

/** One stored row, as compaction reads them. */
export interface ChunkRow {
  readonly key: number;
  readonly data: Uint8Array;
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
 * rollup files, and queries read any of them. Every file is checked before its first use (see
 * open()): a read never creates a file, and a file found missing or damaged raises
 * STORE_PARTITION_DAMAGED naming its range, now and on every later use (the watch remembers).
 */
export class PartitionSet {
  private readonly dataDir: string;
  private readonly durability: Durability;
  private readonly watch: PartitionWatch;
  private readonly open = new Map<string, OpenPartition>();
  private readonly known = new Map<Resolution, Set<number>>();
  /** Writes per file path since this set opened: compaction replaces a file only if none came in between. */
  private readonly writes = new Map<string, number>();
  /**
   * The partition partition() returned last while it stays open: sealing and rollups ask for the
   * same file once or twice a chunk, and building its path (path.join) to look it up in `open`
   * cost about as much as reading the chunk.
   */
  private last: OpenPartition | undefined;

  constructor(dataDir: string, durability: Durability, watch: PartitionWatch = UNWATCHED) {
    this.dataDir = dataDir;
    this.durability = durability;
    this.watch = watch;
    for (const res of RESOLUTIONS) {
      mkdirSync(join(dataDir, PARTITIONS_DIR, res), { recursive: true, mode: PRIVATE_DIR_MODE });
      this.known.set(res, new Set(partitionFilesOf(dataDir, res)));
    }
  }

  /** Path of the partition file of `res` starting at `partitionStartMs`. */
  pathOf(res: Resolution, partitionStartMs: number): string {
    return partitionPath(this.dataDir, res, partitionStartMs);
  }

  /** Partition starts of `res` known to exist (or to be owed: see noteCreated), ascending. */
  starts(res: Resolution): number[] {
    return [...(this.known.get(res) as Set<number>)].sort((a, b) => a - b);
  }

  /** Tells this set that a partition exists (another thread created it, or the catalog lists it). */
  noteCreated(res: Resolution, partitionStartMs: number): void {
    (this.known.get(res) as Set<number>).add(partitionStartMs);
  }

  /** Reports a damage to the watch and returns the error to throw. */
  private damaged(res: Resolution, partitionStartMs: number, found: FileFault): Error {
    const fault = relativeFault(found, this.dataDir);
    const damage: PartitionDamage = { res, startMs: partitionStartMs, reason: fault.reason, detail: fault.detail };
    this.watch.damaged(damage);
    return partitionDamagedError(damage);
  }

  /**
   * The open connection of a partition, opening and checking it first: undefined when the file
   * does not exist, nothing says it must, and `create` is false. A file the watch expects (its
   * catalog row) must exist: a read never creates one, since SQLite would open a missing or empty
   * file as an empty database and the partition's data would silently read as nothing.
   */
  private partition(res: Resolution, partitionStartMs: number, create: boolean): OpenPartition | undefined {
    const last = this.last;
    if (last !== undefined && last.startMs === partitionStartMs && last.res === res) return last;
    const path = this.pathOf(res, partitionStartMs);
    const part = this.open.get(path);
    if (part !== undefined) return (this.last = part);
    const state = this.watch.state(res, partitionStartMs);
    if (state.damage !== undefined) throw partitionDamagedError(state.damage);
    if (!existsSync(path)) {
      if (state.chunks !== undefined && state.chunks > 0) {
        throw this.damaged(res, partitionStartMs, { reason: 'missing', detail: `${path} does not exist; the catalog recorded ${state.chunks} chunks in it` });
      }
      if (!create) return undefined;
      // A new file: nothing to verify, and it holds nothing yet.
      return this.connect(res, partitionStartMs, path, { chunks: 0, verified: true, damage: undefined });
    }
    const fault = checkPartitionHeader(path);
    if (fault?.reason === 'empty' && (state.chunks ?? 0) === 0) {
      // Empty and expected to hold nothing: a file another thread is creating this very moment (a
      // rollup worker's first write), or one a crash left before SQLite's first write (adopted as
      // empty). A read finds no data in it; a write initialises it.
      if (!create) return undefined;
      return this.connect(res, partitionStartMs, path, { chunks: 0, verified: true, damage: undefined });
    }
    if (fault !== undefined) throw this.damaged(res, partitionStartMs, fault);
    return this.connect(res, partitionStartMs, path, state);
  }

  private connect(res: Resolution, partitionStartMs: number, path: string, state: PartitionState): OpenPartition {
    let db: Database.Database;
    try {
      db = openDatabase(path, { file: 'partition', durability: this.durability, pageBytes: PAGE_BYTES[res] });
    } catch (error) {
      const fault = fileFaultOf(error);
      if (fault === undefined) throw error;
      throw this.damaged(res, partitionStartMs, { reason: fault.reason, detail: `${path}: ${fault.detail}` });
    }
    let chunks = state.chunks ?? 0;
    if (!state.verified) {
      const verification = verifyOpenPartition(db, state.chunks);
      if (!verification.ok) {
        db.close();
        throw this.damaged(res, partitionStartMs, verification.fault);
      }
      chunks = verification.chunks;
    }
    const part: OpenPartition = {
      res,
      startMs: partitionStartMs,
      db,
      select: db.prepare('SELECT data FROM chunk WHERE key = ?').pluck(),
      rowsAfter: db.prepare('SELECT key, data FROM chunk WHERE key > ? ORDER BY key LIMIT ?'),
      insert: db.prepare('INSERT INTO chunk (key, data) VALUES (?, ?) ON CONFLICT (key) DO NOTHING'),
      update: db.prepare('UPDATE chunk SET data = ? WHERE key = ?'),
      chunks,
      compacted: db.pragma('application_id', { simple: true }) === COMPACTED_APPLICATION_ID,
    };
    this.open.set(path, part);
    this.last = part;
    (this.known.get(res) as Set<number>).add(partitionStartMs);
    this.watch.verified(res, partitionStartMs, chunks);
    return part;
  }

  /**
   * Runs `use` on an open partition; an error that means the file is malformed (it was damaged
   * after it was verified) closes the connection and becomes STORE_PARTITION_DAMAGED.
   */
  private guarded<T>(res: Resolution, partitionStartMs: number, part: OpenPartition, use: () => T): T {
    try {
      return use();
    } catch (error) {
      const fault = fileFaultOf(error);
      if (fault === undefined) throw error;
      this.forget(this.pathOf(res, partitionStartMs));
      throw this.damaged(res, partitionStartMs, { reason: fault.reason, detail: `${part.db.name}: ${fault.detail}` });
    }
  }

  private forget(path: string): void {
    const part = this.open.get(path);
    if (part === undefined) return;
    this.open.delete(path);
    if (this.last === part) this.last = undefined;
    try {
      part.db.close();
    } catch {
      // Closing a connection to a malformed file may fail too; it is dropped either way.
    }
  }

  /** The stored chunk of a series at `chunkStartMs`, or undefined. Never creates a file. */
  readChunk(res: Resolution, seriesId: number, chunkStartMs: number): Uint8Array | undefined {
    const start = partitionStartOf(res, chunkStartMs);
    const part = this.partition(res, start, false);
    if (part === undefined) return undefined;
    return this.guarded(res, start, part, () => part.select.get(chunkKey(res, seriesId, chunkStartMs)) as Uint8Array | undefined);
  }

  /**
   * Writes chunks that all lie in one partition file, in one transaction, and returns how many
   * chunks the file holds afterwards (for the catalog's record). Every chunk must start on the chunk
   * grid of `res` inside the partition starting at `partitionStartMs` (asserted).
   */
  writeChunks(res: Resolution, partitionStartMs: number, chunks: readonly ChunkWrite[]): number {
    assertInPartition(res, partitionStartMs, chunks);
    const part = this.partition(res, partitionStartMs, true) as OpenPartition;
    const inserted = this.guarded(res, partitionStartMs, part, () =>
      part.db.transaction(() => {
        let added = 0;
        for (const c of chunks) {
          const key = chunkKey(res, c.seriesId, c.chunkStartMs);
          // An insert that finds the key tells us the chunk existed: the count stays exact for free.
          if (part.insert.run(key, c.data).changes > 0) added++;
          else part.update.run(c.data, key);
        }
        return added;
      })(),
    );
    part.chunks += inserted;
    const path = this.pathOf(res, partitionStartMs);
    this.writes.set(path, (this.writes.get(path) ?? 0) + 1);
    return part.chunks;
  }

  /**
   * The chunks of these series in the window starting at `chunkStartMs` (`own[k]` of
   * `seriesIds[k]`, undefined when absent), and their compacted chunks when the file was
   * compacted (else `compacted` is undefined): readChunk and readCompacted of every series, in one
   * read transaction of the file, found once. Each read outside a transaction takes and releases
   * SQLite's read lock, which cost more than finding the row (a seal reads a chunk per series and
   * almost always finds none); with no file, nothing is read at all.
   */
  readWindowChunks(res: Resolution, chunkStartMs: number, seriesIds: readonly number[]): WindowChunks {
    const start = partitionStartOf(res, chunkStartMs);
    const part = this.partition(res, start, false);
    const own: (Uint8Array | undefined)[] = new Array(seriesIds.length).fill(undefined);
    if (part === undefined) return { own, compacted: undefined };
    const compacted = part.compacted ? own.slice() : undefined;
    this.guarded(res, start, part, () =>
      part.db.transaction(() => {
        for (let k = 0; k < seriesIds.length; k++) {
          const seriesId = seriesIds[k] as number;
          own[k] = part.select.get(chunkKey(res, seriesId, chunkStartMs)) as Uint8Array | undefined;
          if (compacted !== undefined) compacted[k] = part.select.get(compactedKey(seriesId)) as Uint8Array | undefined;
        }
      })(),
    );
    return { own, compacted };
  }

  /** The compacted chunk of a series in the partition starting at `partitionStartMs`, or undefined. */
  readCompacted(res: Resolution, seriesId: number, partitionStartMs: number): Uint8Array | undefined {
    const part = this.partition(res, partitionStartMs, false);
    if (part === undefined || !part.compacted) return undefined;
    return this.guarded(res, partitionStartMs, part, () => part.select.get(compactedKey(seriesId)) as Uint8Array | undefined);
  }

  /** Up to `limit` rows with keys above `afterKey`, ascending (compaction reads a file in such pages). */
  readRowsAfter(res: Resolution, partitionStartMs: number, afterKey: number, limit: number): ChunkRow[] {
    const part = this.partition(res, partitionStartMs, false);
    if (part === undefined) return [];
    return this.guarded(res, partitionStartMs, part, () => part.rowsAfter.all(afterKey, limit) as ChunkRow[]);
  }

  /**
   * True when the file holds nothing but compacted chunks (it was compacted and nothing was sealed
   * into it since); false for a file never compacted, one with window chunks, or no file.
   */
  isCompacted(res: Resolution, partitionStartMs: number): boolean {
    const part = this.partition(res, partitionStartMs, false);
    if (part === undefined || !part.compacted) return false;
    return this.guarded(res, partitionStartMs, part, () => {
      const windowRow = part.db.prepare(`SELECT 1 FROM chunk WHERE key % ${SLOTS_PER_PARTITION} != ${COMPACTED_SLOT} LIMIT 1`).get();
      return windowRow === undefined;
    });
  }

  /** Writes to the file so far in this process (see replaceFile). */
  writeCount(res: Resolution, partitionStartMs: number): number {
    return this.writes.get(this.pathOf(res, partitionStartMs)) ?? 0;
  }

  /**
   * Replaces a partition file by `replacementPath` (a complete file, closed, no -wal left): this
   * set's connection is checkpointed and closed, the old -wal and -shm removed, and the
   * replacement renamed over the file. The caller ensures no other thread has the file open.
   */
  replaceFile(res: Resolution, partitionStartMs: number, replacementPath: string): void {
    const path = this.pathOf(res, partitionStartMs);
    const part = this.open.get(path);
    if (part !== undefined) part.db.pragma('wal_checkpoint(TRUNCATE)');
    this.forget(path);
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    renameSync(replacementPath, path);
    syncDirectory(dirname(path));
  }

  /** Deletes a partition file (and its -wal and -shm); the caller ensures nobody reads it. */
  drop(res: Resolution, partitionStartMs: number): void {
    const path = this.pathOf(res, partitionStartMs);
    this.forget(path);
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
    this.last = undefined;
  }
}

/** Makes a rename in `dir` durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
