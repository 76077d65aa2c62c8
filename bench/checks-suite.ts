// Owns `npm run bench -- checks`: runs the checks bench's steps (each in its own process), prints the table and the capacity, writes bench/results/checks.json.
import { flagValue, positiveFlag } from './bench-flags.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChild } from './child-io.js';
import { CHECK_PERIOD_S, CHECK_ZONES, type ChecksStep } from './checks.js';
import { createProgress } from './progress.js';
import { rate, renderTable } from './report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'checks.json');
/** The suite's name on the command line. */
export const CHECKS_SUITE = 'checks';
/** Steps tried in order while they pass (the target is 10,000 checks); the search stops at the first failure. */
const DEFAULT_STEPS = [1_000, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000];
/** The target. */
const TARGET_CHECKS = 10_000;
/** Two periods, the least the issue asks per step. */
const DEFAULT_SECONDS = 2 * CHECK_PERIOD_S;

/** Options of the suite: `--checks N` (one step), `--steps a,b,c`, `--duration S`, `--alarms` (one alarm per check). */
export interface ChecksSuiteOptions {
  readonly steps: readonly number[];
  readonly seconds: number;
  readonly alarms: boolean;
}

/** Reads the suite's flags from argv (flags of other suites are ignored); throws on a malformed value. */
export function checksSuiteOptions(args: readonly string[]): ChecksSuiteOptions {
  const value = (flag: string): string | undefined => flagValue(args, flag);
  const positive = positiveFlag;
  const one = value('--checks');
  const list = value('--steps');
  const steps = one !== undefined ? [positive(one, '--checks')] : list !== undefined ? list.split(',').map((n) => positive(n, '--steps')) : DEFAULT_STEPS;
  const duration = value('--duration');
  return { steps, seconds: duration === undefined ? DEFAULT_SECONDS : positive(duration, '--duration'), alarms: args.includes('--alarms') };
}

/** The flags the suite consumes, so the orchestrator does not take them for suite names. */
export function checksSuiteFlags(args: readonly string[]): Set<number> {
  const taken = new Set<number>();
  args.forEach((arg, i) => {
    if (arg === '--checks' || arg === '--steps' || arg === '--duration') taken.add(i).add(i + 1);
    if (arg === '--alarms') taken.add(i);
  });
  return taken;
}

function row(step: ChecksStep): string[] {
  return [
    step.checks.toLocaleString('en-US'),
    `${step.runsPerSecond.toFixed(0)} / ${step.expectedRunsPerSecond.toFixed(0)}`,
    `${step.lagP50Ms.toFixed(0)} / ${step.lagP99Ms.toFixed(0)} / ${step.lagMaxMs.toFixed(0)}`,
    `${step.runP50Ms.toFixed(1)} / ${step.runP99Ms.toFixed(1)}`,
    rate(step.pointsPerSecond),
    String(step.skipped),
    String(step.unavailable + step.errors),
    step.rssMaxMiB.toFixed(0),
    step.eventLoopDelayP99Ms.toFixed(1),
    `${(step.eventLoopUtilization * 100).toFixed(0)}%`,
    step.cpuPerSecond.toFixed(2),
    step.pass ? '✓' : '✗',
  ];
}

/** Runs the steps in child processes (stopping at the first that fails), prints the table and writes bench/results/checks.json. */
export async function runChecksSuite(options: ChecksSuiteOptions, machine: Record<string, unknown>): Promise<void> {
  const started = performance.now();
  const progress = createProgress(options.steps.length);
  const steps: ChecksStep[] = [];
  for (const checks of options.steps) {
    const args = [String(checks), String(options.seconds), ...(options.alarms ? ['alarms'] : [])];
    progress.step(`checks: ${checks.toLocaleString('en-US')} checks`);
    const step = (await runChild(join(HERE, 'checks.js'), args, (m) => progress.phase(m)).catch((error: unknown) => {
      progress.log(`checks ${checks}: ${String(error)}`);
      return undefined;
    })) as ChecksStep | undefined;
    if (step === undefined) break;
    steps.push(step);
    if (!step.pass) break;
  }
  progress.stop();
  const capacity = steps.filter((s) => s.pass).reduce((best, s) => Math.max(best, s.checks), 0);
  const description =
    `remote.http checks at period ${CHECK_PERIOD_S} s from ${CHECK_ZONES.length} zones (${CHECK_ZONES.join(', ')}), one MonitoringRuntime in this process, ` +
    `a local HTTP target in its own process, metrics written to a real engine store${options.alarms ? ', one alarm per check' : ''}; ` +
    `${options.seconds} s measured per step, from the runtime's start`;
  console.log('');
  console.log(`Checks (issue 11): ${description}`);
  console.log(
    renderTable(
      ['checks', 'runs/s (got / due)', 'lag ms p50 / p99 / max', 'run ms p50 / p99', 'points/s', 'skipped', 'unavailable', 'RSS MiB', 'loop delay p99 ms', 'loop busy', 'CPU s/s', 'pass'],
      steps.map(row),
    ),
  );
  const mark = capacity >= TARGET_CHECKS ? '✓' : '✗';
  console.log(`  capacity (largest step with lag max < ${CHECK_PERIOD_S} s and no skipped runs): ${capacity.toLocaleString('en-US')} checks (${((capacity * CHECK_ZONES.length) / CHECK_PERIOD_S).toFixed(0)} runs/s)`);
  console.log(`  ${mark} target ${TARGET_CHECKS.toLocaleString('en-US')} checks (${(TARGET_CHECKS * CHECK_ZONES.length) / CHECK_PERIOD_S} runs/s)`);
  const durationSeconds = (performance.now() - started) / 1000;
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const results = { date: new Date().toISOString(), durationSeconds, machine, description, capacity, targetChecks: TARGET_CHECKS, steps };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${RESULTS_FILE} (${durationSeconds.toFixed(0)} s)`);
}

