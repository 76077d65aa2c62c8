// Owns the materialized-view probe (its own process): raw-point ingest into ClickHouse without and with five AggregatingMergeTree rollups fed by MVs, and whether the MV rollups stay exact when timestamps are rewritten.
import { pathToFileURL } from 'node:url';
import { chInsertRowBinary, chStatement } from './clickhouse-http.js';
import { compareMin5, type Min5Comparison } from './clickhouse-mv-exactness.js';
import { databaseBytes, optimizeFinal, sumBytes, type TableBytes } from './clickhouse-parts.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { mulberry32, UINT32_RANGE } from '../src/workload/prng.js';
import { BATCH_POINTS, generateWorkload, standardSpec, type Workload } from '../src/workload/standard-workload.js';

/** Bytes of one RowBinary row of points_local, the store's own layout: series u64, ts u64, kind u8, value f64, text '' (length 0). */
const ROW_BYTES = 26;
/** Runs per variant, interleaved plain/mv so a slow spell of the machine hits both. */
const PROBE_RUNS = 2;
/** Share of the points written a second time with a new value (last write wins). */
const REWRITE_SHARE = 0.01;
/** Seed of the rewritten points' choice and new values. */
const REWRITE_SEED = 15;
/** Rollup levels the MVs feed, in minutes (the engine's MIN5 … MIN1440). */
const LEVEL_MINUTES = [5, 20, 60, 240, 1440] as const;
/** Partition width of each level's table (as LAYOUT[res].partitionWidthMs), in days. */
const LEVEL_PARTITION_DAYS: Readonly<Record<number, number>> = { 5: 1, 20: 4, 60: 12, 240: 48, 1440: 336 };
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** One timed ingest of the whole workload into a fresh database. */
export interface ProbeIngest {
  readonly variant: 'plain' | 'mv';
  readonly seconds: number;
  readonly pointsPerSecond: number;
  /** Active parts after OPTIMIZE FINAL, per table. */
  readonly tables: Record<string, TableBytes>;
}

/** Everything the probe measured. */
export interface MvProbeResult {
  readonly database: string;
  readonly series: number;
  readonly points: number;
  readonly batches: number;
  readonly runs: ProbeIngest[];
  readonly plainPointsPerSecond: number;
  readonly mvPointsPerSecond: number;
  /** MV rollup tables' bytes per raw point after OPTIMIZE FINAL (median run). */
  readonly mvRollupBytesPerPoint: number;
  readonly rewrittenPoints: number;
  /** MIN5 buckets holding at least one rewritten point. */
  readonly bucketsWithRewrites: number;
  readonly beforeRewrite: Min5Comparison;
  readonly afterRewrite: Min5Comparison;
}

function putU64(buf: Buffer, at: number, v: number): void {
  buf.writeUInt32LE(v % 2 ** 32, at);
  buf.writeUInt32LE(Math.floor(v / 2 ** 32), at + 4);
}

/** RowBinary rows of points_local for the point indexes [start, end) (or `indexes`), series id = index + 1. */
function encodeRows(wl: Workload, indexes: ArrayLike<number>, valueOf: (i: number) => number): Buffer {
  const buf = Buffer.alloc(indexes.length * ROW_BYTES);
  for (let r = 0, at = 0; r < indexes.length; r++, at += ROW_BYTES) {
    const i = indexes[r] as number;
    putU64(buf, at, (wl.seriesIndex[i] as number) + 1);
    putU64(buf, at + 8, wl.timestampsMs[i] as number);
    buf.writeUInt8(0, at + 16);
    buf.writeDoubleLE(valueOf(i), at + 17);
    buf.writeUInt8(0, at + 25);
  }
  return buf;
}

function range(start: number, end: number): Uint32Array {
  const out = new Uint32Array(end - start);
  for (let i = 0; i < out.length; i++) out[i] = start + i;
  return out;
}

async function createSchema(url: string, database: string, withMvs: boolean): Promise<void> {
  await chStatement(url, `DROP DATABASE IF EXISTS ${database}`);
  await chStatement(url, `CREATE DATABASE ${database}`);
  await chStatement(
    url,
    `CREATE TABLE ${database}.points_local (series UInt64, ts UInt64, kind UInt8, value Float64, text String) ` +
      `ENGINE = ReplacingMergeTree PARTITION BY intDiv(ts, ${DAY_MS}) ORDER BY (series, ts)`,
  );
  if (!withMvs) return;
  for (const minutes of LEVEL_MINUTES) {
    const width = minutes * MINUTE_MS;
    await chStatement(
      url,
      `CREATE TABLE ${database}.agg_min${minutes} (series UInt64, bucket UInt64, cnt AggregateFunction(count), avg_state AggregateFunction(avg, Float64), ` +
        `var_state AggregateFunction(varPop, Float64), min_state AggregateFunction(min, Float64), max_state AggregateFunction(max, Float64)) ` +
        `ENGINE = AggregatingMergeTree PARTITION BY intDiv(bucket, ${(LEVEL_PARTITION_DAYS[minutes] as number) * DAY_MS}) ORDER BY (series, bucket)`,
    );
    await chStatement(
      url,
      `CREATE MATERIALIZED VIEW ${database}.mv_min${minutes} TO ${database}.agg_min${minutes} AS SELECT series, intDiv(ts, ${width}) * ${width} AS bucket, ` +
        'countState() AS cnt, avgState(value) AS avg_state, varPopState(value) AS var_state, minState(value) AS min_state, maxState(value) AS max_state ' +
        `FROM ${database}.points_local WHERE kind = 0 GROUP BY series, bucket`,
    );
  }
}

