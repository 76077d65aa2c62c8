// Owns one step of the checks bench: N remote.http checks at period 30 s from 3 zones, run by the real MonitoringRuntime against a local target process, metrics ingested into a real engine.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { systemClock } from '../src/core/clock.js';
import { openFeeds } from '../src/feeds/feeds-service.js';
import { MonitoringRuntime } from '../src/monitoring/monitoring-runtime.js';
import { openMonitoring, type MonitoringService } from '../src/monitoring/monitoring-service.js';
import type { RunEvent } from '../src/monitoring/runner/check-scheduler.js';
import { openStore } from '../src/store.js';
import { emitResult, reportProgress } from './child-io.js';
import { percentile } from './latency.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TARGET_SCRIPT = join(HERE, 'checks-target.js');
/** The workload: period 30 s, three zones. */
export const CHECK_PERIOD_S = 30;
export const CHECK_ZONES = ['mzdfw', 'mziad', 'mzord'] as const;
/** Checks per entity (an entity holds at most 100). */
const CHECKS_PER_ENTITY = 10;
/** Checks created per monitoring transaction. */
const CREATE_BATCH = 500;
/** The tenant the bench's checks belong to. */
const TENANT = 'bench';

/** What one step measured. */
export interface ChecksStep {
  readonly checks: number;
  readonly alarms: boolean;
  readonly seconds: number;
  /** checks x zones / period. */
  readonly expectedRunsPerSecond: number;
  readonly runsPerSecond: number;
  readonly runs: number;
  readonly unavailable: number;
  readonly errors: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** Run time from start to settled (resolve, connect, request, response). */
  readonly runP50Ms: number;
  readonly runP99Ms: number;
  readonly pointsPerSecond: number;
  readonly skipped: number;
  readonly skippedByReason: Record<string, number>;
  readonly rssMaxMiB: number;
  readonly eventLoopDelayP99Ms: number;
  /** Share of the window the event loop was busy (0 to 1). */
  readonly eventLoopUtilization: number;
  /** CPU seconds of this process per wall second (2 cores: at most 2). */
  readonly cpuPerSecond: number;
  readonly setupSeconds: number;
  /** Lag max below one period and no skipped runs. */
  readonly pass: boolean;
}

async function startTarget(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [TARGET_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const port = Number(line.trim());
    if (Number.isInteger(port) && port > 0) return { child, port };
  }
  throw new Error('the bench target exited before printing its port');
}

/** Creates the checks (and an alarm each when asked) in batched transactions. */
function createChecks(monitoring: MonitoringService, count: number, port: number, alarms: boolean): void {
  for (let first = 0; first < count; first += CREATE_BATCH) {
    monitoring.store.transaction(() => {
      let entityId = '';
      for (let n = first; n < Math.min(count, first + CREATE_BATCH); n++) {
        if (n % CHECKS_PER_ENTITY === 0) entityId = monitoring.entities.createEntity(TENANT, { label: `host-${n / CHECKS_PER_ENTITY}`, ip_addresses: { web: '127.0.0.1' } });
        const checkId = monitoring.entities.createCheck(TENANT, entityId, {
          type: 'remote.http',
          label: `site-${n}`,
          details: { url: `http://127.0.0.1:${port}/health/${n}`, method: 'GET' },
          monitoring_zones_poll: [...CHECK_ZONES],
          target_alias: 'web',
          period: CHECK_PERIOD_S,
          timeout: 10,
        });
        if (alarms) {
          monitoring.entities.createAlarm(TENANT, entityId, {
            check_id: checkId,
            notification_plan_id: 'npTechnicalContactsEmail',
            criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'code #{code}'); } return new AlarmStatus(OK);",
          });
        }
      }
    });
    reportProgress(`checks ${count}: creating`, Math.min(count, first + CREATE_BATCH), count);
  }
}

