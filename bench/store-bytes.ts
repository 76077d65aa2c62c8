// Owns the on-disk accounting of a closed store: allocated bytes per resolution, what the chunks themselves hold, and which encodings they chose.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RESOLUTIONS, type Resolution } from '../src/index.js';
import { allocatedBytes } from './disk-usage.js';
import { countFullRow, countRollupRow, emptyHistogram, type EncodingHistogram } from './encoding-histogram.js';

/** One resolution's files. */
export interface ResolutionBytes {
  readonly files: number;
  /** du --block-size=1 of partitions/<RES>. */
  readonly allocatedBytes: number;
  readonly chunks: number;
  /** Sum of length(data) over every chunk row: the encoded payload without SQLite's pages and b-tree. */
  readonly payloadBytes: number;
  /** page_count * page_size summed, and free pages among them. */
  readonly pageBytes: number;
  readonly freePageBytes: number;
}

/** Bytes of a closed store's data directory. */
export interface StoreBytes {
  readonly dirAllocatedBytes: number;
  readonly fullAllocatedBytes: number;
  /** The five rollup resolutions together. */
  readonly rollupAllocatedBytes: number;
  readonly catalogAllocatedBytes: number;
  readonly walAllocatedBytes: number;
  readonly byResolution: Record<Resolution, ResolutionBytes>;
}

const EMPTY_ROW = new Uint8Array(0);

function partitionFileNames(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.sqlite')) : [];
}

function resolutionBytes(dir: string, allocated: number): ResolutionBytes {
  const names = partitionFileNames(dir);
  let chunks = 0;
  let payloadBytes = 0;
  let pageBytes = 0;
  let freePageBytes = 0;
  for (const name of names) {
    const db = new Database(join(dir, name), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(length(data)), 0) AS bytes FROM chunk').get() as { n: number; bytes: number };
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      chunks += row.n;
      payloadBytes += row.bytes;
      pageBytes += (db.pragma('page_count', { simple: true }) as number) * pageSize;
      freePageBytes += (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
    } finally {
      db.close();
    }
  }
  return { files: names.length, allocatedBytes: allocated, chunks, payloadBytes, pageBytes, freePageBytes };
}

/** Measures a store's directory after close(); every du happens before any file is opened to read its chunks. */
export function measureStoreBytes(dataDir: string): StoreBytes {
  const partitions = join(dataDir, 'partitions');
  const dirAllocatedBytes = allocatedBytes(dataDir);
  const walAllocatedBytes = allocatedBytes(join(dataDir, 'wal'));
  const catalogAllocatedBytes = readdirSync(dataDir)
    .filter((n) => n.startsWith('catalog.sqlite'))
    .reduce((sum, n) => sum + allocatedBytes(join(dataDir, n)), 0);
  const allocated = RESOLUTIONS.map((res) => allocatedBytes(join(partitions, res)));
  const byResolution = Object.fromEntries(
    RESOLUTIONS.map((res, i) => [res, resolutionBytes(join(partitions, res), allocated[i] as number)]),
  ) as Record<Resolution, ResolutionBytes>;
  const rollupAllocatedBytes = RESOLUTIONS.filter((r) => r !== 'FULL').reduce((sum, r) => sum + byResolution[r].allocatedBytes, 0);
  return {
    dirAllocatedBytes,
    fullAllocatedBytes: byResolution.FULL.allocatedBytes,
    rollupAllocatedBytes,
    catalogAllocatedBytes,
    walAllocatedBytes,
    byResolution,
  };
}

/**
 * Counts the encoding of every row of a closed store's partition files (decodes each row, read-only):
 * FULL rows as chunks, the other resolutions as bucket rows. Call after measureStoreBytes, which
 * must see the files before anything opens them.
 */
export function measureEncodings(dataDir: string): EncodingHistogram {
  const histogram = emptyHistogram();
  for (const res of RESOLUTIONS) {
    const dir = join(dataDir, 'partitions', res);
    const count = res === 'FULL' ? countFullRow : countRollupRow;
    for (const name of partitionFileNames(dir)) {
      const db = new Database(join(dir, name), { readonly: true, fileMustExist: true });
      try {
        // A row whose data is not a blob goes in as empty bytes: its codec throws, and it is counted undecodable.
        for (const data of db.prepare('SELECT data FROM chunk').pluck().iterate()) count(histogram, data instanceof Uint8Array ? data : EMPTY_ROW);
      } finally {
        db.close();
      }
    }
  }
  return histogram;
}
