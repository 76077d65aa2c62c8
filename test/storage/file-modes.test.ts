// Owns the tests of the engine's file modes: every file it creates is 0600 and every directory 0700 (API key hashes and data are private to the owner).
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { HOUR_MS } from '../../src/core/time.js';
import { RESOLUTIONS } from '../../src/model/resolution.js';
import { Catalog } from '../../src/storage/catalog.js';
import { lockDirectory } from '../../src/storage/dir-lock.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { PartitionSet } from '../../src/storage/partition-set.js';
import { WalLog } from '../../src/storage/wal-log.js';
import { openStore } from '../../src/store.js';
import { batchOf } from './wal-fixtures.js';

/** Modes in octal, so a failure reads like ls -l would show it. */
const FILE_MODE = '600';
const DIR_MODE = '700';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** Every file and directory under `root` (not root itself) with its mode, as `path: mode` in octal. */
function modesUnder(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(root.length + 1)] = modeOf(path);
  }
  return out;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-modes-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('creates a new file, and SQLite its -wal and -shm, readable and writable by the owner only', () => {
    const file = join(dir, 'catalog.sqlite');
    const db = openDatabase(file, { file: 'catalog', durability: 'normal' });
    try {
      db.prepare('INSERT INTO sealed (window_start_ms, through_seq) VALUES (?, ?)').run(0, 1);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(path), path).toBe(FILE_MODE);
    } finally {
      db.close();
    }
  });

  it("leaves an existing file's mode as its owner set it", () => {
    const file = join(dir, 'shared.sqlite');
    closeSync(openSync(file, 'w'));
    chmodSync(file, 0o640);
    openDatabase(file, { file: 'catalog', durability: 'normal' }).close();
    expect(modeOf(file)).toBe('640');
  });

  it('creates no file for an in-memory database', () => {
    openDatabase(':memory:', { file: 'monitoring', durability: 'normal' }).close();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('engine files', () => {
  it('makes the partition directories 0700 and partition files 0600', () => {
    const parts = new PartitionSet(dir, 'normal');
    try {
      parts.writeChunks('FULL', 0, [{ seriesId: 1, chunkStartMs: 0, data: Uint8Array.of(1) }]);
      parts.writeChunks('MIN5', 0, [{ seriesId: 1, chunkStartMs: 0, data: Uint8Array.of(1) }]);
      expect(modeOf(join(dir, 'partitions'))).toBe(DIR_MODE);
      for (const res of RESOLUTIONS) expect(modeOf(join(dir, 'partitions', res)), res).toBe(DIR_MODE);
      for (const path of [parts.pathOf('FULL', 0), parts.pathOf('MIN5', 0), `${parts.pathOf('FULL', 0)}-wal`]) expect(modeOf(path), path).toBe(FILE_MODE);
    } finally {
      parts.close();
    }
  });

  it('makes the catalog file 0600', () => {
    const catalog = new Catalog(join(dir, 'catalog.sqlite'), 'full');
    catalog.close();
    expect(modeOf(join(dir, 'catalog.sqlite'))).toBe(FILE_MODE);
  });

  it('makes the WAL directory 0700 and its segments 0600, the empty marker left by close included', () => {
    const walDir = join(dir, 'wal');
    const wal = new WalLog(walDir, 'normal');
    wal.replay(() => {});
    const seq = wal.append(batchOf([{ id: 1, t: 0, v: 1 }]));
    const [segment] = readdirSync(walDir);
    expect(modeOf(join(walDir, segment!))).toBe(FILE_MODE);
    wal.release(seq);
    wal.close();
    const [marker] = readdirSync(walDir);
    expect(marker).not.toBe(segment);
    expect(modeOf(walDir)).toBe(DIR_MODE);
    expect(modeOf(join(walDir, marker!))).toBe(FILE_MODE);
  });

  it('makes the lock file 0600', () => {
    const unlock = lockDirectory(dir);
    try {
      expect(readdirSync(dir)).toEqual(['LOCK']);
      expect(modeOf(join(dir, 'LOCK'))).toBe(FILE_MODE);
    } finally {
      unlock();
    }
  });

  it('leaves nothing under a store data directory that is not private, after writes, seals and rollups on a worker', async () => {
    const dataDir = join(dir, 'data', 'strata');
    const start = Date.UTC(2026, 10, 22);
    const clock = new ManualClock(start + 2 * HOUR_MS);
    const store = await openStore({ dir: dataDir, clock, background: false, workers: 1 });
    try {
      const points = Array.from({ length: 120 }, (_, i) => ({ tenant: 'acme', metric: 'cpu', timestamp: start + i * 60_000, value: i }));
      await store.write(points);
      await store.flush();
      const modes = modesUnder(dataDir);
      // Rollup files were written by the worker thread, not only the main thread's files.
      expect(Object.keys(modes).some((p) => p.startsWith(join('partitions', 'MIN5', '')) && p.endsWith('.sqlite'))).toBe(true);
      expect(Object.keys(modes)).toContain('LOCK');
      for (const [path, mode] of Object.entries(modes)) {
        const isDir = statSync(join(dataDir, path)).isDirectory();
        expect([path, mode]).toEqual([path, isDir ? DIR_MODE : FILE_MODE]);
      }
    } finally {
      await store.close();
    }
    // The data directory and the parents openStore created for it.
    expect(modeOf(dataDir)).toBe(DIR_MODE);
    expect(modeOf(join(dir, 'data'))).toBe(DIR_MODE);
  });

  it('leaves an existing data directory with the mode its owner gave it', async () => {
    const dataDir = join(dir, 'mine');
    mkdirSync(dataDir, { mode: 0o750 });
    chmodSync(dataDir, 0o750);
    const store = await openStore({ dir: dataDir, clock: new ManualClock(0), background: false, workers: 0 });
    await store.close();
    expect(modeOf(dataDir)).toBe('750');
  });
});
