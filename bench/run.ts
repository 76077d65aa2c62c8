// Owns `npm run bench`: runs the floors and the engine per value kind in child processes, the HTTP bench when present, the overload suite, the checks suite, the agents suite and the protocols suite, and the console charts and ClickHouse suites when named (`npm run bench -- console`, `-- clickhouse`); prints the tables, writes bench/results/*.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { machineInfo } from './machine.js';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChild } from './child-io.js';
import { CHECKS_SUITE, checksSuiteFlags, checksSuiteOptions, runChecksSuite } from './checks-suite.js';
import { PROTOCOLS_SUITE, runProtocolsSuite } from './protocols-suite.js';
import { AGENTS_SUITE, agentsSuiteFlags, agentsSuiteOptions, runAgentsSuite } from './agents-suite.js';
import { CONSOLE_CHARTS_SUITE, runConsoleChartsSuite } from './console-charts.js';
import { CLICKHOUSE_SUITE, clickhouseSuiteFlags, clickhouseSuiteOptions, runClickHouseSuite } from './clickhouse.js';
import type { EngineResult } from './engine.js';
import type { FloorResult } from './floors.js';
import { WARMUP_QUERIES, TIMED_QUERIES } from './latency.js';
import { overloadDescription, type OverloadRun } from './overload.js';
import { overloadRows } from './overload-report.js';
import { createProgress, type BenchProgress } from './progress.js';
import { rate, renderReport, renderTable } from './report.js';
import { summariseKind, type KindRuns } from './summary.js';
import { checkTargets, issue14Figures, parseBaseline, type Issue14Baseline } from './targets.js';
import { BATCH_POINTS, chooseT0Ms, STANDARD_INTERVAL_MS, STANDARD_POINTS, STANDARD_SEED, STANDARD_SERIES, VALUE_KINDS, type ValueKind } from '../src/workload/standard-workload.js';

/** Timed engine runs per kind (peer-results reports the median of 3). */
const ENGINE_RUNS = 3;
/** Blob-floor runs per kind: cheap, and as noisy as the engine. */
const BLOB_FLOOR_RUNS = 3;
/** Row-floor runs per kind: 10–30 s each here, so one, to keep the bench well under 5 minutes. */
const ROW_FLOOR_RUNS = 1;
/** Kinds that get the row floor: every kind fits in the time budget; drop nab here if the bench must be faster. */
const ROW_FLOOR_KINDS: readonly ValueKind[] = VALUE_KINDS;

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'engine.json');
const OVERLOAD_RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'overload.json');
const HTTP_BENCH_MODULE = join(HERE, 'http-ingest.js');
/** Issue 14's before medians (checked in): seal and rollup throughput must stay within 20 % of them. */
const ISSUE14_BASELINE_FILE = join(HERE, '..', '..', 'bench', 'baselines', 'issue14-before.json');

/** Issue 3's HTTP targets: ingest rate per wire format, and the 288-point plot's median latency. */
const HTTP_INGEST_TARGET_PPS: Readonly<Record<string, number>> = { json: 1_200_000, msgpack: 2_500_000 };
const HTTP_PLOT_P50_TARGET_MS = 2;

/** The part of bench/http-ingest.ts's result this report renders; anything else is printed as JSON. */
interface HttpBenchShape {
  readonly ingest: readonly { readonly format: string; readonly pointsPerSecond: number; readonly pointsPerSecondRuns?: readonly number[]; readonly bodyBytes: number; readonly seconds: number }[];
  readonly plot288?: { readonly p50Ms: number; readonly p99Ms: number; readonly values: number };
}

function machine(sqliteVersion: string): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  return {
    ...machineInfo(),
    betterSqlite3: (require('better-sqlite3/package.json') as { version: string }).version,
    sqlite: sqliteVersion,
  };
}

async function child<T>(progress: BenchProgress, label: string, script: string, args: readonly string[]): Promise<T> {
  progress.step(label);
  return (await runChild(join(HERE, script), args, (m) => progress.phase(m))) as T;
}

function rowFloorRuns(kind: ValueKind): number {
  return ROW_FLOOR_KINDS.includes(kind) ? ROW_FLOOR_RUNS : 0;
}

