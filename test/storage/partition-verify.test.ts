// Owns the tests of the full partition check on its own connection: sound, damaged and empty files, and a file a crash left with a hot rollback journal (read-only cannot read it; a writer recovers it).
import { copyFileSync, existsSync, mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPartitionHeader } from '../../src/storage/partition-header.js';
import { PartitionSet } from '../../src/storage/partition-set.js';
import { chunkKeysOf, inspectPartitionFile } from '../../src/storage/partition-verify.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-verify-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A copy of a partition file taken in the middle of a big transaction in rollback-journal mode,
 * with its hot journal: what a kill -9 leaves while SQLite creates a file (the schema is written
 * before the file switches to WAL). The transaction spilled pages into the file; the journal holds
 * what must be rolled back.
 */
function crashedMidWrite(): string {
  const live = join(dir, 'live.sqlite');
  const db = new Database(live);
  db.pragma('page_size = 16384');
  db.exec('CREATE TABLE chunk (key INTEGER PRIMARY KEY, data BLOB NOT NULL) STRICT');
  db.prepare('INSERT INTO chunk VALUES (1, x\'00\')').run();
  db.pragma('cache_size = 2');
  db.exec('BEGIN');
  const insert = db.prepare('INSERT INTO chunk VALUES (?, ?)');
  for (let key = 2; key < 200; key++) insert.run(key, Buffer.alloc(3000, key));
  const copy = join(dir, 'crashed.sqlite');
  copyFileSync(live, copy);
  copyFileSync(`${live}-journal`, `${copy}-journal`);
  db.exec('ROLLBACK');
  db.close();
  return copy;
}

describe('inspectPartitionFile', () => {
  it('counts the chunks of a sound file, read-only, and checks them against what was recorded', () => {
    const parts = new PartitionSet(dir, 'normal');
    parts.writeChunks('MIN5', 0, [1, 2, 3].map((seriesId) => ({ seriesId, chunkStartMs: 0, data: Uint8Array.of(seriesId) })));
    parts.close();
    const path = parts.pathOf('MIN5', 0);
    expect(inspectPartitionFile(path, 3)).toEqual({ ok: true, chunks: 3 });
    expect(inspectPartitionFile(path, 4)).toMatchObject({ ok: false, fault: { reason: 'chunks' } });
    expect(chunkKeysOf(path)).toEqual([16, 32, 48]);
  });

  it('takes a file without tables (a crash before its schema was committed) as holding no chunks, and one with other tables but no chunk table as corrupt', () => {
    const bare = join(dir, 'bare.sqlite');
    const db = new Database(bare);
    db.pragma('user_version = 0');
    db.exec('VACUUM');
    db.close();
    expect(inspectPartitionFile(bare, undefined, 'recover')).toEqual({ ok: true, chunks: 0 });
    expect(inspectPartitionFile(bare, 1, 'recover')).toMatchObject({ ok: false, fault: { reason: 'chunks' } });
    const other = join(dir, 'other.sqlite');
    const db2 = new Database(other);
    db2.exec('CREATE TABLE note (x INTEGER)');
    db2.close();
    expect(inspectPartitionFile(other, undefined, 'recover')).toMatchObject({ ok: false, fault: { reason: 'corrupt' } });
  });

  it('takes an empty file as sound only when nothing is expected of it', () => {
    const path = join(dir, 'empty.sqlite');
    copyFileSync(crashedMidWrite(), path);
    truncateSync(path, 0);
    expect(inspectPartitionFile(path, undefined)).toEqual({ ok: true, chunks: 0 });
    expect(inspectPartitionFile(path, 0)).toEqual({ ok: true, chunks: 0 });
    expect(inspectPartitionFile(path, 2)).toMatchObject({ ok: false, fault: { reason: 'empty' } });
  });

  it('cannot read a file with a hot journal read-only (it says so), and recovers it as a writer', () => {
    const path = crashedMidWrite();
    // The header check leaves its size to SQLite: the journal is about to undo the spilled pages.
    expect(checkPartitionHeader(path)).toBeUndefined();
    const readOnly = inspectPartitionFile(path, 1);
    expect(readOnly).toMatchObject({ ok: 'recovery', detail: expect.stringContaining('SQLITE_READONLY') });
    expect(existsSync(`${path}-journal`)).toBe(true);
    expect(inspectPartitionFile(path, 1, 'recover')).toEqual({ ok: true, chunks: 1 });
    expect(inspectPartitionFile(path, 1)).toEqual({ ok: true, chunks: 1 });
  });
});
