// Owns the overload bench: `strata serve` in a child process flooded by 200 ingest clients (20,000-point batches) and 60 plot clients from separate load processes; measures shedding, latency and RSS.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitResult, reportProgress } from './child-io.js';
import { percentile } from './latency.js';
import { BATCH_POINTS, CLIENT_TIMEOUT_MS, type LoadResult, type LoadSpec, type LoadUser } from './overload-load.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The CLI of this build (dist/bench/overload.js → dist/src/cli/main.js). */
const OWN_CLI = join(HERE, '..', 'src', 'cli', 'main.js');
const LOAD_SCRIPT = join(HERE, 'overload-load.js');

/** The flood: 200 ingest clients, 60 plot clients, 45 s. */
const INGEST_CLIENTS = 200;
const PLOT_CLIENTS = 60;
const RUN_SECONDS = 45;
/** Ingest load processes: two keep one process' event loop from being the bottleneck, without crowding the 2 cores. */
const INGEST_PROCESSES = 2;
/** Tenants the clients are spread over (ingest and plots alike). */
const TENANTS = 4;
/** Series per tenant with 24 h of history for the plots (288 five-minute values each). */
const PLOT_SERIES = 8;
const HISTORY_POINTS = 2_880;
const HISTORY_INTERVAL_MS = 30_000;
/** Time for the server to seal and roll up the seeded history before the flood. */
const SETTLE_MS = 5_000;
/** RSS is sampled this often. */
const RSS_SAMPLE_MS = 250;
/** Targets of issue 10. */
const PLOT_P99_MS_MAX = 1_000;
const RSS_MIB_MAX = 768;

/** How one kind of client fared. */
export interface ClientOutcome {
  readonly clients: number;
  readonly requests: number;
  readonly ok: number;
  readonly shed: number;
  readonly timeouts: number;
  readonly errors: Record<string, number>;
  readonly otherStatus: Record<string, number>;
  readonly retryAfter: Record<string, number>;
  readonly okP50Ms: number;
  readonly okP99Ms: number;
  readonly okMaxMs: number;
  readonly shedP50Ms: number;
  readonly shedP99Ms: number;
  readonly pointsPerSecond: number;
  /** [s into the run it started, ms] of answers slower than SLOW_ANSWER_MS, by start. */
  readonly slow: [number, number][];
}

/** One overload run against one build's `strata serve`. */
export interface OverloadRun {
  readonly label: string;
  readonly cli: string;
  readonly serveArgs: readonly string[];
  readonly seconds: number;
  readonly batchPoints: number;
  readonly batchBytes: number;
  readonly ingest: ClientOutcome;
  readonly plot: ClientOutcome;
  readonly server: {
    readonly rssStartMiB: number;
    readonly rssMaxMiB: number;
    readonly vmHwmMiB: number;
    readonly rssEverySecondMiB: number[];
    /** [s into the run, head points before, after] where the head shrank by half or more: the store sealed. */
    readonly headDrops: [number, number, number][];
  };
  /** strata_admission_*, points ingested and request-duration sums of /metrics at the end. */
  readonly scrape: Record<string, number>;
  readonly targets: { readonly name: string; readonly ok: boolean; readonly value: string }[];
}

function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function lines(child: ChildProcess): AsyncIterable<string> {
  return createInterface({ input: child.stdout! });
}

async function startServe(cli: string, dir: string, serveArgs: readonly string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dir, '--log-level', 'warn', ...serveArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  for await (const line of lines(child)) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match?.[1]) return { child, url: match[1], stderr: () => stderr };
  }
  throw new Error(`strata serve exited before listening:\n${stderr}`);
}

async function tokenOf(url: string, user: LoadUser): Promise<string> {
  const response = await fetch(`${url}/v2.0/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user.username, apiKey: user.apiKey } } }),
  });
  return ((await response.json()) as { access: { token: { id: string } } }).access.token.id;
}

/** 24 h of history at 30 s for each plotted series of each tenant. */
async function seedHistory(url: string, users: readonly LoadUser[], plotMetrics: readonly string[]): Promise<void> {
  const endMs = Date.now() - 2 * 60_000;
  for (const user of users) {
    const metrics = [];
    for (const name of plotMetrics) {
      for (let k = 0; k < HISTORY_POINTS; k++) {
        metrics.push({ metricName: name, metricValue: 50 + Math.sin(k / 40) * 20, collectionTime: endMs - (HISTORY_POINTS - k) * HISTORY_INTERVAL_MS, ttlInSeconds: 172_800 });
      }
    }
    const response = await fetch(`${url}/ingest/v2.0/${user.tenant}/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': await tokenOf(url, user) },
      body: JSON.stringify(metrics),
    });
    if (response.status !== 200) throw new Error(`seeding ${user.tenant}: HTTP ${response.status} ${await response.text()}`);
  }
}

