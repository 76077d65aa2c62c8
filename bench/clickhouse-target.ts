// Owns measuring one backend target (SQLite, or ClickHouse on N shards) in its own process: acknowledged ingest, flush, compaction, bytes per point, plot latency, and on ClickHouse the day finalization.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compactStore, ManualClock, openStore, DEFAULT_RETENTION_MS, type Point, type Store, type StoreOptions } from '../src/index.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { columnBytes, databaseBytes, optimizeFinal, sumBytes, type TableBytes } from './clickhouse-parts.js';
import { measurePlots, readBack, type PlotMeasurement, type ReadBack } from './engine-queries.js';
import { compareAnswers, sampleAnswers, type AnswerComparison } from './clickhouse-answers.js';
import { measureStoreBytes } from './store-bytes.js';
import { generateWorkload, standardSpec, toBatches, type ValueKind, type Workload } from '../src/workload/standard-workload.js';

/** The value kind every target ingests (one kind keeps the suite within minutes; walk is the engine bench's first). */
export const CLICKHOUSE_BENCH_KIND: ValueKind = 'walk';
/** Rollup worker threads, as the engine bench (a 2-core machine). */
const TARGET_WORKERS = 1;
/** Progress is reported every this many batches. */
const PROGRESS_EVERY_BATCHES = 16;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/**
 * How far past the FULL retention the clock moves for the day finalization: the last data day's end
 * plus the FULL retention plus this, so every data day lies before the closed-days end.
 */
const FINALIZE_MARGIN_MS = HOUR_MS;
/** The raw points' local table; every table called rollup_* holds rollups (the ClickHouse store's schema). */
const RAW_TABLE = 'points_local';
const isRollupTable = (table: string): boolean => table.startsWith('rollup_');

/** Where a target runs. */
export type TargetSpec = { readonly kind: 'sqlite' } | { readonly kind: 'clickhouse'; readonly urls: readonly string[]; readonly cluster: string; readonly database: string };

/** Bytes per raw point: the raw points alone, the rollups alone, and everything the backend keeps. */
export interface TargetBytes {
  readonly rawBytesPerPoint: number;
  readonly rollupBytesPerPoint: number;
  readonly allBytesPerPoint: number;
  /** SQLite: du of the data directory's parts; ClickHouse: active parts per table over every shard. */
  readonly detail: unknown;
  /** ClickHouse: compressed bytes per raw point of each points_local column (system.columns); null on SQLite. */
  readonly rawColumnBytesPerPoint: Record<string, number> | null;
}

/** The day finalization on ClickHouse: flush() after the clock passed the FULL retention. */
export interface FinalizeMeasurement {
  readonly clockMs: number;
  readonly flushSeconds: number;
  readonly optimizeSeconds: number;
  readonly tables: Record<string, TableBytes>;
  readonly rollupBytesPerPoint: number;
  /** Plots read again, now from the stored rollup tables. */
  readonly plots: PlotMeasurement[];
  /** Sample 24 h MIN5 answers from the stored rollups against the same answers computed live from raw before. */
  readonly storedVsLive: AnswerComparison;
}

/** Everything measured on one target. */
export interface TargetResult {
  readonly target: string;
  readonly backend: 'sqlite' | 'clickhouse';
  readonly shards: number;
  readonly kind: ValueKind;
  readonly series: number;
  readonly points: number;
  readonly batches: number;
  readonly t0Ms: number;
  readonly dataEndMs: number;
  readonly ingestSeconds: number;
  readonly ingestPointsPerSecond: number;
  readonly flushSeconds: number;
  readonly inclFlushPointsPerSecond: number;
  /** SQLite: compactStore(); ClickHouse: OPTIMIZE TABLE points_local FINAL on every shard. */
  readonly compactSeconds: number;
  readonly plots: PlotMeasurement[];
  readonly readBack: ReadBack;
  readonly bytes: TargetBytes;
  readonly finalize: FinalizeMeasurement | null;
  readonly peakRssBytes: number;
}

async function ingest(store: Store, batches: readonly (readonly Point[])[], points: number): Promise<void> {
  let accepted = 0;
  for (let b = 0; b < batches.length; b++) {
    const result = await store.write(batches[b] as Point[]);
    accepted += result.accepted;
    if (result.rejected.length > 0) throw new Error(`batch ${b}: ${result.rejected.length} points rejected, first: ${result.rejected[0]?.message}`);
    if (b % PROGRESS_EVERY_BATCHES === 0) reportProgress('ingest', b, batches.length);
  }
  reportProgress('ingest', batches.length, batches.length);
  if (accepted !== points) throw new Error(`accepted ${accepted} of ${points} points`);
}

async function timed<T>(phase: string, run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  reportProgress(phase, 0, 1);
  const started = performance.now();
  const value = await run();
  const seconds = (performance.now() - started) / 1000;
  reportProgress(phase, 1, 1);
  return { value, seconds };
}

/**
 * ClickHouse bytes: the raw points (and the small tables) as they stand before the finalization,
 * the rollups as the finalization wrote them: all = both, what the backend holds while raw and rollups coexist.
 */
function clickhouseBytes(before: Record<string, TableBytes>, after: Record<string, TableBytes> | undefined, columns: Record<string, number>, points: number): TargetBytes {
  const rollups = after === undefined ? 0 : sumBytes(after, isRollupTable);
  return {
    rawColumnBytesPerPoint: Object.fromEntries(Object.entries(columns).map(([name, bytes]) => [name, bytes / points])),
    rawBytesPerPoint: sumBytes(before, (t) => t === RAW_TABLE) / points,
    rollupBytesPerPoint: rollups / points,
    allBytesPerPoint: (sumBytes(before, (t) => !isRollupTable(t)) + rollups) / points,
    detail: { beforeFinalize: before, afterFinalize: after ?? null },
  };
}