async function runKind(progress: BenchProgress, kind: ValueKind, endMs: number): Promise<KindRuns> {
  const end = String(endMs);
  const rowFloor: FloorResult[] = [];
  const blobFloor: FloorResult[] = [];
  const engine: EngineResult[] = [];
  const rowRuns = rowFloorRuns(kind);
  for (let r = 0; r < rowRuns; r++) rowFloor.push(await child(progress, `${kind}: row floor run ${r + 1}/${rowRuns}`, 'floors.js', ['row', kind, end]));
  // Interleaved, so a slow spell of the machine hits both sides of the ratio.
  for (let r = 0; r < Math.max(ENGINE_RUNS, BLOB_FLOOR_RUNS); r++) {
    if (r < BLOB_FLOOR_RUNS) blobFloor.push(await child(progress, `${kind}: blob floor run ${r + 1}/${BLOB_FLOOR_RUNS}`, 'floors.js', ['blob', kind, end]));
    if (r < ENGINE_RUNS) engine.push(await child(progress, `${kind}: engine run ${r + 1}/${ENGINE_RUNS}`, 'engine.js', [kind, end, 'prebuilt']));
  }
  const engineStreamed = await child<EngineResult>(progress, `${kind}: engine memory run (batches built per write)`, 'engine.js', [kind, end, 'streamed']);
  return { kind, rowFloor, blobFloor, engine, engineStreamed };
}

/** Runs bench/http-ingest.js (another engineer's) in its own process when it exists and exports runHttpBench. */
async function runHttp(progress: BenchProgress, endMs: number): Promise<unknown> {
  if (!existsSync(HTTP_BENCH_MODULE)) return { skipped: 'bench/http-ingest.ts does not exist yet' };
  const mod = (await import(pathToFileURL(HTTP_BENCH_MODULE).href)) as { runHttpBench?: unknown };
  if (typeof mod.runHttpBench !== 'function') return { skipped: 'bench/http-ingest.ts does not export runHttpBench' };
  return child(progress, 'HTTP bench (bench/http-ingest.js, walk)', 'http-ingest.js', [String(endMs)]);
}

function isHttpShape(result: unknown): result is HttpBenchShape {
  return typeof result === 'object' && result !== null && Array.isArray((result as { ingest?: unknown }).ingest);
}

function httpText(result: unknown, engineWalkPps: number | undefined): string {
  if (typeof result === 'object' && result !== null && typeof (result as { skipped?: unknown }).skipped === 'string') {
    return `HTTP bench skipped: ${(result as { skipped: string }).skipped}`;
  }
  if (!isHttpShape(result)) return `HTTP bench\n${JSON.stringify(result, null, 2)}`;
  const rows = result.ingest.map((r) => [
    r.format,
    r.pointsPerSecondRuns === undefined ? rate(r.pointsPerSecond) : `${rate(r.pointsPerSecond)} (${rate(Math.min(...r.pointsPerSecondRuns))}–${rate(Math.max(...r.pointsPerSecondRuns))})`,
    engineWalkPps === undefined ? 'n/a' : `${(r.pointsPerSecond / engineWalkPps).toFixed(2)}x`,
    (r.bodyBytes / 2 ** 20).toFixed(0),
    r.seconds.toFixed(2),
  ]);
  const plot = result.plot288 === undefined ? [] : [`plot 24h MIN5 over HTTP: p50 ${result.plot288.p50Ms.toFixed(3)} ms, p99 ${result.plot288.p99Ms.toFixed(3)} ms, ${result.plot288.values} values`];
  const mark = (ok: boolean): string => (ok ? '✓' : '✗');
  for (const r of result.ingest) {
    const target = HTTP_INGEST_TARGET_PPS[r.format];
    if (target !== undefined) plot.push(`  ${mark(r.pointsPerSecond >= target)} ${r.format} ingest >= ${rate(target)} points/s (median): ${rate(r.pointsPerSecond)}`);
  }
  if (result.plot288 !== undefined) plot.push(`  ${mark(result.plot288.p50Ms < HTTP_PLOT_P50_TARGET_MS)} 288-point plot p50 < ${HTTP_PLOT_P50_TARGET_MS} ms: ${result.plot288.p50Ms.toFixed(3)} ms`);
  return ['HTTP bench (bench/http-ingest.ts; its targets are issue 3\'s)', renderTable(['format', 'points/s, median (min–max) of runs', 'of embedded walk', 'body MiB', 'seconds'], rows), ...plot].join('\n');
}

/** The suite that floods `strata serve` (about 75 s a run); selectable alone: `npm run bench -- overload`. */
const OVERLOAD_SUITE = 'overload';