interface LoadChild {
  readonly ready: Promise<void>;
  readonly result: Promise<LoadResult>;
  go(): void;
}

function startLoad(spec: LoadSpec): LoadChild {
  const child = spawn(process.execPath, [LOAD_SCRIPT, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const result = (async () => {
    for await (const line of lines(child)) {
      if (line === 'ready') markReady();
      else if (line.startsWith('{')) return JSON.parse(line) as LoadResult;
    }
    throw new Error(`a ${spec.role} load process printed no result`);
  })();
  return { ready, result, go: () => child.stdin?.write('go\n') };
}

function outcomeOf(results: readonly LoadResult[], seconds: number): ClientOutcome {
  const merge = (pick: (r: LoadResult) => Record<string, number>): Record<string, number> => {
    const merged: Record<string, number> = {};
    for (const r of results) for (const [key, count] of Object.entries(pick(r))) merged[key] = (merged[key] ?? 0) + count;
    return merged;
  };
  const okMs = results.flatMap((r) => r.okMs).sort((a, b) => a - b);
  const shedMs = results.flatMap((r) => r.shedMs).sort((a, b) => a - b);
  const sum = (pick: (r: LoadResult) => number): number => results.reduce((total, r) => total + pick(r), 0);
  const errors = merge((r) => r.errors);
  const otherStatus = merge((r) => r.otherStatus);
  const counted = sum((r) => r.ok + r.shed + r.timeouts) + Object.values(errors).reduce((a, b) => a + b, 0) + Object.values(otherStatus).reduce((a, b) => a + b, 0);
  return {
    clients: sum((r) => r.clients),
    requests: counted,
    ok: sum((r) => r.ok),
    shed: sum((r) => r.shed),
    timeouts: sum((r) => r.timeouts),
    errors,
    otherStatus,
    retryAfter: merge((r) => r.retryAfter),
    okP50Ms: percentile(okMs, 0.5),
    okP99Ms: percentile(okMs, 0.99),
    okMaxMs: okMs[okMs.length - 1] ?? NaN,
    shedP50Ms: percentile(shedMs, 0.5),
    shedP99Ms: percentile(shedMs, 0.99),
    pointsPerSecond: sum((r) => r.pointsAccepted) / seconds,
    slow: results.flatMap((r) => r.slow).sort((a, b) => a[0] - b[0]),
  };
}

/** The admission, ingest and latency-sum lines of a /metrics scrape, as name{labels} → value. */
async function scrapeOf(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const picked: Record<string, number> = {};
  for (const line of text.split('\n')) {
    // Not the event-loop lag: prom-client resets it at every scrape (the head watcher's too).
    if (!/^strata_(admission_|points_ingested_total|http_request_duration_seconds_(sum|count)\{[^}]*status="(200|503)")/.test(line)) continue;
    const space = line.lastIndexOf(' ');
    picked[line.slice(0, space)] = Number(line.slice(space + 1));
  }
  return picked;
}

/** Polls strata_head_points about once a second (one keep-alive connection) and notes where it fell by half or more. */
function watchHead(url: string, startedMs: number): { stop(): Promise<[number, number, number][]> } {
  const drops: [number, number, number][] = [];
  let running = true;
  const loop = (async () => {
    let last = 0;
    while (running) {
      const text = await (await fetch(`${url}/metrics`)).text();
      const head = Number(/^strata_head_points (\d+)/m.exec(text)?.[1] ?? NaN);
      if (head <= last / 2) drops.push([Math.round((performance.now() - startedMs) / 100) / 10, last, head]);
      last = head;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return drops;
    },
  };
}

async function stopServe(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the flood against `cli` (a built `dist/src/cli/main.js`) and returns what it measured. */
export async function runOverload(options: { cli?: string; label?: string; seconds?: number; serveArgs?: readonly string[] } = {}): Promise<OverloadRun> {
  const cli = options.cli ?? OWN_CLI;
  const label = options.label ?? 'this build';
  const seconds = options.seconds ?? RUN_SECONDS;
  const serveArgs = options.serveArgs ?? [];
  const phase = `overload (${label})`;
  const dir = mkdtempSync(join(tmpdir(), 'strata-overload-'));
  const users: LoadUser[] = Array.from({ length: TENANTS }, (_, k) => ({ username: `load${k}`, apiKey: `overload-bench-key-${k}-0123456789`, tenant: `load${k}` }));
  for (const user of users) {
    execFileSync(process.execPath, [cli, 'user', 'create', '--data', dir, '--username', user.username, '--tenant', user.tenant, '--api-key', user.apiKey, '--role', 'admin'], { stdio: 'ignore' });
  }
  const plotMetrics = Array.from({ length: PLOT_SERIES }, (_, s) => `plot.s${s}`);
  reportProgress(`${phase}: starting the server and seeding 24 h of plot history`, 0, seconds);
  const serve = await startServe(cli, dir, serveArgs);
  const pid = serve.child.pid as number;
  try {
    await seedHistory(serve.url, users, plotMetrics);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rssStartMiB = statusMiB(pid, 'VmRSS');
    const perProcess = INGEST_CLIENTS / INGEST_PROCESSES;
    const base = { url: serve.url, users, durationMs: seconds * 1000, plotMetrics };
    const loads = [
      ...Array.from({ length: INGEST_PROCESSES }, (_, p) => startLoad({ ...base, role: 'ingest', clients: perProcess, firstClient: p * perProcess })),
      startLoad({ ...base, role: 'plot', clients: PLOT_CLIENTS, firstClient: 0 }),
    ];
    await Promise.all(loads.map((l) => l.ready));
    let rssMaxMiB = rssStartMiB;
    const rssEverySecondMiB: number[] = [];
    let samples = 0;
    const sampler = setInterval(() => {
      const rss = statusMiB(pid, 'VmRSS');
      rssMaxMiB = Math.max(rssMaxMiB, rss);
      if (++samples % Math.round(1000 / RSS_SAMPLE_MS) === 0) {
        rssEverySecondMiB.push(Math.round(rss));
        reportProgress(`${phase}: flood`, Math.min(rssEverySecondMiB.length, seconds), seconds);
      }
    }, RSS_SAMPLE_MS);
    for (const l of loads) l.go();
    const flooded = performance.now();
    const heads = watchHead(serve.url, flooded);
    const results = await Promise.all(loads.map((l) => l.result));
    clearInterval(sampler);
    const headDrops = await heads.stop();
    const vmHwmMiB = statusMiB(pid, 'VmHWM');
    const scrape = await scrapeOf(serve.url);
    const ingest = outcomeOf(results.filter((r) => r.role === 'ingest'), seconds);
    const plot = outcomeOf(results.filter((r) => r.role === 'plot'), seconds);
    const peakMiB = Math.max(rssMaxMiB, Number.isNaN(vmHwmMiB) ? 0 : vmHwmMiB);
    const targets = [
      { name: 'no client timeouts (30 s)', ok: ingest.timeouts + plot.timeouts === 0, value: `${ingest.timeouts} ingest, ${plot.timeouts} plot` },
      { name: 'some 503s', ok: ingest.shed + plot.shed > 0, value: `${ingest.shed} ingest, ${plot.shed} plot` },
      { name: `accepted plot p99 < ${PLOT_P99_MS_MAX} ms`, ok: plot.okP99Ms < PLOT_P99_MS_MAX, value: `${plot.okP99Ms.toFixed(0)} ms` },
      { name: `server RSS < ${RSS_MIB_MAX} MiB`, ok: peakMiB < RSS_MIB_MAX, value: `${peakMiB.toFixed(0)} MiB` },
    ];
    reportProgress(`${phase}: flood`, seconds, seconds);
    return {
      label,
      cli,
      serveArgs,
      seconds,
      batchPoints: BATCH_POINTS,
      batchBytes: Math.round(results.filter((r) => r.role === 'ingest').reduce((sum, r) => sum + r.bodyBytes, 0) / Math.max(1, ingest.ok)),
      ingest,
      plot,
      server: { rssStartMiB, rssMaxMiB, vmHwmMiB, rssEverySecondMiB, headDrops },
      scrape,
      targets,
    };
  } finally {
    await stopServe(serve.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Describes the workload in one line. */
export function overloadDescription(seconds = RUN_SECONDS): string {
  return (
    `${INGEST_CLIENTS} ingest clients (${INGEST_PROCESSES} processes, ${BATCH_POINTS.toLocaleString('en-US')}-point JSON batches, new timestamps each) and ` +
    `${PLOT_CLIENTS} plot clients (24 h at MIN5, ${TENANTS} tenants) for ${seconds} s against strata serve with default limits; ` +
    `client timeout ${CLIENT_TIMEOUT_MS / 1000} s; a 503 waits Retry-After (+ up to 25% jitter) and retries`
  );
}

function argOf(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** argv: [--cli PATH] [--label TEXT] [--seconds N] [--serve-args "flags..."]. */
async function main(): Promise<void> {
  const serveArgs = argOf('--serve-args')?.split(/\s+/).filter((a) => a !== '') ?? [];
  const seconds = argOf('--seconds');
  const cli = argOf('--cli');
  const label = argOf('--label');
  emitResult(await runOverload({ serveArgs, ...(cli !== undefined ? { cli } : {}), ...(label !== undefined ? { label } : {}), ...(seconds !== undefined ? { seconds: Number(seconds) } : {}) }));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
