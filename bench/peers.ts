// Owns `npm run bench:peers`: Strata beside VictoriaMetrics and InfluxDB in one run on the same workload; prints a table per kind with Strata's ratios to VM, writes bench/results/peers.json.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { machineInfo } from './machine.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { BATCH_POINTS, STANDARD_INTERVAL_MS, STANDARD_POINTS, STANDARD_SEED, STANDARD_SERIES, VALUE_KINDS, type ValueKind } from '../src/workload/standard-workload.js';
import { TIMED_QUERIES, WARMUP_QUERIES } from './latency.js';
import { ensurePeerBinaries, INFLUXDB, VICTORIA_METRICS, type PeerBinary, type PeerVersion } from './peers-install.js';
import { INGEST_CLIENTS, measureRun, type PeerRun } from './peers-measure.js';
import { renderKind, strataRatios, summariseSystems, SYSTEM_LABELS } from './peers-report.js';
import { PEER_SYSTEMS, type PeerSystemName } from './peers-system.js';
import { createProgress } from './progress.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'peers.json');
const BUILT_CLI = join(HERE, '..', 'src', 'cli', 'main.js');
/** Kinds measured unless --kinds says otherwise: the standard walk and the recorded NAB values. */
const DEFAULT_KINDS: readonly ValueKind[] = ['walk', 'nab'];
/** Most runs per kind and system --runs accepts (each run of every system takes about a minute here). */
const RUNS_MAX = 20;

interface Selection {
  readonly kinds: ValueKind[];
  readonly runs: number;
  readonly systems: PeerSystemName[];
}

function listOf<T extends string>(known: readonly T[], what: string): (text: string) => T[] {
  return (text) => {
    const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const unknown = items.filter((s) => !known.includes(s as T));
    if (unknown.length > 0 || items.length === 0) throw new Error(`--${what}: unknown ${unknown.join(', ') || '(empty)'}; known: ${known.join(', ')}`);
    return items as T[];
  };
}

function selection(argv: readonly string[]): Selection {
  const program = new Command('peers')
    .description('Strata beside VictoriaMetrics and InfluxDB on the standard workload, in one run on this machine')
    .addOption(new Option('--kinds <kinds>', `value kinds, comma-separated (${VALUE_KINDS.join(', ')})`).argParser(listOf(VALUE_KINDS, 'kinds')).default([...DEFAULT_KINDS]))
    .addOption(
      new Option('--runs <n>', 'runs per kind and system (median and min–max when more than one)')
        .argParser((text) => {
          const n = Number(text);
          if (!Number.isSafeInteger(n) || n < 1 || n > RUNS_MAX) throw new Error(`--runs must be an integer from 1 to ${RUNS_MAX}`);
          return n;
        })
        .default(1),
    )
    .addOption(new Option('--systems <systems>', `systems, comma-separated (${PEER_SYSTEMS.join(', ')})`).argParser(listOf(PEER_SYSTEMS, 'systems')).default([...PEER_SYSTEMS]));
  program.parse([...argv], { from: 'user' });
  const options = program.opts<Selection>();
  // Keep the bench's own order whatever order the flags named them in.
  return { kinds: VALUE_KINDS.filter((k) => options.kinds.includes(k)), runs: options.runs, systems: PEER_SYSTEMS.filter((s) => options.systems.includes(s)) };
}

function peerVersions(systems: readonly PeerSystemName[], log: (line: string) => void): PeerVersion[] {
  const binaries: PeerBinary[] = [];
  if (systems.includes('vm')) binaries.push(VICTORIA_METRICS);
  if (systems.includes('influx')) binaries.push(INFLUXDB);
  return ensurePeerBinaries(binaries, log);
}

/** Runs every selected system `runs` times per kind, interleaved (kind, run, system) so a slow spell of the machine hits every system. */
async function measureAll(sel: Selection): Promise<PeerRun[]> {
  const progress = createProgress(sel.kinds.length * sel.runs * sel.systems.length);
  const runs: PeerRun[] = [];
  try {
    for (const kind of sel.kinds) {
      for (let run = 1; run <= sel.runs; run++) {
        for (const system of sel.systems) {
          progress.step(`${kind} run ${run}/${sel.runs}: ${SYSTEM_LABELS[system]}`);
          runs.push(await measureRun(system, kind, run, (phase, done, total) => progress.phase({ type: 'progress', phase, done, total })));
        }
      }
    }
  } finally {
    progress.stop();
  }
  return runs;
}