/**
 * What argv asks for: value kinds (default all), and whether the overload, checks, agents and
 * protocols suites run (default yes; with names, only if named). The console charts suite runs
 * only when named (`npm run bench -- console`): it needs chromium, which plain `npm run bench` does not;
 * so does the ClickHouse suite (`npm run bench -- clickhouse [--ch-series N]`): it needs clickhouse-server.
 */
function selection(): {
  kinds: ValueKind[];
  overload: boolean;
  checks: boolean;
  agents: boolean;
  protocols: boolean;
  consoleCharts: boolean;
  clickhouse: boolean;
  baseCli: string | undefined;
} {
  const args = process.argv.slice(2);
  const baseAt = args.indexOf('--base');
  const baseCli = baseAt >= 0 ? args[baseAt + 1] : undefined;
  // The checks suite's own flags (--checks N, --steps, --duration S, --alarms) are not suite names.
  const checksFlags = checksSuiteFlags(args);
  // The agents suite's flags (--agents N, --agent-steps, --agent-hold S) likewise.
  const agentsFlags = agentsSuiteFlags(args);
  // The ClickHouse suite's flag (--ch-series N) likewise.
  const clickhouseFlags = clickhouseSuiteFlags(args);
  const asked = args.filter((a, i) => a !== '--base' && (baseAt < 0 || i !== baseAt + 1) && !checksFlags.has(i) && !agentsFlags.has(i) && !clickhouseFlags.has(i));
  const suites = [OVERLOAD_SUITE, CHECKS_SUITE, AGENTS_SUITE, PROTOCOLS_SUITE, CONSOLE_CHARTS_SUITE, CLICKHOUSE_SUITE];
  const unknown = asked.filter((k) => !suites.includes(k) && !VALUE_KINDS.includes(k as ValueKind));
  if (unknown.length > 0) throw new Error(`unknown suites: ${unknown.join(', ')} (known: ${[...VALUE_KINDS, ...suites].join(', ')})`);
  if (asked.length === 0) return { kinds: [...VALUE_KINDS], overload: true, checks: true, agents: true, protocols: true, consoleCharts: false, clickhouse: false, baseCli };
  return {
    kinds: asked.filter((k) => !suites.includes(k)) as ValueKind[],
    overload: asked.includes(OVERLOAD_SUITE),
    checks: asked.includes(CHECKS_SUITE),
    agents: asked.includes(AGENTS_SUITE),
    protocols: asked.includes(PROTOCOLS_SUITE),
    consoleCharts: asked.includes(CONSOLE_CHARTS_SUITE),
    clickhouse: asked.includes(CLICKHOUSE_SUITE),
    baseCli,
  };
}

async function main(): Promise<void> {
  const { kinds, overload, checks, agents, protocols, consoleCharts, clickhouse, baseCli } = selection();
  if (kinds.length > 0) await runEngineSuites(kinds);
  if (overload) await runOverloadSuite(baseCli);
  if (checks) await runChecksSuite(checksSuiteOptions(process.argv.slice(2)), machine('n/a (not measured by this suite)'));
  if (agents) await runAgentsSuite(agentsSuiteOptions(process.argv.slice(2)), machine('n/a (not measured by this suite)'));
  if (protocols) await runProtocolsSuite(machine('n/a (not measured by this suite)'));
  if (consoleCharts) await runConsoleChartsSuite(machine('n/a (not measured by this suite)'));
  if (clickhouse) await runClickHouseSuite(clickhouseSuiteOptions(process.argv.slice(2)), machine('see machine.sqlite'));
}

/**
 * The overload suite in its own process per run (bench/overload.ts): this build, and first the
 * build at `--base <dist/src/cli/main.js>` when given; prints a table, writes bench/results/overload.json.
 */
