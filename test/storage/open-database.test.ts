// Owns the tests of openDatabase's failure paths: a file of a newer schema is refused untouched, and no connection outlives a failed open.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { openDatabase } from '../../src/storage/open-database.js';

/** Byte 18 of a SQLite file: 1 for a rollback journal, 2 for WAL (the journal mode is stored in the file). */
const JOURNAL_MODE_BYTE = 18;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-open-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A catalog file in rollback-journal mode whose user_version is one past what this build knows. */
function newerFile(): string {
  const file = join(dir, 'catalog.sqlite');
  const db = openDatabase(file, { file: 'catalog', durability: 'normal' });
  const version = db.pragma('user_version', { simple: true }) as number;
  db.pragma('journal_mode = DELETE');
  db.pragma(`user_version = ${version + 1}`);
  db.close();
  expect(readFileSync(file)[JOURNAL_MODE_BYTE]).toBe(1);
  return file;
}

/** Paths this process holds a file descriptor on (Linux: /proc/self/fd). */
function openPaths(): string[] {
  const fds = '/proc/self/fd';
  return readdirSync(fds).flatMap((fd) => {
    try {
      return [readlinkSync(join(fds, fd))];
    } catch {
      return [];
    }
  });
}

describe('openDatabase on a file of a newer schema', () => {
  it('refuses it with STORE_SCHEMA_UNSUPPORTED without switching it to WAL mode', () => {
    const file = newerFile();
    expect(() => openDatabase(file, { file: 'catalog', durability: 'normal' })).toThrowError(
      expect.objectContaining({ code: 'STORE_SCHEMA_UNSUPPORTED' }) as StrataError,
    );
    expect(readFileSync(file)[JOURNAL_MODE_BYTE]).toBe(1);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the connection it opened before refusing it', () => {
    const file = newerFile();
    const before = openPaths().filter((p) => p.startsWith(file)).length;
    expect(before).toBe(0);
    for (let i = 0; i < 3; i++) expect(() => openDatabase(file, { file: 'catalog', durability: 'normal' })).toThrowError(/schema version/);
    expect(openPaths().filter((p) => p.startsWith(file))).toEqual([]);
  });
});

describe('openDatabase on a file it cannot use', () => {
  it.skipIf(!existsSync('/proc/self/fd'))('closes the connection when the file is not a SQLite database', () => {
    const file = join(dir, 'identity.sqlite');
    writeFileSync(file, 'not a database, but long enough to have a header of one: '.repeat(4));
    for (let i = 0; i < 3; i++) expect(() => openDatabase(file, { file: 'identity', durability: 'normal' })).toThrowError(expect.objectContaining({ code: 'SQLITE_NOTADB' }) as Error);
    expect(openPaths().filter((p) => p.startsWith(file))).toEqual([]);
  });
});
