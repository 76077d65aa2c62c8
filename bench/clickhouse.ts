// Owns `npm run bench -- clickhouse`: SQLite, ClickHouse on 1 shard and on 2 shards in one run (each target in its own process), plus the materialized-view probe; prints the tables, writes bench/results/clickhouse-<date>.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startClickHouseCluster, type ClickHouseCluster } from '../test/support/clickhouse-cluster.js';
import { flagValue, positiveFlag } from './bench-flags.js';
import { runChild } from './child-io.js';
import { chRows } from './clickhouse-http.js';
import type { MvProbeResult } from './clickhouse-mv-probe.js';
import { probeText, targetChecks, targetsTable } from './clickhouse-report.js';
import { CLICKHOUSE_BENCH_KIND, type TargetResult } from './clickhouse-target.js';
import { createProgress, type BenchProgress } from './progress.js';
import { BATCH_POINTS, STANDARD_INTERVAL_MS, STANDARD_POINTS, STANDARD_SERIES } from '../src/workload/standard-workload.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(HERE, '..', '..', 'bench', 'results');
/** The suite's name on the command line. */
export const CLICKHOUSE_SUITE = 'clickhouse';
/** The flag that scales the workload down: `--ch-series N` series instead of the standard 1,000. */
const SERIES_FLAG = '--ch-series';
/** The database the store under test owns on the bench clusters. */
const STORE_DATABASE = 'strata_bench';
/** The database the MV probe creates (and drops) on the 1-shard cluster. */
const PROBE_DATABASE = 'strata_mvprobe';
/** Steps of the progress display: SQLite, ClickHouse 1 shard, the MV probe, ClickHouse 2 shards. */
const STEPS = 4;

/** Options of the suite. */
export interface ClickHouseSuiteOptions {
  /** Series of the workload (each STANDARD_POINTS points at 30 s). */
  readonly series: number;
}

/** Reads the suite's flags from argv. */
export function clickhouseSuiteOptions(args: readonly string[]): ClickHouseSuiteOptions {
  const series = flagValue(args, SERIES_FLAG);
  return { series: series === undefined ? STANDARD_SERIES : positiveFlag(series, SERIES_FLAG) };
}

/** The argv indexes the suite's flags take, so the orchestrator does not take them for suite names. */
export function clickhouseSuiteFlags(args: readonly string[]): Set<number> {
  const taken = new Set<number>();
  args.forEach((arg, i) => {
    if (arg === SERIES_FLAG) taken.add(i).add(i + 1);
  });
  return taken;
}

function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return db.prepare('SELECT sqlite_version()').pluck().get() as string;
  } finally {
    db.close();
  }
}

