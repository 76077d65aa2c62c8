// Owns the data directory lock: one process at a time may open a data directory.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../core/errors.js';

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

/**
 * Takes the lock of `dir` for this process, or throws STORE_LOCKED naming the holder. A lock left
 * by a process that no longer runs (a crash, kill -9) is taken over. Known gap: two processes
 * taking over the same stale lock at the same instant can both succeed (read, remove and create
 * are three steps); starting two servers on one directory within a millisecond of each other
 * after a crash is the only way to hit it.
 */
export function lockDirectory(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8'));
      // Our own pid means another store of this process holds it: two stores must not share a WAL.
      if (Number.isSafeInteger(holder) && holder > 0 && alive(holder)) {
        throw new StrataError('STORE_LOCKED', `${dir} is open in process ${holder}; stop it (or use its HTTP API) first`, { pid: holder });
      }
      rmSync(path, { force: true });
    }
  }
  throw new StrataError('STORE_LOCKED', `could not lock ${dir}`);
}
