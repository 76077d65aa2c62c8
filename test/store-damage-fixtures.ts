// Test helper for the damage tests: a store seeded with two series over two FULL partitions, and the ways a partition file gets damaged.
import { closeSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { HOUR_MS, MINUTE_MS } from '../src/core/time.js';
import type { Resolution } from '../src/model/resolution.js';
import type { Point } from '../src/model/sample.js';
import { partitionPath } from '../src/storage/partition-set.js';
import type { QueryRequest, Store } from '../src/store-types.js';

/** Seconds of a FULL partition; the seed fills [02:00, 11:00) of DAY0, so two FULL partitions. */
export const FULL_PARTITION_MS = 6 * HOUR_MS;
/** The two series of the seed. */
export const SERIES = ['cpu', 'mem'] as const;

/** The seed's points: every minute of [dayMs + 2 h, dayMs + 11 h) for both series, deterministic values. */
export function seedPoints(dayMs: number): Point[] {
  const points: Point[] = [];
  for (let i = 0; i < 9 * 60; i++) {
    const timestamp = dayMs + 2 * HOUR_MS + i * MINUTE_MS;
    points.push({ tenant: 't1', metric: 'cpu', timestamp, value: ((i * 37) % 101) / 4 });
    points.push({ tenant: 't1', metric: 'mem', timestamp, value: 1000 + ((i * 13) % 29) });
  }
  return points;
}

/** A query of one seed series over the whole seeded day, at a resolution, with every statistic. */
export function dayQuery(dayMs: number, metric: string, resolution: Resolution, fromMs = dayMs, toMs = dayMs + 24 * HOUR_MS): QueryRequest {
  // FULL answers at most 1440 points: the caller narrows the range for it.
  return { tenant: 't1', metric, from: fromMs, to: toMs, resolution, select: ['average', 'variance', 'min', 'max'] };
}

/** Every query's answer for the seed at FULL (per partition) and at every rollup level, to compare before and after. */
export async function snapshot(store: Store, dayMs: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const metric of SERIES) {
    out[`${metric}:FULL:early`] = (await store.query(dayQuery(dayMs, metric, 'FULL', dayMs, dayMs + FULL_PARTITION_MS))).values;
    out[`${metric}:FULL:late`] = (await store.query(dayQuery(dayMs, metric, 'FULL', dayMs + FULL_PARTITION_MS, dayMs + 2 * FULL_PARTITION_MS))).values;
    for (const res of ['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] as const) out[`${metric}:${res}`] = (await store.query(dayQuery(dayMs, metric, res))).values;
  }
  return out;
}

/** How a test damages a partition file. */
export type Damage = 'delete' | 'empty' | 'half' | 'garbage' | 'corrupt-page' | 'drop-chunk';

/**
 * Damages the partition file of `res` at `startMs` under `dataDir` (the store must be closed, so
 * the file is checkpointed and has no -wal): delete it, truncate it to 0 bytes or to half, write
 * 100 garbage bytes over its header, garbage over its second page (the header stays sound, so only
 * quick_check finds it), or delete one chunk row (a sound file holding fewer chunks than recorded).
 */
export function damagePartition(dataDir: string, res: Resolution, startMs: number, how: Damage): string {
  const path = partitionPath(dataDir, res, startMs);
  switch (how) {
    case 'delete':
      rmSync(path);
      break;
    case 'empty':
      truncateSync(path, 0);
      break;
    case 'half':
      truncateSync(path, Math.floor(statSync(path).size / 2));
      break;
    case 'garbage':
    case 'corrupt-page': {
      const at = how === 'garbage' ? 0 : pageBytesOf(path);
      const fd = openSync(path, 'r+');
      writeSync(fd, Buffer.alloc(how === 'garbage' ? 100 : 64, 0xa5), 0, how === 'garbage' ? 100 : 64, at);
      closeSync(fd);
      break;
    }
    case 'drop-chunk': {
      const db = new Database(path);
      db.prepare('DELETE FROM chunk WHERE key = (SELECT max(key) FROM chunk)').run();
      db.close();
      break;
    }
  }
  return path;
}

function pageBytesOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
}

/** A logger that keeps what it is told, for "logged once" checks. */
export function recordingLogger(): { logger: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void }; errors: { obj: Record<string, unknown>; msg: string | undefined }[] } {
  const errors: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  return { logger: { info: () => {}, warn: () => {}, error: (obj, msg) => errors.push({ obj: obj as Record<string, unknown>, msg }) }, errors };
}
