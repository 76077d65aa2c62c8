// Owns one run of the agents bench (issue 12): `strata serve` with three agent endpoints, agents with six checks each simulated by two fleet processes and ramped in steps, each step held a period; then the same fleet against a bare TLS floor; prints the result as JSON.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AGENT_CONNECTIONS_MAX } from '../src/agent/agent-limits.js';
import { emitResult, reportProgress } from './child-io.js';
import { AGENTS_PER_TOKEN, connectionsOf, createAgentEntities, createTokens, openFilesLimit, processSample, startServer, stopProcess, type BenchServer } from './agents-setup.js';
import { AGENT_CHECK_PERIOD_S, AGENT_ZONES, BENCH_CHECKS, type FleetCommand, type FleetConfig, type GrowReport, type WindowReport } from './agents-workload.js';
import { percentile } from './latency.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The CLI of this build (dist/bench/agents.js → dist/src/cli/main.js). */
const OWN_CLI = join(HERE, '..', 'src', 'cli', 'main.js');
const FLEET_SCRIPT = join(HERE, 'agents-fleet.js');
const FLOOR_SCRIPT = join(HERE, 'agents-floor.js');
/** Fleet processes: two keep the simulated side from being one saturated event loop, without crowding the 2 cores. */
const FLEETS = 2;
/** Agents each fleet starts per second, and how many it has connecting at once (3 connections each, well under the endpoint's pending-handshake limit). */
const CONNECT_PER_SECOND = 150;
const CONNECT_CONCURRENCY = 32;
/** Agents whose connections are read back from the API after each step. */
const CONNECTION_SAMPLE = 20;
/** A step holds when its heartbeat RTT p99 is below this, */
export const HEARTBEAT_P99_MS_MAX = 1_000;
/** its check_metrics.post RTT p99 below this, */
export const POST_P99_MS_MAX = 2_000;
/** at least this share of the posts due in the hold completed, every agent connected, none disconnected, and the API lists every sampled agent's connections. */
export const POSTS_COMPLETED_MIN = 0.99;
/** Metrics per post, on average over the six checks. */
const METRICS_PER_POST = BENCH_CHECKS.reduce((n, c) => n + c.metrics.length, 0) / BENCH_CHECKS.length;

/** What one step (or the floor) measured. */
export interface AgentsStep {
  readonly agents: number;
  readonly connected: number;
  readonly connections: number;
  readonly failed: number;
  readonly failures: Record<string, number>;
  readonly connectSeconds: number;
  readonly tlsP99Ms: number;
  readonly helloP50Ms: number;
  readonly helloP99Ms: number;
  readonly scheduleP99Ms: number;
  readonly heartbeats: number;
  readonly heartbeatsOk: number;
  readonly heartbeatP50Ms: number;
  readonly heartbeatP99Ms: number;
  readonly postsExpected: number;
  readonly postsOk: number;
  readonly postP50Ms: number;
  readonly postP99Ms: number;
  readonly pointsPerSecond: number;
  readonly errors: Record<string, number>;
  readonly disconnects: number;
  readonly serverCpuPercent: number;
  readonly serverRssMiB: number;
  readonly serverRssMaxMiB: number;
  readonly fleetCpuPerSecond: number[];
  readonly fleetLoopDelayP99Ms: number;
  readonly fleetTimerLateP99Ms: number;
  /** Sampled agents and how many of them the API lists with one connection per zone (null for the floor). */
  readonly sampled: number | null;
  readonly sampledComplete: number | null;
  readonly pass: boolean;
  readonly reasons: string[];
}

/** The whole run. */
export interface AgentsRun {
  readonly holdSeconds: number;
  readonly setupSeconds: number;
  readonly openFilesLimit: number;
  readonly connectionsMax: number;
  readonly steps: AgentsStep[];
  readonly floor: AgentsStep | null;
}

interface FleetHandle {
  readonly child: ChildProcess;
  readonly first: number;
  ask<T>(command: FleetCommand): Promise<T>;
}

function startFleets(config: Omit<FleetConfig, 'first'>, maxAgents: number): FleetHandle[] {
  const share = Math.ceil(maxAgents / FLEETS);
  return Array.from({ length: FLEETS }, (_, k) => {
    const first = k * share;
    const child = fork(FLEET_SCRIPT, [JSON.stringify({ ...config, first })], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let waiting: { resolve: (value: never) => void; reject: (error: Error) => void } | undefined;
    child.on('message', (message: { type: string; message?: string }) => {
      const w = waiting;
      waiting = undefined;
      if (message.type === 'error') w?.reject(new Error(`fleet ${k}: ${message.message}`));
      else w?.resolve(message as never);
    });
    child.on('exit', (code) => waiting?.reject(new Error(`fleet ${k} exited (${code})`)));
    const ask = <T>(command: FleetCommand): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        waiting = { resolve: resolve as (value: never) => void, reject };
        child.send(command);
      });
    return { child, first, ask };
  });
}