/** The first instant at which every UTC day holding data is closed (older than the FULL retention allows writes). */
export function finalizeClockMs(dataEndMs: number): number {
  const lastDayEnd = Math.ceil(dataEndMs / DAY_MS) * DAY_MS;
  return lastDayEnd + DEFAULT_RETENTION_MS.FULL + FINALIZE_MARGIN_MS;
}

async function finalizeClickHouse(store: Store, clock: ManualClock, spec: Extract<TargetSpec, { kind: 'clickhouse' }>, wl: Workload): Promise<FinalizeMeasurement> {
  const live = await sampleAnswers(store, wl);
  const clockMs = finalizeClockMs(wl.dataEndMs);
  clock.set(clockMs);
  const flush = await timed('finalize: flush past the FULL retention', () => store.flush());
  const before = await databaseBytes(spec.urls, spec.database);
  const optimize = await timed('finalize: OPTIMIZE FINAL rollups', () => optimizeFinal(spec.urls, spec.database, Object.keys(before).filter(isRollupTable)));
  const tables = await databaseBytes(spec.urls, spec.database);
  const plots = (await timed('finalize: plots from stored rollups', () => measurePlots(store, wl))).value;
  const storedVsLive = compareAnswers(live, await sampleAnswers(store, wl));
  return { clockMs, flushSeconds: flush.seconds, optimizeSeconds: optimize.seconds, tables, rollupBytesPerPoint: sumBytes(tables, isRollupTable) / wl.length, plots, storedVsLive };
}

function storeOptions(spec: TargetSpec, dir: string | undefined, clock: ManualClock): StoreOptions {
  if (spec.kind === 'sqlite') return { dir, clock, workers: TARGET_WORKERS };
  return { backend: { kind: 'clickhouse', urls: spec.urls, cluster: spec.cluster, database: spec.database }, clock, workers: TARGET_WORKERS };
}

/** Measures `spec` on the standard workload (walk) cut to `series` series, with a manual clock at `endMs`. */
export async function measureTarget(target: string, spec: TargetSpec, endMs: number, series: number): Promise<TargetResult> {
  reportProgress('generate workload', 0, 1);
  const wl = generateWorkload({ ...standardSpec(CLICKHOUSE_BENCH_KIND, endMs), series });
  let batches: Point[][] | undefined = toBatches(wl);
  const batchTotal = batches.length;
  reportProgress('generate workload', 1, 1);
  const dir = spec.kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'strata-bench-ch-sqlite-')) : undefined;
  const clock = new ManualClock(endMs);
  try {
    const store = await openStore(storeOptions(spec, dir, clock));
    const started = performance.now();
    await ingest(store, batches, wl.length);
    const ingestSeconds = (performance.now() - started) / 1000;
    batches = undefined;
    const flush = await timed('flush', () => store.flush());
    const inclFlushSeconds = (performance.now() - started) / 1000;
    const compact = await timed('compact', async () => {
      if (spec.kind === 'sqlite') await compactStore(store);
      else await optimizeFinal(spec.urls, spec.database, [RAW_TABLE]);
    });
    const chTables = spec.kind === 'clickhouse' ? await databaseBytes(spec.urls, spec.database) : undefined;
    const chColumns = spec.kind === 'clickhouse' ? await columnBytes(spec.urls, spec.database, RAW_TABLE) : undefined;
    const plots = (await timed('plots', () => measurePlots(store, wl))).value;
    const checked = await readBack(store, wl);
    const finalize = spec.kind === 'clickhouse' ? await finalizeClickHouse(store, clock, spec, wl) : null;
    await store.close();
    let bytes: TargetBytes;
    if (dir !== undefined) {
      const b = measureStoreBytes(dir);
      const n = wl.length;
      bytes = { rawBytesPerPoint: b.fullAllocatedBytes / n, rollupBytesPerPoint: b.rollupAllocatedBytes / n, allBytesPerPoint: b.dirAllocatedBytes / n, detail: b, rawColumnBytesPerPoint: null };
    } else {
      bytes = clickhouseBytes(chTables ?? {}, finalize?.tables, chColumns ?? {}, wl.length);
    }
    return {
      target,
      backend: spec.kind,
      shards: spec.kind === 'sqlite' ? 0 : spec.urls.length,
      kind: CLICKHOUSE_BENCH_KIND,
      series: wl.spec.series,
      points: wl.length,
      batches: batchTotal,
      t0Ms: wl.t0Ms,
      dataEndMs: wl.dataEndMs,
      ingestSeconds,
      ingestPointsPerSecond: wl.length / ingestSeconds,
      flushSeconds: flush.seconds,
      inclFlushPointsPerSecond: wl.length / inclFlushSeconds,
      compactSeconds: compact.seconds,
      plots,
      readBack: checked,
      bytes,
      finalize,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    };
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** argv: TARGET END_MS SERIES sqlite | TARGET END_MS SERIES clickhouse URL[,URL] CLUSTER DATABASE. */
async function main(): Promise<void> {
  const [target, , , backend, urls, cluster, database] = process.argv.slice(2);
  const usage = 'usage: node dist/bench/clickhouse-target.js TARGET END_MS SERIES sqlite | ... clickhouse URL[,URL] CLUSTER DATABASE';
  if (target === undefined) throw new Error(usage);
  let spec: TargetSpec;
  if (backend === 'sqlite') spec = { kind: 'sqlite' };
  else if (backend === 'clickhouse' && urls !== undefined && cluster !== undefined && database !== undefined) spec = { kind: 'clickhouse', urls: urls.split(','), cluster, database };
  else throw new Error(usage);
  emitResult(await measureTarget(target, spec, intArg(1, 'END_MS'), intArg(2, 'SERIES')));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
