// Owns `npm run bench -- agents`: runs the agents bench (bench/agents.ts) in its own process, prints the table, the capacity and the limits behind it, writes bench/results/agents.json.
import { flagValue, positiveFlag } from './bench-flags.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_HEARTBEAT_JITTER_PERCENT } from '../src/agent/agent-limits.js';
import { runChild } from './child-io.js';
import { HEARTBEAT_P99_MS_MAX, POST_P99_MS_MAX, POSTS_COMPLETED_MIN, type AgentsRun, type AgentsStep } from './agents.js';
import { AGENT_CHECK_PERIOD_S, AGENT_ZONES, BENCH_CHECKS } from './agents-workload.js';
import { createProgress } from './progress.js';
import { renderTable } from './report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'agents.json');
/** The suite's name on the command line. */
export const AGENTS_SUITE = 'agents';
/**
 * Steps tried in order while they hold. The last stays under the endpoint's AGENT_CONNECTIONS_MAX
 * (16,384 connections = 5,461 agents at 3 each); the 20,000 open files of this machine would allow
 * about 6,600 agents before anything else the server opens.
 */
const DEFAULT_STEPS = [1_000, 2_500, 5_000, 5_400];
/** The target. */
const TARGET_AGENTS = 5_000;

/** Options: `--agents N` (one step, a quick run), `--agent-steps a,b,c`, `--agent-hold S` (default one period). */
export interface AgentsSuiteOptions {
  readonly steps: readonly number[];
  readonly holdSeconds: number;
}

/** The flags the suite consumes (their indices in argv), so the orchestrator does not take them for suite names. */
export function agentsSuiteFlags(args: readonly string[]): Set<number> {
  const taken = new Set<number>();
  args.forEach((arg, i) => {
    if (arg === '--agents' || arg === '--agent-steps' || arg === '--agent-hold') taken.add(i).add(i + 1);
  });
  return taken;
}

/** Reads the suite's flags from argv; throws on a malformed value. */
export function agentsSuiteOptions(args: readonly string[]): AgentsSuiteOptions {
  const value = (flag: string): string | undefined => flagValue(args, flag);
  const positive = positiveFlag;
  const one = value('--agents');
  const list = value('--agent-steps');
  const steps = one !== undefined ? [positive(one, '--agents')] : list !== undefined ? list.split(',').map((n) => positive(n, '--agent-steps')) : DEFAULT_STEPS;
  const hold = value('--agent-hold');
  return { steps, holdSeconds: hold === undefined ? AGENT_CHECK_PERIOD_S : positive(hold, '--agent-hold') };
}

function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : value < 10 ? value.toFixed(1) : value.toFixed(0);
}

function ratio(value: number, floor: number | undefined): string {
  return floor === undefined || !(floor > 0) || Number.isNaN(value) ? '' : ` (${(value / floor).toFixed(1)}x)`;
}

function errorsText(step: AgentsStep): string {
  const n = Object.values(step.errors).reduce((a, b) => a + b, 0) + step.failed;
  return String(n);
}

function row(step: AgentsStep, floor: AgentsStep | null, label?: string): string[] {
  const f = step === floor ? undefined : floor ?? undefined;
  return [
    label ?? step.agents.toLocaleString('en-US'),
    step.connections.toLocaleString('en-US'),
    `${step.connectSeconds.toFixed(1)} / ${ms(step.tlsP99Ms)}`,
    `${ms(step.helloP50Ms)} / ${ms(step.helloP99Ms)}`,
    `${ms(step.heartbeatP50Ms)} / ${ms(step.heartbeatP99Ms)}${ratio(step.heartbeatP99Ms, f?.heartbeatP99Ms)}`,
    `${ms(step.postP50Ms)} / ${ms(step.postP99Ms)}${ratio(step.postP99Ms, f?.postP99Ms)}`,
    `${step.postsOk.toLocaleString('en-US')} / ${step.postsExpected.toLocaleString('en-US')}`,
    step.pointsPerSecond.toFixed(0),
    errorsText(step),
    String(step.disconnects),
    `${step.serverCpuPercent.toFixed(0)}%`,
    `${step.serverRssMiB.toFixed(0)} / ${step.serverRssMaxMiB.toFixed(0)}`,
    `${step.fleetCpuPerSecond.map((c) => c.toFixed(2)).join(' ')} / ${ms(step.fleetLoopDelayP99Ms)}`,
    step.sampled === null ? '' : `${step.sampledComplete}/${step.sampled}`,
    step === floor ? '' : step.pass ? '✓' : '✗',
  ];
}