/** Starts a cluster of `shards` in a fresh temp dir, runs `use`, then stops its servers (by their PIDs) and removes the dir. */
async function withCluster<T>(progress: BenchProgress, shards: 1 | 2, use: (cluster: ClickHouseCluster) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `strata-bench-ch${shards}-`));
  try {
    const cluster = await startClickHouseCluster({ dir, shards });
    progress.log(`    started ${cluster.cluster}: ${cluster.urls.join(', ')} (data in ${dir})`);
    try {
      return await use(cluster);
    } finally {
      await cluster.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function target(progress: BenchProgress, label: string, args: readonly string[]): Promise<TargetResult> {
  progress.step(label);
  return (await runChild(join(HERE, 'clickhouse-target.js'), args, (m) => progress.phase(m))) as TargetResult;
}

function clusterArgs(cluster: ClickHouseCluster): string[] {
  return ['clickhouse', cluster.urls.join(','), cluster.cluster, STORE_DATABASE];
}

/** Runs the suite: prints the tables and writes bench/results/clickhouse-<date>.json. */
export async function runClickHouseSuite(options: ClickHouseSuiteOptions, machine: Record<string, unknown>): Promise<void> {
  const started = performance.now();
  const endMs = Date.now();
  const common = [String(endMs), String(options.series)];
  const points = options.series * STANDARD_POINTS;
  const workload =
    `${options.series} series x ${STANDARD_POINTS} points = ${points.toLocaleString('en-US')} points at ${STANDARD_INTERVAL_MS / 1000} s ` +
    `(kind ${CLICKHOUSE_BENCH_KIND}${options.series === STANDARD_SERIES ? ', the standard scale' : `, scaled to ${options.series} of ${STANDARD_SERIES} series`}), ` +
    `time-major batches of ${BATCH_POINTS} through store.write`;
  console.log(`ClickHouse suite (issue 15): ${workload}`);
  const progress = createProgress(STEPS);
  const targets: TargetResult[] = [];
  let clickhouseVersion = 'unknown';
  targets.push(await target(progress, 'clickhouse suite: SQLite backend', ['sqlite', ...common, 'sqlite']));
  const probe = await withCluster(progress, 1, async (cluster) => {
    clickhouseVersion = (await chRows(cluster.urls[0] as string, 'SELECT version()'))[0]?.[0] ?? 'unknown';
    targets.push(await target(progress, 'clickhouse suite: ClickHouse, 1 shard', ['clickhouse 1 shard', ...common, ...clusterArgs(cluster)]));
    progress.step('clickhouse suite: MV probe (1 shard)');
    return (await runChild(join(HERE, 'clickhouse-mv-probe.js'), [cluster.urls[0] as string, PROBE_DATABASE, ...common], (m) => progress.phase(m))) as MvProbeResult;
  });
  await withCluster(progress, 2, async (cluster) => {
    targets.push(await target(progress, 'clickhouse suite: ClickHouse, 2 shards', ['clickhouse 2 shards', ...common, ...clusterArgs(cluster)]));
  });
  progress.stop();
  console.log('');
  console.log(`ClickHouse suite (issue 15): ${workload}; SQLite ${sqliteVersion()}, ClickHouse ${clickhouseVersion}; both shards and Node share this machine's cores`);
  console.log(targetsTable(targets));
  console.log(targetChecks(targets).join('\n'));
  console.log('');
  console.log(probeText(probe, targets.find((t) => t.shards === 1)));
  const durationSeconds = (performance.now() - started) / 1000;
  const date = new Date().toISOString();
  const file = join(RESULTS_DIR, `clickhouse-${date.slice(0, 10)}.json`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const results = {
    date,
    durationSeconds,
    machine: { ...machine, sqlite: sqliteVersion(), clickhouse: clickhouseVersion },
    workload: { description: workload, kind: CLICKHOUSE_BENCH_KIND, series: options.series, points: STANDARD_POINTS, intervalMs: STANDARD_INTERVAL_MS, batchPoints: BATCH_POINTS, endMs },
    methodology: {
      targets:
        'each target in its own process on a fresh store (SQLite: temp dir; ClickHouse: a fresh cluster in a temp dir, database ' +
        `${STORE_DATABASE}), openStore({ clock: ManualClock at the run's end, workers: 1 }); await store.write(batch) sequentially (acknowledged: ` +
        'SQLite once in the write-ahead log, ClickHouse once every shard acknowledged the insert); flush(); compaction (SQLite compactStore, ClickHouse OPTIMIZE TABLE points_local FINAL on every shard)',
      bytes:
        'SQLite: du of the closed data dir (raw = FULL partitions, rollup = the five rollup levels, all = the whole dir with WAL and catalog). ' +
        'ClickHouse: bytes_on_disk of active parts summed over shards after OPTIMIZE FINAL (raw = points_local before finalization, rollup = rollup_*_local after it, all = every table before finalization + the rollups)',
      plots: 'engine-queries measurePlots: 24 h at MIN5 and 48 h at MIN20 of seeded random series, sequential after warm-ups; ClickHouse before finalization computes buckets live from raw, after it reads the stored rollups',
      finalize: 'ClickHouse only: the manual clock set past the last data day end + the FULL retention, then flush() timed (day finalization, rollups written, raw days dropped)',
      mvProbe:
        'a fresh 1-shard database, plain HTTP RowBinary inserts of the same points (batches of the same size) into the store\'s ReplacingMergeTree points_local (no version column), without and with five AggregatingMergeTree tables fed by MVs; ' +
        'then 1 % of the points rewritten with new values (higher ver) and every MIN5 bucket of the MVs (…Merge) compared with points_local FINAL',
    },
    targets,
    mvProbe: probe,
  };
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${file} (${durationSeconds.toFixed(0)} s)`);
}
