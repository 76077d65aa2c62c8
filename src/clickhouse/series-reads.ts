// Owns reading one series from its shard: raw samples, and buckets (stored for finalized days, computed from raw for the rest).
import { CLICKHOUSE_READ_PAGE_POINTS } from '../core/limits.js';
import { alignDown } from '../core/time.js';
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import { LAYOUT, type RollupResolution } from '../model/resolution.js';
import { bucketsFromSamples, concatBuckets, sliceBuckets } from '../model/rollup-math.js';
import { BUCKET_COLUMNS, concatSamples, decodeBuckets, decodeSamples, SAMPLE_COLUMNS } from './row-codecs.js';
import { POINTS_LOCAL, rollupLocalTable } from './schema.js';
import type { ShardClient } from './shard-client.js';

/** Where a read goes: the series' own shard (18.16 cannot skip the shards a Distributed read does not need). */
export interface SeriesLocation {
  readonly shard: ShardClient;
  readonly seriesId: bigint;
}

/**
 * The samples of a series in [fromMs, toMs), the last write of each timestamp (FINAL picks the
 * highest version before any merge has run).
 */
export async function readSamples(at: SeriesLocation, fromMs: number, toMs: number): Promise<SampleColumns> {
  const parts: SampleColumns[] = [];
  // Pages of at most CLICKHOUSE_READ_PAGE_POINTS rows from a ts keyset: a dense series' range never
  // outgrows one answer's byte limit.
  for (let startMs = fromMs, inclusive = true; startMs < toMs; inclusive = false) {
    const body = await at.shard.binary(
      `SELECT ${SAMPLE_COLUMNS} FROM ${POINTS_LOCAL} FINAL WHERE series = ${at.seriesId} AND ts ${inclusive ? '>=' : '>'} ${startMs} AND ts < ${toMs} ORDER BY ts LIMIT ${CLICKHOUSE_READ_PAGE_POINTS}`,
    );
    const page = decodeSamples(body);
    parts.push(page);
    const rows = page.length + (page.strings?.length ?? 0);
    if (rows < CLICKHOUSE_READ_PAGE_POINTS) break;
    startMs = Math.max(page.length > 0 ? (page.timestampsMs[page.length - 1] as number) : -Infinity, page.strings !== null ? (page.strings.timestampsMs[page.strings.length - 1] as number) : -Infinity);
  }
  return parts.length === 0 ? decodeSamples(Buffer.alloc(0)) : concatSamples(parts);
}

async function readStoredBuckets(at: SeriesLocation, res: RollupResolution, fromMs: number, toMs: number): Promise<BucketColumns | undefined> {
  if (fromMs >= toMs) return undefined;
  const body = await at.shard.binary(
    `SELECT ${BUCKET_COLUMNS} FROM ${rollupLocalTable(res)} FINAL WHERE series = ${at.seriesId} AND bucket >= ${fromMs} AND bucket < ${toMs} ORDER BY bucket`,
  );
  return decodeBuckets(body);
}

/**
 * Buckets of `res` starting in [fromMs, toMs) (fromMs bucket-aligned). Days before
 * `finalizedThroughMs` are read from the rollup table, where their finalization stored them; the
 * rest is computed from the raw points with the engine's own rollup math, whole buckets (a
 * bucket that starts before toMs holds its points after toMs too, as a stored one does). The
 * boundary is a day, and every bucket width divides a day, so no bucket is split between the two.
 */
export async function readBuckets(at: SeriesLocation, res: RollupResolution, fromMs: number, toMs: number, finalizedThroughMs: number): Promise<BucketColumns> {
  const widthMs = LAYOUT[res].bucketWidthMs;
  const storedTo = Math.min(toMs, finalizedThroughMs);
  const liveFrom = Math.max(fromMs, finalizedThroughMs);
  const liveTo = alignDown(toMs - 1, widthMs) + widthMs;
  const [stored, samples] = await Promise.all([readStoredBuckets(at, res, fromMs, storedTo), liveFrom < toMs ? readSamples(at, liveFrom, liveTo) : undefined]);
  const parts: BucketColumns[] = [];
  if (stored !== undefined) parts.push(stored);
  if (samples !== undefined) parts.push(sliceBuckets(bucketsFromSamples(samples, widthMs), liveFrom, toMs));
  return parts.length === 1 ? (parts[0] as BucketColumns) : concatBuckets(parts);
}