async function runOverloadSuite(baseCli: string | undefined): Promise<void> {
  const started = performance.now();
  const progress = createProgress(baseCli === undefined ? 1 : 2);
  const runs: OverloadRun[] = [];
  if (baseCli !== undefined) runs.push(await child(progress, `overload: the build at ${baseCli}`, 'overload.js', ['--cli', baseCli, '--label', 'before']));
  runs.push(await child(progress, 'overload: this build', 'overload.js', ['--label', baseCli === undefined ? 'this build' : 'after']));
  progress.stop();
  const { header, rows, verdicts } = overloadRows(runs);
  console.log('');
  console.log(`Overload (issue 10): ${overloadDescription()}`);
  console.log(renderTable(header, rows));
  console.log(verdicts.join('\n'));
  const durationSeconds = (performance.now() - started) / 1000;
  mkdirSync(dirname(OVERLOAD_RESULTS_FILE), { recursive: true });
  const results = { date: new Date().toISOString(), durationSeconds, machine: machine('n/a (not measured by this suite)'), description: overloadDescription(), runs };
  writeFileSync(OVERLOAD_RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${OVERLOAD_RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}

function readIssue14Baseline(): Issue14Baseline {
  return parseBaseline(JSON.parse(readFileSync(ISSUE14_BASELINE_FILE, 'utf8')));
}

async function runEngineSuites(kinds: ValueKind[]): Promise<void> {
  const started = performance.now();
  // Read first: a missing or damaged baseline fails the bench before its minutes of runs.
  const baseline = readIssue14Baseline();
  const endMs = Date.now();
  const t0Ms = chooseT0Ms(endMs, STANDARD_POINTS, STANDARD_INTERVAL_MS);
  const httpPresent = existsSync(HTTP_BENCH_MODULE);
  const steps = kinds.reduce((sum, kind) => sum + rowFloorRuns(kind) + BLOB_FLOOR_RUNS + ENGINE_RUNS + 1, 0);
  console.log(
    `Workload: ${STANDARD_SERIES} series x ${STANDARD_POINTS} points = ${(STANDARD_SERIES * STANDARD_POINTS).toLocaleString('en-US')} points at ` +
      `${STANDARD_INTERVAL_MS / 1000} s, time-major, batches of ${BATCH_POINTS}, seed ${STANDARD_SEED}, t0 ${new Date(t0Ms).toISOString()} (${t0Ms})`,
  );
  const progress = createProgress(steps + (httpPresent ? 1 : 0));
  const runs: KindRuns[] = [];
  for (const kind of kinds) runs.push(await runKind(progress, kind, endMs));
  const http = await runHttp(progress, endMs);
  progress.stop();
  const summaries = runs.map(summariseKind);
  const checks = summaries.flatMap((s) => checkTargets(s, baseline));
  const issue14 = summaries.map((s) => issue14Figures(s, baseline));
  const runsNote =
    `engine ${ENGINE_RUNS} runs, blob floor ${BLOB_FLOOR_RUNS}, row floor ${ROW_FLOOR_RUNS} per kind (for ${ROW_FLOOR_KINDS.join(', ')}), ` +
    'each in its own process';
  console.log('');
  for (const s of summaries) console.log(`${s.kind}: ${s.description}`);
  console.log('');
  console.log(renderReport(summaries, checks, runsNote, issue14));
  console.log('');
  console.log(httpText(http, summaries.find((s) => s.kind === 'walk')?.enginePps.median));
  const durationSeconds = (performance.now() - started) / 1000;
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const results = {
    date: new Date().toISOString(),
    durationSeconds,
    machine: machine(runs[0]?.blobFloor[0]?.sqliteVersion ?? 'unknown'),
    workload: {
      series: STANDARD_SERIES,
      points: STANDARD_POINTS,
      intervalMs: STANDARD_INTERVAL_MS,
      seed: STANDARD_SEED,
      batchPoints: BATCH_POINTS,
      order: 'time-major',
      endMs,
      t0Ms,
      t0: new Date(t0Ms).toISOString(),
      kinds: Object.fromEntries(summaries.map((s) => [s.kind, s.description])),
    },
    methodology: {
      runs: runsNote,
      engine: 'openStore({dir: fresh temp dir, workers: 1}), background maintenance on, real clock; await store.write(batch) sequentially; then flush(); then queries; then close() and du',
      queries: `${TIMED_QUERIES} sequential after ${WARMUP_QUERIES} warm-ups, random seeded series`,
      bytes: 'sum of st_blocks*512 (du --block-size=1) after close(), divided by raw points',
      rss: 'process.resourceUsage().maxRSS of each measurement process',
      encodings: 'after the bytes: every row of every partition file decoded read-only (chunkEncodingOf for FULL, bucketEncodingOf for rollups), rows and bytes counted per encoding; summaries pool the timed runs',
      issue14: `FULL B/pt against VictoriaMetrics (lossy); seal and rollup pts/s against the medians in bench/baselines/issue14-before.json (run of ${baseline.date})`,
    },
    summaries,
    issue14,
    targets: checks,
    http,
    runs,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}

await main();
