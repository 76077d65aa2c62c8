// Owns the two SQLite floors of peer-results (d) and (e): one row per point, and one raw blob per (series, hour).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { allocatedBytes } from './disk-usage.js';
import { BATCH_POINTS, generateWorkload, standardSpec, VALUE_KINDS, type ValueKind, type Workload } from '../src/workload/standard-workload.js';

/** The two floors. */
export type FloorKind = 'row' | 'blob';

const HOUR_MS = 3_600_000;
/** Blob rowid = series * 2^32 + hour (peer-results' series<<32|hour, without 32-bit JS shifts). */
const BLOB_KEY_SERIES_FACTOR = 2 ** 32;
/** Points a series' hour can hold at the densest spacing the blob buffer supports (1 s). */
const BLOB_HOUR_POINTS_MAX = 3_600;
/** Progress is reported every this many batches. */
const PROGRESS_EVERY_BATCHES = 16;

/** What one floor measured. */
export interface FloorResult {
  readonly floor: FloorKind;
  readonly kind: ValueKind;
  readonly points: number;
  readonly rows: number;
  readonly ingestSeconds: number;
  readonly pointsPerSecond: number;
  /** du --block-size=1 of the database after wal_checkpoint(TRUNCATE). */
  readonly allocatedBytes: number;
  readonly bytesPerPoint: number;
  readonly peakRssBytes: number;
  readonly sqliteVersion: string;
}

function openFloorDb(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Row per point: WITHOUT ROWID PK(series, ts), one prepared statement, one transaction per 10k rows. */
export function runRowFloor(wl: Workload, db: Database.Database): { seconds: number; rows: number } {
  db.exec('CREATE TABLE pts (series INTEGER NOT NULL, ts INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (series, ts)) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO pts (series, ts, value) VALUES (?, ?, ?)');
  const { seriesIndex, timestampsMs, values } = wl;
  const insertRange = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i++) insert.run(seriesIndex[i], timestampsMs[i], values[i]);
  });
  const batches = Math.ceil(wl.length / BATCH_POINTS);
  const started = performance.now();
  for (let b = 0; b < batches; b++) {
    insertRange(b * BATCH_POINTS, Math.min((b + 1) * BATCH_POINTS, wl.length));
    if (b % PROGRESS_EVERY_BATCHES === 0) reportProgress('row floor', b, batches);
  }
  const seconds = (performance.now() - started) / 1000;
  reportProgress('row floor', batches, batches);
  return { seconds, rows: wl.length };
}

/**
 * Blob per (series, hour): the current hour of each series is buffered in memory as raw Float64
 * (ts, value) pairs and written as one row when the series' hour changes; each 10k-point batch's
 * flushed blobs commit in one transaction (no per-point durability, as in peer-results (e)).
 */
export function runBlobFloor(wl: Workload, db: Database.Database): { seconds: number; rows: number } {
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO blobs (id, data) VALUES (?, ?)');
  const seriesCount = wl.spec.series;
  const pairs = new Float64Array(seriesCount * BLOB_HOUR_POINTS_MAX * 2);
  const counts = new Uint32Array(seriesCount);
  const hours = new Float64Array(seriesCount).fill(-1);
  let rows = 0;
  const flush = (s: number): void => {
    const n = counts[s] as number;
    if (n === 0) return;
    const offset = s * BLOB_HOUR_POINTS_MAX * 2 * 8;
    insert.run(s * BLOB_KEY_SERIES_FACTOR + (hours[s] as number), Buffer.from(pairs.buffer, offset, n * 16));
    counts[s] = 0;
    rows++;
  };
  const { seriesIndex, timestampsMs, values } = wl;
  const appendRange = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i++) {
      const s = seriesIndex[i] as number;
      const t = timestampsMs[i] as number;
      const hour = Math.floor(t / HOUR_MS);
      if (hour !== hours[s]) {
        flush(s);
        hours[s] = hour;
      }
      const n = counts[s] as number;
      const at = (s * BLOB_HOUR_POINTS_MAX + n) * 2;
      pairs[at] = t;
      pairs[at + 1] = values[i] as number;
      counts[s] = n + 1;
    }
  });
  const flushAll = db.transaction(() => {
    for (let s = 0; s < seriesCount; s++) flush(s);
  });
  const batches = Math.ceil(wl.length / BATCH_POINTS);
  const started = performance.now();
  for (let b = 0; b < batches; b++) {
    appendRange(b * BATCH_POINTS, Math.min((b + 1) * BATCH_POINTS, wl.length));
    if (b % PROGRESS_EVERY_BATCHES === 0) reportProgress('blob floor', b, batches);
  }
  flushAll();
  const seconds = (performance.now() - started) / 1000;
  reportProgress('blob floor', batches, batches);
  return { seconds, rows };
}

/** Runs one floor on a fresh temp file and measures it (call in its own process for a clean peak RSS). */
export function measureFloor(floor: FloorKind, wl: Workload): FloorResult {
  const dir = mkdtempSync(join(tmpdir(), `strata-floor-${floor}-`));
  try {
    const db = openFloorDb(join(dir, `${floor}.sqlite`));
    const sqliteVersion = (db.prepare('SELECT sqlite_version()').pluck().get() as string) ?? 'unknown';
    const { seconds, rows } = floor === 'row' ? runRowFloor(wl, db) : runBlobFloor(wl, db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = allocatedBytes(dir);
    return {
      floor,
      kind: wl.spec.kind,
      points: wl.length,
      rows,
      ingestSeconds: seconds,
      pointsPerSecond: wl.length / seconds,
      allocatedBytes: bytes,
      bytesPerPoint: bytes / wl.length,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      sqliteVersion,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(): void {
  const floor = process.argv[2];
  const kind = process.argv[3] as ValueKind;
  if ((floor !== 'row' && floor !== 'blob') || !VALUE_KINDS.includes(kind)) {
    throw new Error('usage: node dist/bench/floors.js row|blob walk|rounded|nab END_MS');
  }
  const wl = generateWorkload(standardSpec(kind, intArg(2, 'END_MS')));
  emitResult(measureFloor(floor, wl));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
