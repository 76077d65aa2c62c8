// Owns the data directory lock: one process at a time may open a data directory.
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../core/errors.js';
import { DIR_LOCK_ATTEMPTS_MAX, DIR_LOCK_CLAIM_DEPTH_MAX, DIR_LOCK_RETRY_WAIT_MS } from '../core/limits.js';
import { PRIVATE_FILE_MODE } from './open-database.js';

const LOCK_FILE = 'LOCK';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else: still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Errors of link() on file systems without hard links, where the lock falls back to open('wx'). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates the lock file holding this pid, or returns false when one exists. The pid is written to
 * a private file first and hard-linked into place, so the lock never exists empty: a process that
 * finds it always reads a whole pid (with open('wx') then write, a rival reading in between saw an
 * empty file, took it for stale and removed a live lock).
 */
function createLock(path: string): boolean {
  const staged = `${path}.${process.pid}.${randomUUID()}`;
  writeFileSync(staged, String(process.pid), { flag: 'wx', mode: PRIVATE_FILE_MODE });
  try {
    linkSync(staged, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code)) throw error;
    return createLockWithoutLinks(path);
  } finally {
    rmSync(staged, { force: true });
  }
}

function createLockWithoutLinks(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** One version of a lock (or claim) file: `id` tells it from any later file at the same path. */
interface LockFileState {
  readonly id: string;
  readonly pid: number;
}

/**
 * Reads the file at `path` through one descriptor, so the pid and the identity (inode and
 * modification time) belong to the same file; undefined when there is none. The inode alone is not
 * enough: a file created after the stale one was removed may reuse its number.
 */
function readLockFile(path: string): LockFileState | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    return { id: `${stat.ino}-${stat.mtimeNs}`, pid: Number(readFileSync(fd, 'utf8')) };
  } finally {
    closeSync(fd);
  }
}

/** Whether `pid` names a running process; empty or garbage content names none. */
function holds(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0 && alive(pid);
}

/**
 * Removes the stale file `path` if it is still the very file `seen`. Deciding "stale" and removing
 * are separate steps, so they run under a claim: an exclusively created file named after that one
 * version (`LOCK.takeover-<inode>-<mtime>`). Only one process can hold the claim of a version, and
 * nothing else removes a lock whose owner is dead, so after re-reading under the claim the file
 * cannot change before it is removed. Without the claim, a rival that judged the same stale file
 * removed the lock the first taker had just created in its place, and both opened the directory.
 * A claim left by a process that died holding it is taken over the same way, one level deeper.
 * Returns false when a live process holds the claim (the caller waits and looks again).
 */
function removeStale(path: string, seen: LockFileState, depth: number): boolean {
  const claim = `${path}.takeover-${seen.id}`;
  if (!createLock(claim)) {
    const claimer = readLockFile(claim);
    if (claimer === undefined) return true;
    if (holds(claimer.pid) || depth >= DIR_LOCK_CLAIM_DEPTH_MAX) return false;
    return removeStale(claim, claimer, depth + 1);
  }
  try {
    const now = readLockFile(path);
    if (now !== undefined && now.id === seen.id && !holds(now.pid)) rmSync(path, { force: true });
  } finally {
    rmSync(claim, { force: true });
  }
  return true;
}

/** Blocks this thread for `ms`; the lock is taken synchronously, before the store starts any work. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Test seams of lockDirectory. */
export interface DirLockHooks {
  /** Runs after the lock was judged stale (its holder `pid` is dead), before it is taken over. */
  readonly onStale?: (pid: number) => void;
}

/**
 * Takes the lock of `dir` for this process, or throws STORE_LOCKED naming the holder. A lock left
 * by a process that no longer runs (a crash, kill -9) is taken over: removed under a claim on that
 * version of the file (see removeStale), then created anew like a free one, so of any number of
 * processes opening the directory at once exactly one wins and the others find it alive.
 */
export function lockDirectory(dir: string, hooks: DirLockHooks = {}): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < DIR_LOCK_ATTEMPTS_MAX; attempt++) {
    if (createLock(path)) return () => rmSync(path, { force: true });
    // Undefined: released between our attempt and the read, so try again.
    const holder = readLockFile(path);
    if (holder === undefined) continue;
    // Our own pid means another store of this process holds it: two stores must not share a WAL.
    if (holds(holder.pid)) {
      throw new StrataError('STORE_LOCKED', `${dir} is open in process ${holder.pid}; stop it (or use its HTTP API) first`, { pid: holder.pid });
    }
    hooks.onStale?.(holder.pid);
    if (!removeStale(path, holder, 0)) pause(DIR_LOCK_RETRY_WAIT_MS);
  }
  throw new StrataError('STORE_LOCKED', `could not lock ${dir}: another process kept taking over its stale lock`);
}
