// Owns the data directory lock: one process at a time may open a data directory.
import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../core/errors.js';
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

/**
 * Takes the lock of `dir` for this process, or throws STORE_LOCKED naming the holder. A lock left
 * by a process that no longer runs (a crash, kill -9) is taken over. Known gap: two processes
 * taking over the same stale lock at the same instant can both succeed (read, remove and create
 * are three steps); starting two servers on one directory within a millisecond of each other
 * after a crash is the only way to hit it. Starting them at once on a directory with no lock is
 * safe: exactly one creates it.
 */
export function lockDirectory(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createLock(path)) return () => rmSync(path, { force: true });
    let holder: number;
    try {
      holder = Number(readFileSync(path, 'utf8'));
    } catch (error) {
      // Released between our attempt and the read: try again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    // Our own pid means another store of this process holds it: two stores must not share a WAL.
    if (Number.isSafeInteger(holder) && holder > 0 && alive(holder)) {
      throw new StrataError('STORE_LOCKED', `${dir} is open in process ${holder}; stop it (or use its HTTP API) first`, { pid: holder });
    }
    rmSync(path, { force: true });
  }
  throw new StrataError('STORE_LOCKED', `could not lock ${dir}`);
}
