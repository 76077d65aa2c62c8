// Owns opening SQLite files with the engine's pragmas (see native-notes/sqlite-pragmas.md for why) and the private modes of the data files and directories Strata creates.
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { applySchema, type SchemaFile } from './schema.js';

/** How durable commits are: 'normal' survives a process crash, 'full' also a power loss. */
export type Durability = 'normal' | 'full';

/** Options of openDatabase. */
export interface OpenDatabaseOptions {
  readonly file: SchemaFile;
  readonly durability: Durability;
  readonly readonly?: boolean;
  /** Page size for a new file (ignored for an existing one); SQLite's default when absent. */
  readonly pageBytes?: number;
  /** Enforce foreign keys (the service files that declare them). */
  readonly foreignKeys?: boolean;
}

/** Wait for a competing writer this long before SQLITE_BUSY surfaces (a rollup worker commit). */
const BUSY_TIMEOUT_MS = 5_000;
/** Page cache per connection, in KiB (negative cache_size means KiB). */
const CACHE_KIB = 16_384;

/** Mode of every data file Strata creates: owner only (the identity file holds API key hashes). */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of every directory Strata creates for its data. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Creates `path` empty with PRIVATE_FILE_MODE unless it exists. SQLite would create it with 0644
 * (less the umask); it gives the -wal, -shm and -journal files the main file's mode, so creating
 * the main file first makes them private too. An existing file keeps the mode its owner chose.
 * An empty file is a valid empty database to SQLite.
 */
function createPrivately(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch {
    // It exists (EEXIST), or cannot be created: then SQLite opens it, or reports why not in its own terms.
    return;
  }
  closeSync(fd);
}

/** True for paths SQLite treats as no file at all (an in-memory or a temporary database). */
function isInMemory(path: string): boolean {
  return path === ':memory:' || path === '';
}

/**
 * Opens (creating when allowed) a SQLite file of the given kind with the engine's pragmas. A file
 * it creates is private (PRIVATE_FILE_MODE). Throws STORE_SCHEMA_UNSUPPORTED for a file of a newer
 * schema; on any failure the connection is closed before the error propagates.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions): Database.Database {
  const readonly = options.readonly === true;
  if (!readonly && !isInMemory(path)) createPrivately(path);
  const db = new Database(path, { readonly, fileMustExist: readonly });
  try {
    configure(db, options);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Database.Database, options: OpenDatabaseOptions): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (options.readonly === true) return;
  // page_size only takes effect on an empty file, before its first table and before WAL mode.
  if (options.pageBytes !== undefined) db.pragma(`page_size = ${options.pageBytes}`);
  // The schema (and its version check) comes before WAL mode, so a file of a newer schema is
  // refused as found rather than switched to WAL first. A new file's tables are created under a
  // rollback journal, then the file switches to WAL; a file already in WAL mode stays so.
  applySchema(db, options.file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  if (options.foreignKeys === true) db.pragma('foreign_keys = ON');
}