/** Runs one step: N checks for `seconds` of measured running. */
export async function runChecksStep(checks: number, seconds: number, alarms: boolean): Promise<ChecksStep> {
  const setupStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'strata-checks-bench-'));
  const target = await startTarget();
  const engine = await openStore({ dir, clock: systemClock });
  // The bench creates more checks and alarms than one account may hold by default.
  const monitoring = openMonitoring({ dir, clock: systemClock, limits: { entities: checks, checks, alarms: checks } });
  const feeds = openFeeds({ dir: undefined, clock: systemClock, region: 'LOCAL' });
  const lags: number[] = [];
  const durations: number[] = [];
  let measuring = false;
  let unavailable = 0;
  let errors = 0;
  const onRun = (event: RunEvent): void => {
    if (!measuring) return;
    lags.push(event.lagMs);
    durations.push(event.durationMs);
    if (event.outcome === 'unavailable') unavailable++;
    else if (event.outcome === 'error') errors++;
  };
  const silent = { info: () => {}, warn: () => {}, error: (obj: object, msg: string) => process.stderr.write(`${msg} ${JSON.stringify(obj)}\n`) };
  let txn = 0;
  const runtime = new MonitoringRuntime({ monitoring, engine, feeds, clock: systemClock, logger: silent, newTxnId: () => `bench-${++txn}`, options: { scheduler: { onRun, promptFirstRun: false } } });
  try {
    createChecks(monitoring, checks, target.port, alarms);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    await runtime.start();
    const eld = monitorEventLoopDelay({ resolution: 10 });
    eld.enable();
    const before = runtime.stats();
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const started = performance.now();
    measuring = true;
    let rssMaxMiB = 0;
    for (let s = 0; s < seconds; s++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      rssMaxMiB = Math.max(rssMaxMiB, process.memoryUsage.rss() / 2 ** 20);
      reportProgress(`checks ${checks}${alarms ? ' with alarms' : ''}: running`, s + 1, seconds);
    }
    measuring = false;
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const utilization = performance.eventLoopUtilization(elu).utilization;
    eld.disable();
    const after = runtime.stats();
    const skippedByReason = Object.fromEntries(Object.entries(after.runs.skipped).map(([reason, n]) => [reason, n - (before.runs.skipped as Record<string, number>)[reason]!]));
    const skipped = Object.values(skippedByReason).reduce((a, b) => a + b, 0);
    const sortedLags = [...lags].sort((a, b) => a - b);
    const sortedRuns = [...durations].sort((a, b) => a - b);
    const lagMaxMs = sortedLags.at(-1) ?? 0;
    return {
      checks,
      alarms,
      seconds: wallS,
      expectedRunsPerSecond: (checks * CHECK_ZONES.length) / CHECK_PERIOD_S,
      runsPerSecond: lags.length / wallS,
      runs: lags.length,
      unavailable,
      errors,
      lagP50Ms: percentile(sortedLags, 0.5),
      lagP99Ms: percentile(sortedLags, 0.99),
      lagMaxMs,
      runP50Ms: percentile(sortedRuns, 0.5),
      runP99Ms: percentile(sortedRuns, 0.99),
      pointsPerSecond: (after.sink.pointsWritten - before.sink.pointsWritten) / wallS,
      skipped,
      skippedByReason,
      rssMaxMiB,
      eventLoopDelayP99Ms: eld.percentile(99) / 1e6,
      eventLoopUtilization: utilization,
      cpuPerSecond: (used.user + used.system) / 1e6 / wallS,
      setupSeconds,
      pass: lagMaxMs < CHECK_PERIOD_S * 1000 && skipped === 0 && lags.length > 0,
    };
  } finally {
    await runtime.stop();
    await engine.close();
    feeds.close();
    monitoring.close();
    target.child.stdin?.end();
    target.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** argv: <checks> <seconds> [alarms]. */
async function main(): Promise<void> {
  const checks = Number(process.argv[2]);
  const seconds = Number(process.argv[3]);
  if (!Number.isSafeInteger(checks) || checks < 1 || !Number.isSafeInteger(seconds) || seconds < 1) throw new Error('usage: checks.js <checks> <seconds> [alarms]');
  emitResult(await runChecksStep(checks, seconds, process.argv[4] === 'alarms'));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