/** The exact start command of each system (and InfluxDB's config), from its first run. */
function commands(runs: readonly PeerRun[]): Record<string, { command: string; config?: string }> {
  const out: Record<string, { command: string; config?: string }> = {};
  for (const r of runs) out[r.system] ??= { command: r.command, ...(r.config !== undefined ? { config: r.config } : {}) };
  return out;
}

const METHODOLOGY = {
  workload: `${STANDARD_SERIES} series x ${STANDARD_POINTS} points at ${STANDARD_INTERVAL_MS / 1000} s, seed ${STANDARD_SEED}, time-major, last point 2-7 min before the run started; a fresh workload (same values) per run`,
  ingest: `${BATCH_POINTS}-point batches encoded before the clock (Strata: bench/http-ingest.ts encodeBatches; peers: src/replay/peer-formats.ts, as strata replay --convert), ${INGEST_CLIENTS} keep-alive clients in flight, from the first send until every point is readable`,
  readable:
    'VictoriaMetrics: after the last ack, GET /internal/force_flush, then sum(count_over_time(...)) with nocache=1 every 200 ms until 2,880,000 (inside the clock); InfluxDB (every point) and Strata (20 sampled series) answer writes once readable: the clock stops at the last ack when the first count after it is complete, else runs until a poll is',
  settle:
    'VictoriaMetrics: force_flush every 2 s until du is stable for 10 s; InfluxDB: at least 45 s after the last ack and du stable for 10 s; Strata: head and rollup queue stable for 3 s on /metrics (windows still within their 5 min grace stay in the head)',
  plot: `${WARMUP_QUERIES} untimed warm-ups then ${TIMED_QUERIES} sequential queries of a seeded random series (seed 7), last 24 h of the data, 288 five-minute buckets of mean, min and max in one HTTP request, client-side incl. JSON parsing, keep-alive`,
  readBack: '9 seeded series (seed 9), every raw point compared with Object.is against what was sent; 12 h per request',
  rss: 'VmHWM of /proc/PID/status of the server process after the read-back',
  bytes:
    'du --block-size=1 (st_blocks*512) of the whole data dir after settling / points; Strata: after SIGTERM (graceful) and then an offline flush() (seal + rollups of the windows still in the WAL, as the server does once their grace passes); FULL = partitions/FULL alone',
};

function printSetup(versions: readonly PeerVersion[], runs: readonly PeerRun[]): void {
  console.log('Peers:');
  for (const v of versions) console.log(`  ${v.binary} ${v.path}: package ${v.packageVersion}; version output: ${v.versionOutput === '' ? '(empty)' : v.versionOutput}`);
  for (const [system, c] of Object.entries(commands(runs))) {
    console.log(`  ${system}: ${c.command}`);
    if (c.config !== undefined) console.log(c.config.replace(/^/gm, '      ').trimEnd());
  }
}

async function main(): Promise<void> {
  const sel = selection(process.argv.slice(2));
  const started = performance.now();
  const date = new Date().toISOString();
  const host = machineInfo();
  if (sel.systems.some((s) => s.startsWith('strata')) && !existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run npm run build first`);
  const versions = peerVersions(sel.systems, (line) => console.log(line));
  console.log(`Peer bench: ${sel.systems.join(', ')} on ${sel.kinds.join(', ')}, ${sel.runs} run(s) each; noisy if anything else runs on this ${host.cores as number}-core machine`);
  const runs = await measureAll(sel);
  console.log('');
  printSetup(versions, runs);
  const byKind = sel.kinds.map((kind) => ({ kind, runs: runs.filter((r) => r.kind === kind) }));
  for (const { kind, runs: mine } of byKind) console.log(`\n${renderKind(kind, mine[0]?.description ?? kind, mine)}`);
  const durationSeconds = (performance.now() - started) / 1000;
  const results = {
    date,
    durationSeconds,
    machine: { ...host, loadAverageAtEnd: loadavg() },
    versions,
    selection: sel,
    methodology: METHODOLOGY,
    commands: commands(runs),
    kinds: byKind.map(({ kind, runs: mine }) => ({ kind, description: mine[0]?.description, summaries: summariseSystems(mine), ratiosToVm: strataRatios(mine) })),
    runs,
  };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}

await main();
