// Owns the world of the backtest tests: a monitoring file and a real engine store in a temp dir, the live alarm runtime fed through the real ResultSink, and the backtests over the same engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock.js';
import { AlarmRuntime } from '../../../src/monitoring/alarms/alarm-runtime.js';
import { AlarmBacktests, type BacktestDeps } from '../../../src/monitoring/backtest/backtest-service.js';
import type { ChangelogRow } from '../../../src/monitoring/changelog-store.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import { Outbox } from '../../../src/monitoring/delivery/outbox.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { ResultSink } from '../../../src/monitoring/runner/result-sink.js';
import { openStore } from '../../../src/store.js';
import type { Store } from '../../../src/store-types.js';

/** The world's now: every observation lies in the day before it (within the FULL retention). */
export const NOW_MS = 1_790_000_000_000;
/** Where observations start. */
export const T0_MS = NOW_MS - 20 * 3_600_000;
/** The tenant of every object. */
export const TENANT = 't1';
/** Zones a remote check may poll from. */
export const ZONES = ['mzdfw', 'mziad', 'mzord'] as const;

/** Silent logger lines kept for assertions. */
export interface LoggedLine {
  readonly level: string;
  readonly msg: string;
}

/** A monitoring service, an engine store, the live alarm runtime fed through a ResultSink, and backtests over the same engine. */
export class BacktestWorld {
  private constructor(
    readonly dir: string,
    readonly clock: ManualClock,
    readonly logs: LoggedLine[],
    readonly monitoring: MonitoringService,
    readonly engine: Store,
    readonly runtime: AlarmRuntime,
    readonly sink: ResultSink,
  ) {}

  /** Opens a world in a fresh temp dir. */
  static async open(): Promise<BacktestWorld> {
    const dir = mkdtempSync(join(tmpdir(), 'strata-backtest-'));
    const clock = new ManualClock(NOW_MS);
    const monitoring = openMonitoring({ dir, clock });
    const engine = await openStore({ dir, clock, workers: 0, background: false });
    const logs: LoggedLine[] = [];
    const log = (level: string) => (_obj: object, msg?: string) => void logs.push({ level, msg: msg ?? '' });
    const logger = { info: log('info'), warn: log('warn'), error: log('error') };
    const outbox = new Outbox({ db: monitoring.store.db, clock });
    const runtime = new AlarmRuntime({ monitoring, outbox, wakeDelivery: () => undefined, clock, logger });
    const sink = new ResultSink({ engine, monitoring, alarms: runtime, logger, flushMs: 60_000, batchPoints: 50_000 });
    return new BacktestWorld(dir, clock, logs, monitoring, engine, runtime, sink);
  }

  /** Backtests over this world's engine. */
  backtests(extra: Partial<BacktestDeps> = {}): AlarmBacktests {
    return new AlarmBacktests({ monitoring: this.monitoring, engine: this.engine, ...extra });
  }

  /** An entity (label `web`) with an address. */
  entity(): string {
    return this.monitoring.entities.createEntity(TENANT, { label: 'web', ip_addresses: { web: '192.0.2.10' } });
  }

  /** A remote.http check of the entity polling `zones` every `periodS` seconds. */
  remoteCheck(entityId: string, zones: readonly string[], periodS = 60): string {
    return this.monitoring.entities.createCheck(TENANT, entityId, {
      type: 'remote.http',
      details: { url: 'http://192.0.2.10/' },
      monitoring_zones_poll: [...zones],
      target_alias: 'web',
      period: periodS,
      timeout: 10,
    });
  }

  /** An agent check of the entity, run every `periodS` seconds. */
  agentCheck(entityId: string, periodS = 60): string {
    return this.monitoring.entities.createCheck(TENANT, entityId, { type: 'agent.load_average', period: periodS, timeout: 10 });
  }

  /** A webhook notification and a plan sending it on every state. */
  plan(): { plan: string; notification: string } {
    const notification = this.monitoring.notifications.createNotification(TENANT, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/x' } });
    const plan = this.monitoring.notifications.createPlan(TENANT, { label: 'all', critical_state: [notification], warning_state: [notification], ok_state: [notification] });
    return { plan, notification };
  }

  /** An alarm on the check. */
  alarm(entityId: string, checkId: string, planId: string, criteria: string | null): string {
    return this.monitoring.entities.createAlarm(TENANT, entityId, { check_id: checkId, notification_plan_id: planId, criteria });
  }

  /** Hands the results to the sink in the given order (the alarms see each at once) and writes their points. */
  async feed(entityId: string, checkId: string, results: readonly CheckResult[]): Promise<void> {
    const check = this.monitoring.entities.checkWithSecrets(TENANT, entityId, checkId);
    for (const result of results) {
      if (!this.sink.accept(TENANT, check, result)) throw new Error('the sink refused a result');
    }
    await this.sink.flush();
  }

  /** The alarm's changelog entries, oldest first. */
  changelog(alarmId: string): ChangelogRow[] {
    const rows = this.monitoring.changelogs.list(TENANT, { limit: 1000, fromMs: NOW_MS - 2 * 86_400_000, toMs: NOW_MS + 1 }).values;
    return rows.filter((row) => row.alarmId === alarmId);
  }

  async close(): Promise<void> {
    this.runtime.stop();
    await this.engine.close();
    this.monitoring.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
