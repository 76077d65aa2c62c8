// Owns opening SQLite files with the engine's pragmas (see native-notes/sqlite-pragmas.md for why).
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

/** Opens (creating when allowed) a SQLite file of the given kind with the engine's pragmas. */
export function openDatabase(path: string, options: OpenDatabaseOptions): Database.Database {
  const db = new Database(path, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (options.readonly === true) return db;
  // page_size only takes effect on an empty file, before WAL mode is set.
  if (options.pageBytes !== undefined) db.pragma(`page_size = ${options.pageBytes}`);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  if (options.foreignKeys === true) db.pragma('foreign_keys = ON');
  applySchema(db, options.file);
  return db;
}