/** Runs the bench in a child process, prints the table and the verdicts, writes bench/results/agents.json. */
export async function runAgentsSuite(options: AgentsSuiteOptions, machine: Record<string, unknown>): Promise<void> {
  const started = performance.now();
  const progress = createProgress(1);
  progress.step(`agents: steps ${options.steps.map((n) => n.toLocaleString('en-US')).join(' / ')}, then the floor`);
  const run = (await runChild(join(HERE, 'agents.js'), [options.steps.join(','), String(options.holdSeconds)], (m) => progress.phase(m))) as AgentsRun;
  progress.stop();
  const capacity = run.steps.filter((s) => s.pass).reduce((best, s) => Math.max(best, s.agents), 0);
  const metricsPerPost = BENCH_CHECKS.reduce((n, c) => n + c.metrics.length, 0) / BENCH_CHECKS.length;
  const description =
    `agents each holding ${AGENT_ZONES} TLS connections (one per zone endpoint of one \`strata serve\`), heartbeating every ${AGENT_CHECK_PERIOD_S} s ±${AGENT_HEARTBEAT_JITTER_PERCENT}% on each ` +
    `(first beat at a random phase) and posting ${BENCH_CHECKS.length} agent checks every ${AGENT_CHECK_PERIOD_S} s (random phase, ~${metricsPerPost.toFixed(1)} metrics each, round-robin over the connections); ` +
    `two fleet processes on the same machine, TLS sessions resumed; ramped in steps, each held ${run.holdSeconds} s once connected; ` +
    `the floor is the same fleet at the largest step against a bare TLS server answering {} (RpcPeer, no monitoring)`;
  console.log('');
  console.log(`Agents (issue 12): ${description}`);
  const rows = run.steps.map((s) => row(s, run.floor));
  if (run.floor !== null) rows.push(row(run.floor, run.floor, `floor ${run.floor.agents.toLocaleString('en-US')}`));
  console.log(
    renderTable(
      ['agents', 'conns', 'connect s / TLS p99 ms', 'hello ms p50 / p99', 'heartbeat ms p50 / p99 (of floor)', 'post ms p50 / p99 (of floor)', 'posts ok / due', 'points/s', 'errors', 'disc.', 'server CPU', 'RSS MiB end / max', 'fleet CPU s/s / loop p99 ms', 'API conns', 'holds'],
      rows,
    ),
  );
  for (const step of [...run.steps, ...(run.floor === null ? [] : [run.floor])]) {
    const problems = [...step.reasons, ...Object.entries({ ...step.failures, ...step.errors }).map(([key, n]) => `${key}: ${n}`)];
    if (problems.length > 0) console.log(`  ${step === run.floor ? 'floor' : step.agents.toLocaleString('en-US')}: ${[...new Set(problems)].join('; ')}`);
  }
  const mark = capacity >= TARGET_AGENTS ? '✓' : '✗';
  console.log(`  capacity (largest step with heartbeat p99 < ${HEARTBEAT_P99_MS_MAX} ms, post p99 < ${POST_P99_MS_MAX} ms, >= ${POSTS_COMPLETED_MIN * 100}% of due posts completed, every agent connected, no disconnects): ${capacity.toLocaleString('en-US')} agents`);
  console.log(`  ${mark} target ${TARGET_AGENTS.toLocaleString('en-US')} agents (${(TARGET_AGENTS * AGENT_ZONES).toLocaleString('en-US')} connections, ${((TARGET_AGENTS * BENCH_CHECKS.length) / AGENT_CHECK_PERIOD_S).toFixed(0)} posts/s)`);
  console.log(
    `  ceiling: the endpoint holds at most AGENT_CONNECTIONS_MAX = ${run.connectionsMax.toLocaleString('en-US')} connections (${Math.floor(run.connectionsMax / AGENT_ZONES).toLocaleString('en-US')} agents at ${AGENT_ZONES} each); ` +
      (typeof run.openFilesLimit === 'number' && Number.isFinite(run.openFilesLimit)
        ? `the server's open-files limit of ${run.openFilesLimit.toLocaleString('en-US')} would cap it near ${Math.floor(run.openFilesLimit / AGENT_ZONES).toLocaleString('en-US')} agents less the files the server keeps open`
        : "the server's open-files limit is unlimited"),
  );
  const durationSeconds = (performance.now() - started) / 1000;
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const results = { date: new Date().toISOString(), durationSeconds, machine, description, capacity, targetAgents: TARGET_AGENTS, ...run };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}
