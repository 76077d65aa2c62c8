// Owns the full check of a partition file: SQLite's quick_check and its chunk count against what the catalog recorded.
import Database from 'better-sqlite3';
import { fileFaultOf, type FileFault } from './partition-damage.js';
import { checkPartitionHeader } from './partition-header.js';

/** Most quick_check complaints quoted in a finding; SQLite can list thousands for one bad file. */
const QUICK_CHECK_LINES_QUOTED = 3;

/**
 * A verification's result: the chunk count when sound, the fault when damaged, or 'recovery' when
 * a read-only connection could not read it because SQLite must first recover it (a hot rollback
 * journal or a WAL left by a crash), which only a writer may do.
 */
export type Verification = Checked | { readonly ok: 'recovery'; readonly detail: string };

/** What a connection that can read the file finds: the chunk count when sound, else the fault. */
export type Checked = { readonly ok: true; readonly chunks: number } | { readonly ok: false; readonly fault: FileFault };

/** How inspectPartitionFile connects: read-only (beside a running server), or as a writer that may recover the file (the directory is locked). */
export type InspectMode = 'read-only' | 'recover';

/** SQLite's codes for "a read-only connection would have to write": recovering a WAL, rolling back a hot journal. */
const NEEDS_WRITER = /^SQLITE_(READONLY|CANTOPEN)/;

/**
 * The chunks of an open partition; 0 for a file without any table (a crash between SQLite's
 * creation of the file and the commit of its schema leaves one: it holds nothing that could be
 * missing), undefined for a file with tables but no chunk table.
 */
function countChunks(db: Database.Database): number | undefined {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (!tables.includes('chunk')) return tables.length === 0 ? 0 : undefined;
  return db.prepare('SELECT count(*) FROM chunk').pluck().get() as number;
}

/**
 * Runs PRAGMA quick_check on an open partition and counts its chunks; `expectedChunks` (what the
 * catalog recorded, a lower bound) must not exceed the count. Cost: quick_check reads every page of
 * the file (and the count every leaf page), so a 100 MB partition costs about 100 MB of reads; the
 * store does it once per file per process, on first use, never per query. Errors that mean the file
 * is malformed come back as a fault; any other error (a busy lock, a bug) is thrown.
 */
export function verifyOpenPartition(db: Database.Database, expectedChunks: number | undefined): Checked {
  try {
    const complaints = db.pragma('quick_check', { simple: false }) as { quick_check: string }[];
    const lines = complaints.map((row) => row.quick_check);
    if (lines.length !== 1 || lines[0] !== 'ok') {
      const quoted = lines.slice(0, QUICK_CHECK_LINES_QUOTED).join('; ');
      return { ok: false, fault: { reason: 'corrupt', detail: `${db.name}: quick_check found ${lines.length} problem(s): ${quoted}` } };
    }
    const chunks = countChunks(db);
    if (chunks === undefined) return { ok: false, fault: { reason: 'corrupt', detail: `${db.name} has tables but no chunk table` } };
    if (expectedChunks !== undefined && chunks < expectedChunks) {
      return { ok: false, fault: { reason: 'chunks', detail: `${db.name} holds ${chunks} chunks; the catalog recorded ${expectedChunks} at its last write` } };
    }
    return { ok: true, chunks };
  } catch (error) {
    const fault = fileFaultOf(error);
    if (fault === undefined) throw error;
    return { ok: false, fault: { reason: fault.reason, detail: `${db.name}: quick_check or the count failed: ${fault.detail}` } };
  }
}

/**
 * Verifies a partition file on its own connection: the header check, then quick_check and the
 * count. An empty file is sound when nothing is expected of it (no chunks recorded): a crash
 * between creating a file and SQLite's first write leaves one, and it holds nothing that could be
 * missing. 'read-only' writes nothing (`strata check` beside a running server), though a read-only
 * connection to a WAL-mode file creates its empty -wal and -shm when missing; 'recover' opens a
 * writer, which lets SQLite recover a file a crash left mid-write (the store at open, a repair).
 */
export function inspectPartitionFile(path: string, expectedChunks: number | undefined, mode: 'recover'): Checked;
export function inspectPartitionFile(path: string, expectedChunks: number | undefined, mode?: InspectMode): Verification;
export function inspectPartitionFile(path: string, expectedChunks: number | undefined, mode: InspectMode = 'read-only'): Verification {
  const headerFault = checkPartitionHeader(path);
  if (headerFault?.reason === 'empty' && (expectedChunks ?? 0) === 0) return { ok: true, chunks: 0 };
  if (headerFault !== undefined) return { ok: false, fault: headerFault };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: mode === 'read-only', fileMustExist: true });
    return verifyOpenPartition(db, expectedChunks);
  } catch (error) {
    const fault = fileFaultOf(error);
    if (fault !== undefined) return { ok: false, fault: { reason: fault.reason, detail: `${path}: ${fault.detail}` } };
    const code = (error as { code?: unknown } | null)?.code;
    if (mode === 'read-only' && typeof code === 'string' && NEEDS_WRITER.test(code)) {
      return { ok: 'recovery', detail: `${path}: a crash left it for SQLite to recover before it can be read (${code}); opening the store, or --repair, does that` };
    }
    throw error;
  } finally {
    db?.close();
  }
}

/**
 * The chunk keys a sound partition file holds (series_id * 16 + slot), read-only. Repairs use them
 * to learn which series had data in a window of a finer level.
 */
export function chunkKeysOf(path: string): number[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT key FROM chunk ORDER BY key').pluck().all() as number[];
  } finally {
    db.close();
  }
}