async function ingestRun(url: string, database: string, variant: 'plain' | 'mv', bodies: readonly Buffer[], points: number): Promise<ProbeIngest> {
  await createSchema(url, database, variant === 'mv');
  const started = performance.now();
  for (let b = 0; b < bodies.length; b++) {
    await chInsertRowBinary(url, database, 'points_local', bodies[b] as Buffer);
    if (b % 32 === 0) reportProgress(`mv probe: ${variant} ingest`, b, bodies.length);
  }
  const seconds = (performance.now() - started) / 1000;
  reportProgress(`mv probe: ${variant} ingest`, bodies.length, bodies.length);
  const tables = variant === 'mv' ? ['points_local', ...LEVEL_MINUTES.map((m) => `agg_min${m}`)] : ['points_local'];
  await optimizeFinal([url], database, tables);
  return { variant, seconds, pointsPerSecond: points / seconds, tables: await databaseBytes([url], database) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Seeded distinct point indexes, REWRITE_SHARE of the workload. */
function rewriteIndexes(n: number): Uint32Array {
  const next = mulberry32(REWRITE_SEED);
  const chosen = new Set<number>();
  const want = Math.max(1, Math.round(n * REWRITE_SHARE));
  while (chosen.size < want) chosen.add(Math.floor((next() / UINT32_RANGE) * n));
  return Uint32Array.from([...chosen].sort((a, b) => a - b));
}

/** Runs the probe against the shard at `url` in database `database` (dropped and recreated per run, dropped at the end). */
export async function runMvProbe(url: string, database: string, endMs: number, series: number): Promise<MvProbeResult> {
  const wl = generateWorkload({ ...standardSpec('walk', endMs), series });
  const bodies: Buffer[] = [];
  for (let start = 0; start < wl.length; start += BATCH_POINTS) bodies.push(encodeRows(wl, range(start, Math.min(start + BATCH_POINTS, wl.length)), (i) => wl.values[i] as number));
  const runs: ProbeIngest[] = [];
  for (let r = 0; r < PROBE_RUNS; r++) {
    runs.push(await ingestRun(url, database, 'plain', bodies, wl.length));
    runs.push(await ingestRun(url, database, 'mv', bodies, wl.length));
  }
  // The last run left the MV database in place: check it, rewrite 1 % of the timestamps, check again.
  reportProgress('mv probe: exactness', 0, 1);
  const beforeRewrite = await compareMin5(url, database);
  const indexes = rewriteIndexes(wl.length);
  const next = mulberry32(REWRITE_SEED + 1);
  const newValue = new Map<number, number>();
  for (const i of indexes) newValue.set(i, (wl.values[i] as number) + 1 + next() / UINT32_RANGE);
  for (let start = 0; start < indexes.length; start += BATCH_POINTS) {
    await chInsertRowBinary(url, database, 'points_local', encodeRows(wl, indexes.subarray(start, start + BATCH_POINTS), (i) => newValue.get(i) as number));
  }
  const afterRewrite = await compareMin5(url, database);
  const touched = new Set<string>();
  for (const i of indexes) touched.add(`${wl.seriesIndex[i]}:${Math.floor((wl.timestampsMs[i] as number) / (5 * MINUTE_MS))}`);
  reportProgress('mv probe: exactness', 1, 1);
  await chStatement(url, `DROP DATABASE IF EXISTS ${database}`);
  const mvRuns = runs.filter((r) => r.variant === 'mv');
  const rollupBytes = median(mvRuns.map((r) => sumBytes(r.tables, (t) => t.startsWith('agg_'))));
  return {
    database,
    series,
    points: wl.length,
    batches: bodies.length,
    runs,
    plainPointsPerSecond: median(runs.filter((r) => r.variant === 'plain').map((r) => r.pointsPerSecond)),
    mvPointsPerSecond: median(mvRuns.map((r) => r.pointsPerSecond)),
    mvRollupBytesPerPoint: rollupBytes / wl.length,
    rewrittenPoints: indexes.length,
    bucketsWithRewrites: touched.size,
    beforeRewrite,
    afterRewrite,
  };
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const database = process.argv[3];
  if (url === undefined || database === undefined) throw new Error('usage: node dist/bench/clickhouse-mv-probe.js URL DATABASE END_MS SERIES');
  emitResult(await runMvProbe(url, database, intArg(2, 'END_MS'), intArg(3, 'SERIES')));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
