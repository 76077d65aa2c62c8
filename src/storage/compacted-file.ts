// Owns writing the new file of a compaction: a partition file marked as compacted, filled in key order, closed with nothing left in a -wal.
import { rmSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openDatabase, type Durability } from './open-database.js';
import { COMPACTED_APPLICATION_ID, type ChunkRow } from './partition-set.js';

/**
 * Page size of a compacted file, as for sealed FULL files. Its chunks are 1 to 6 KB (a series over
 * 6 h); 64 KiB pages measured the same on the NAB workload (1.57 MB of pages for 1.40 MB of chunks
 * either way: a mostly empty root page and about 6 % slack per leaf), and smaller pages read less
 * for one chunk. A file keeps the page size it was created with.
 */
const COMPACTED_PAGE_BYTES = 16_384;

/** A compacted partition file being written at `path` (created empty, any earlier file there removed). */
export class CompactedFileWriter {
  readonly path: string;
  private readonly durability: Durability;
  private db: Database.Database | undefined;
  private insert: Database.Statement | undefined;

  constructor(path: string, durability: Durability) {
    this.path = path;
    this.durability = durability;
    removeWithSidecars(path);
  }

  /** Inserts rows (keys ascending, none written before) in one transaction. */
  append(rows: readonly ChunkRow[]): void {
    const db = this.open();
    const insert = this.insert as Database.Statement;
    db.transaction(() => {
      for (const row of rows) insert.run(row.key, row.data);
    })();
  }

  /** Checkpoints and closes the file, so that a rename carries all of it. */
  close(): void {
    const db = this.open();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    this.db = undefined;
    removeSidecars(this.path);
  }

  /** Closes and deletes the file. */
  discard(): void {
    this.db?.close();
    this.db = undefined;
    removeWithSidecars(this.path);
  }

  private open(): Database.Database {
    if (this.db !== undefined) return this.db;
    const db = openDatabase(this.path, { file: 'partition', durability: this.durability, pageBytes: COMPACTED_PAGE_BYTES });
    db.pragma(`application_id = ${COMPACTED_APPLICATION_ID}`);
    this.db = db;
    this.insert = db.prepare('INSERT INTO chunk (key, data) VALUES (?, ?)');
    return db;
  }
}

function removeSidecars(path: string): void {
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** Deletes a file and its -wal, -shm and -journal. */
export function removeWithSidecars(path: string): void {
  rmSync(path, { force: true });
  removeSidecars(path);
}