async function stopFleets(fleets: readonly FleetHandle[]): Promise<void> {
  await Promise.all(
    fleets.map(async (fleet) => {
      if (fleet.child.exitCode !== null || fleet.child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => fleet.child.once('exit', () => resolve()));
      if (fleet.child.connected) fleet.child.send({ type: 'stop' } satisfies FleetCommand);
      const timer = setTimeout(() => fleet.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function merge(records: readonly Record<string, number>[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const record of records) for (const [key, n] of Object.entries(record)) merged[key] = (merged[key] ?? 0) + n;
  return merged;
}

/** The agents of each fleet at a step: the first fleet takes the odd one. */
function shares(agents: number): number[] {
  return Array.from({ length: FLEETS }, (_, k) => Math.floor(agents / FLEETS) + (k < agents % FLEETS ? 1 : 0));
}

/** Which of `agents` spread over the fleets the API is asked about: evenly spread over each fleet's share. */
function sampleIds(fleets: readonly FleetHandle[], agents: number): string[] {
  const each = shares(agents);
  return fleets.flatMap((fleet, k) => {
    const n = Math.min(each[k] as number, Math.ceil(CONNECTION_SAMPLE / FLEETS));
    return Array.from({ length: n }, (_, j) => `bench-${fleet.first + Math.floor((j * (each[k] as number)) / n)}.example`);
  });
}

interface StepContext {
  readonly label: string;
  readonly pid: number;
  readonly fleets: readonly FleetHandle[];
  readonly holdS: number;
  readonly server: BenchServer | undefined;
}

/** Grows the fleets to `agents`, holds them for the hold time measuring, and judges the step. */
async function runStep(ctx: StepContext, agents: number): Promise<AgentsStep> {
  const phase = `${ctx.label} ${agents.toLocaleString('en-US')} agents`;
  reportProgress(`${phase}: connecting`, 0, 1);
  const each = shares(agents);
  const grown = await Promise.all(ctx.fleets.map((fleet, k) => fleet.ask<GrowReport>({ type: 'grow', agents: each[k] as number })));
  const before = processSample(ctx.pid);
  const started = performance.now();
  let rssMaxMiB = before.rssMiB;
  let ticks = 0;
  const sampler = setInterval(() => {
    rssMaxMiB = Math.max(rssMaxMiB, processSample(ctx.pid).rssMiB);
    reportProgress(`${phase}: holding`, Math.min(++ticks, ctx.holdS), ctx.holdS);
  }, 1_000);
  const windows = await Promise.all(ctx.fleets.map((fleet) => fleet.ask<WindowReport>({ type: 'window', durationMs: ctx.holdS * 1000 })));
  clearInterval(sampler);
  const after = processSample(ctx.pid);
  const serverCpuPercent = ((after.cpuS - before.cpuS) / ((performance.now() - started) / 1000)) * 100;
  const sample = ctx.server === undefined ? [] : sampleIds(ctx.fleets, agents);
  const listed = await Promise.all(sample.map((id) => connectionsOf(ctx.server as BenchServer, id).catch(() => 0)));
  return judge(agents, grown, windows, { serverCpuPercent, serverRssMiB: after.rssMiB, serverRssMaxMiB: Math.max(rssMaxMiB, after.rssMiB) }, ctx.server === undefined ? null : listed);
}

function judge(agents: number, grown: readonly GrowReport[], windows: readonly WindowReport[], server: { serverCpuPercent: number; serverRssMiB: number; serverRssMaxMiB: number }, listed: readonly number[] | null): AgentsStep {
  const all = (pick: (w: WindowReport) => number[]): number[] => sorted(windows.flatMap(pick));
  const sum = (pick: (w: WindowReport) => number): number => windows.reduce((n, w) => n + pick(w), 0);
  const hello = sorted(grown.flatMap((g) => g.helloMs));
  const heartbeat = all((w) => w.heartbeatMs);
  const post = all((w) => w.postMs);
  const failed = grown.reduce((n, g) => n + g.failed, 0);
  const disconnects = sum((w) => w.disconnectsTotal);
  const postsExpected = sum((w) => w.postsExpected);
  const postsOk = sum((w) => w.postsOk);
  const step = {
    agents,
    connected: grown.reduce((n, g) => n + g.agents, 0),
    connections: sum((w) => w.connections),
    failed,
    failures: merge(grown.map((g) => g.failures)),
    connectSeconds: Math.max(...grown.map((g) => g.seconds)),
    tlsP99Ms: percentile(sorted(grown.flatMap((g) => g.tlsMs)), 0.99),
    helloP50Ms: percentile(hello, 0.5),
    helloP99Ms: percentile(hello, 0.99),
    scheduleP99Ms: percentile(sorted(grown.flatMap((g) => g.scheduleMs)), 0.99),
    heartbeats: sum((w) => w.heartbeats),
    heartbeatsOk: sum((w) => w.heartbeatsOk),
    heartbeatP50Ms: percentile(heartbeat, 0.5),
    heartbeatP99Ms: percentile(heartbeat, 0.99),
    postsExpected,
    postsOk,
    postP50Ms: percentile(post, 0.5),
    postP99Ms: percentile(post, 0.99),
    pointsPerSecond: (postsOk * METRICS_PER_POST) / (windows[0]?.seconds ?? 1),
    errors: merge(windows.map((w) => w.errors)),
    disconnects,
    ...server,
    fleetCpuPerSecond: windows.map((w) => w.cpuPerSecond),
    fleetLoopDelayP99Ms: Math.max(...windows.map((w) => w.loopDelayP99Ms)),
    fleetTimerLateP99Ms: Math.max(...windows.map((w) => w.timerLateP99Ms)),
    sampled: listed === null ? null : listed.length,
    sampledComplete: listed === null ? null : listed.filter((n) => n === AGENT_ZONES).length,
  };
  const reasons = [
    ...(failed > 0 ? [`${failed} agents failed to connect`] : []),
    ...(!(step.heartbeatP99Ms < HEARTBEAT_P99_MS_MAX) ? [`heartbeat p99 ${step.heartbeatP99Ms.toFixed(0)} ms`] : []),
    ...(!(step.postP99Ms < POST_P99_MS_MAX) ? [`post p99 ${step.postP99Ms.toFixed(0)} ms`] : []),
    ...(!(postsOk >= POSTS_COMPLETED_MIN * postsExpected) || postsExpected === 0 ? [`${postsOk} of ${postsExpected} posts completed`] : []),
    ...(disconnects > 0 ? [`${disconnects} disconnects`] : []),
    ...(step.sampled !== null && step.sampledComplete !== step.sampled ? [`the API lists ${AGENT_ZONES} connections for ${step.sampledComplete} of ${step.sampled} sampled agents`] : []),
  ];
  return { ...step, pass: reasons.length === 0, reasons };
}

async function startFloor(dir: string): Promise<{ child: ChildProcess; ports: number[] }> {
  const child = spawn(process.execPath, [FLOOR_SCRIPT, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /^ports ([\d,]+)$/.exec(line.trim());
    if (match?.[1]) return { child, ports: match[1].split(',').map(Number) };
  }
  throw new Error('the floor server exited before printing its ports');
}

/** Runs the steps (stopping at the first that does not hold), then the floor at the largest step run. */
export async function runAgents(steps: readonly number[], holdS: number): Promise<AgentsRun> {
  const setupStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'strata-agents-bench-'));
  const periodMs = AGENT_CHECK_PERIOD_S * 1000;
  const maxAgents = Math.max(...steps);
  const fleetBase = { periodMs, heartbeatMs: periodMs, connectPerSecond: CONNECT_PER_SECOND, connectConcurrency: CONNECT_CONCURRENCY, agentsPerToken: AGENTS_PER_TOKEN };
  let server: BenchServer | undefined;
  let floor: ChildProcess | undefined;
  let fleets: FleetHandle[] = [];
  try {
    reportProgress('agents: starting strata serve', 0, 1);
    server = await startServer(OWN_CLI, dir, periodMs);
    const tokens = await createTokens(server, maxAgents);
    await createAgentEntities(server, maxAgents);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const ca = readFileSync(join(dir, 'agent-ca', 'root.crt'), 'utf8');
    const pid = server.child.pid as number;
    const limit = openFilesLimit(pid);
    fleets = startFleets({ ...fleetBase, endpoints: server.endpoints, ca, tokens, mode: 'server' }, maxAgents);
    const results: AgentsStep[] = [];
    for (const agents of steps) {
      const step = await runStep({ label: 'strata serve,', pid, fleets, holdS, server }, agents);
      results.push(step);
      if (!step.pass) break;
    }
    await stopFleets(fleets);
    await stopProcess(server.child);
    const largest = results.at(-1)?.agents ?? maxAgents;
    const bare = await startFloor(dir);
    floor = bare.child;
    const endpoints = bare.ports.map((port) => ({ host: '127.0.0.1', port }));
    fleets = startFleets({ ...fleetBase, endpoints, ca, tokens: ['floor'], agentsPerToken: Number.MAX_SAFE_INTEGER, mode: 'floor' }, largest);
    const floorStep = await runStep({ label: 'floor,', pid: floor.pid as number, fleets, holdS, server: undefined }, largest);
    return { holdSeconds: holdS, setupSeconds, openFilesLimit: limit, connectionsMax: AGENT_CONNECTIONS_MAX, steps: results, floor: floorStep };
  } catch (error) {
    if (server !== undefined) process.stderr.write(`strata serve's last stderr:\n${server.stderr()}\n`);
    throw error;
  } finally {
    await stopFleets(fleets);
    if (server !== undefined) await stopProcess(server.child);
    floor?.stdin?.end();
    if (floor !== undefined) await stopProcess(floor);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** argv: <steps, comma-separated> <hold seconds>. */
async function main(): Promise<void> {
  const steps = (process.argv[2] ?? '').split(',').map(Number);
  const holdS = Number(process.argv[3]);
  if (steps.some((n) => !Number.isSafeInteger(n) || n < 1) || !Number.isSafeInteger(holdS) || holdS < 1) throw new Error('usage: agents.js <agents,agents,...> <hold seconds>');
  emitResult(await runAgents(steps, holdS));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
