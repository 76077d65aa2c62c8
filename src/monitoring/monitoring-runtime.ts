// Owns the monitoring runtime's composition: address guard, check runner and scheduler, result sink, alarm runtime, outbox and deliverer, test notifications, and the retention upkeep.
import type { Clock } from '../core/clock.js';
import { configError } from '../core/config-error.js';
import { StrataError } from '../core/errors.js';
import type { Feeds } from '../feeds/feeds-service.js';
import type { Store } from '../store-types.js';
import type { CheckResult } from './check-result.js';
import type { CheckDoc } from './check-rules.js';
import type { StoredDoc } from './doc-store.js';
import { AlarmRuntime, type AlarmRuntimeStats } from './alarms/alarm-runtime.js';
import { closeChannels, createChannels } from './delivery/channel-registry.js';
import { Deliverer, type DeliveryNotification, type DeliveryStats } from './delivery/deliverer.js';
import { resolveDeliveryConfig, type DeliveryConfig } from './delivery/delivery-config.js';
import { Outbox } from './delivery/outbox.js';
import { TestNotifications } from './delivery/test-notification.js';
import { RetentionUpkeep, retentionTasks } from './history/retention-upkeep.js';
import { CHECK_CONCURRENCY_DEFAULT, CHECK_CONCURRENCY_MAX } from './monitoring-limits.js';
import type { MonitoringService } from './monitoring-service.js';
import { AddressGuard } from './probes/address-guard.js';
import { defaultProbes, type ProbeRegistry } from './probes/probe-registry.js';
import { CheckRunner, type RuntimeLogger } from './runner/check-runner.js';
import { CheckScheduler, type CheckSchedulerOptions, type SchedulerState } from './runner/check-scheduler.js';
import { ResultSink, type SinkStats } from './runner/result-sink.js';
import { checkResultTimestamp } from './runner/result-timestamp.js';
import { RunnerStats, type RunnerStatsSnapshot } from './runner/runner-stats.js';
import { TestRuns } from './runner/test-runs.js';

export type { RuntimeLogger } from './runner/check-runner.js';

/** Settings of the monitoring runtime (the CLI fills them from `strata serve` flags). */
export interface RuntimeOptions {
  /** CIDR ranges checks may not connect to (`--check-deny`); none by default. */
  readonly checkDeny?: readonly string[];
  /** Check runs in flight at once (`--check-concurrency`, CHECK_CONCURRENCY_DEFAULT). */
  readonly checkConcurrency?: number;
  /** Ids of the configured zones this process runs (`--zones`); every configured zone by default. */
  readonly zones?: readonly string[];
  /** Notification delivery: retries, SMTP relay, gateways (DEFAULT_DELIVERY_CONFIG for what is left out). */
  readonly delivery?: Partial<DeliveryConfig>;
  /** Scheduler details for tests and the bench: the queue bound, prompt first runs, a hook per run. */
  readonly scheduler?: Pick<CheckSchedulerOptions, 'queueMax' | 'promptFirstRun' | 'onRun'>;
  /** The probes by check type (defaultProbes()); tests pass their own. */
  readonly probes?: ProbeRegistry;
  /** Time between two retention upkeep steps (OUTBOX_PRUNE_INTERVAL_MS); tests pass a short one. */
  readonly upkeepIntervalMs?: number;
}

/** What the runtime is built from. */
export interface MonitoringRuntimeDeps {
  readonly monitoring: MonitoringService;
  /** The engine check metrics are written to. */
  readonly engine: Store;
  /** The event feeds (eventFeed notifications). */
  readonly feeds: Feeds;
  readonly clock: Clock;
  readonly logger: RuntimeLogger;
  /** A new transaction id per delivery attempt. */
  readonly newTxnId: () => string;
  readonly options?: RuntimeOptions;
}

/** Every counter of the runtime, for /metrics and the bench. */
export interface RuntimeStats {
  readonly runs: RunnerStatsSnapshot;
  readonly scheduler: SchedulerState;
  readonly sink: SinkStats;
  readonly alarms: AlarmRuntimeStats;
  /** Undefined when the outbox cannot be read (the monitoring file closed). */
  readonly delivery: DeliveryStats | undefined;
}

/** The zones this process runs: the ones asked for, each configured, or all configured ones. */
function runnerZones(monitoring: MonitoringService, asked: readonly string[] | undefined): readonly string[] {
  const configured = monitoring.zones.map((zone) => zone.id);
  if (asked === undefined) return configured;
  const unknown = asked.find((zone) => !configured.includes(zone));
  if (unknown !== undefined || asked.length === 0) throw configError('zones', `monitoring zone ids among ${configured.join(', ')}`, unknown ?? '(none)');
  return [...new Set(asked)];
}

function checkConcurrency(value: number | undefined): number {
  const concurrency = value ?? CHECK_CONCURRENCY_DEFAULT;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > CHECK_CONCURRENCY_MAX) {
    throw configError('checkConcurrency', `an integer from 1 to ${CHECK_CONCURRENCY_MAX}`, concurrency);
  }
  return concurrency;
}

/**
 * The monitoring runtime: checks run from every zone this process hosts, their metrics stored,
 * alarms evaluated, changes recorded and notifications delivered. Built with the server; nothing
 * runs until start() (called by `strata serve`, and by tests that want checks to run).
 */
export class MonitoringRuntime {
  /** Runs checks: the scheduler's runs directly, test runs through `testRuns` (bounded). */
  readonly checks: CheckRunner;
  /** Runs checks once on demand (test-check, test of a saved check, test-alarm), bounded per process and per tenant. */
  readonly testRuns: TestRuns;
  /** Evaluates results against alarms and records state changes. */
  readonly alarms: AlarmRuntime;
  /** Sends the notification outbox. */
  readonly delivery: Deliverer;
  /** The durable notification outbox. */
  readonly outbox: Outbox;
  /** Which addresses checks may connect to. */
  readonly guard: AddressGuard;
  /** The zones this process runs checks from (`--zones`, else every configured zone): alarm quorum counts only these. */
  readonly zones: readonly string[];
  /** Sends test notifications (POST /test-notification, POST /notifications/{id}/test) through the channels below. */
  readonly testNotifications: TestNotifications;
  /** Prunes the notification history, suppression logs and audits past their retention (runs between start and stop). */
  readonly upkeep: RetentionUpkeep;
  /** The notification channels, one per type; closed on stop (SMTP pools). */
  private readonly channels: ReturnType<typeof createChannels>;
  private readonly scheduler: CheckScheduler;
  private readonly sink: ResultSink;
  private readonly runStats = new RunnerStats();
  /** Aborted at stop: a test notification in flight ends. */
  private readonly stopController = new AbortController();
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: MonitoringRuntimeDeps) {
    const options = deps.options ?? {};
    const { monitoring, clock, logger } = deps;
    const zones = runnerZones(monitoring, options.zones);
    this.zones = zones;
    const concurrency = checkConcurrency(options.checkConcurrency);
    const config = resolveDeliveryConfig(options.delivery);
    this.guard = new AddressGuard(options.checkDeny ?? []);
    this.checks = new CheckRunner({ probes: options.probes ?? defaultProbes(), guard: this.guard, clock, logger });
    this.testRuns = new TestRuns(this.checks);
    // Finished deliveries live as long as the history records that name them.
    this.outbox = new Outbox({ db: monitoring.store.db, clock, logger, finishedRetentionMs: monitoring.history.retentionMs });
    this.channels = createChannels(config, { feeds: deps.feeds, logger, guard: this.guard });
    this.delivery = new Deliverer({
      outbox: this.outbox,
      clock,
      logger,
      config,
      channels: this.channels,
      notification: (tenant, id) => this.notification(tenant, id),
      account: (tenant) => monitoring.account.deliveryAccount(tenant),
      newTxnId: deps.newTxnId,
    });
    this.testNotifications = new TestNotifications({
      channels: this.channels,
      attemptTimeoutMs: config.attemptTimeoutMs,
      clock,
      newTxnId: deps.newTxnId,
      account: (tenant) => monitoring.account.deliveryAccount(tenant),
      stop: this.stopController.signal,
    });
    this.upkeep = new RetentionUpkeep({ tasks: retentionTasks(monitoring), clock, logger, ...(options.upkeepIntervalMs !== undefined ? { intervalMs: options.upkeepIntervalMs } : {}) });
    this.alarms = new AlarmRuntime({ monitoring, outbox: this.outbox, wakeDelivery: () => this.delivery.wake(), clock, logger, zones });
    this.sink = new ResultSink({ engine: deps.engine, monitoring, alarms: this.alarms, logger });
    this.scheduler = new CheckScheduler({
      monitoring,
      runner: this.checks,
      sink: this.sink,
      stats: this.runStats,
      clock,
      logger,
      options: { ...options.scheduler, zones, concurrency },
    });
  }

  /**
   * Starts delivering notifications (the outbox left by a previous run resumes), the retention
   * upkeep, and scheduling checks; they load in chunks while the server answers. Resolves once
   * every check is loaded.
   */
  async start(): Promise<void> {
    if (this.stopping !== undefined) return;
    this.delivery.start();
    this.upkeep.start();
    await this.scheduler.start();
    const { checks, slots } = this.scheduler.state();
    this.deps.logger.info({ checks, slots, zones: this.deps.monitoring.zones.length, deniedRanges: this.guard.ranges.length }, 'monitoring runtime started');
  }

  /**
   * Runs one check now from each of its zones this process hosts, through the scheduler's queue,
   * stores the results and evaluates its alarms as a scheduled run would; resolves with how many
   * zone runs ran once their points are written. Loads the checks first when not started.
   */
  async runNow(tenant: string, entityId: string, checkId: string): Promise<number> {
    this.scheduler.load();
    const ran = await this.scheduler.runNow(tenant, entityId, checkId);
    await this.sink.flush();
    return ran;
  }

  /**
   * Takes one result of an agent check, posted by the agent endpoint: its metrics go to the engine
   * under their bare names and its alarms are evaluated, exactly as a scheduled remote run's are.
   * Throws AGENT_PARAMS_INVALID for a timestamp the engine would not take when the points arrive
   * (result-timestamp.ts), and AGENT_BUSY, taking nothing, when the metrics queue to the engine
   * cannot hold all of its points: the endpoint then refuses the post and the agent keeps the
   * result to post it again. Either way nothing acknowledged is lost.
   */
  acceptAgentResult(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void {
    checkResultTimestamp(result.timestampMs, this.deps.engine.timestampBounds());
    if (!this.sink.accept(tenant, check, result)) {
      throw new StrataError('AGENT_BUSY', 'the metrics queue to the engine is full; post the result again later', { points: Object.keys(result.metrics).length });
    }
  }

  /** Writes the pending check metrics now. */
  flush(): Promise<void> {
    return this.sink.flush();
  }

  /** The runtime's counters. */
  stats(): RuntimeStats {
    let delivery: DeliveryStats | undefined;
    try {
      delivery = this.delivery.stats();
    } catch {
      delivery = undefined;
    }
    return { runs: this.runStats.snapshot(), scheduler: this.scheduler.state(), sink: this.sink.stats(), alarms: this.alarms.stats(), delivery };
  }

  /**
   * Stops scheduling, lets runs in flight finish (bounded, then aborts them), writes their metrics,
   * stops following changes, stops the deliverer (pending deliveries resume at the next start) and
   * the retention upkeep, and ends test notifications in flight. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    await this.scheduler.stop();
    await this.sink.flush();
    this.alarms.stop();
    await this.delivery.stop();
    this.upkeep.stop();
    this.stopController.abort();
    // The email channels hold pooled SMTP connections: close them once no attempt runs.
    closeChannels(this.channels);
  }

  /** A notification with its secrets for a delivery, or undefined when it was deleted. */
  private notification(tenant: string, id: string): DeliveryNotification | undefined {
    try {
      const stored = this.deps.monitoring.notifications.notificationWithSecrets(tenant, id);
      return { id: stored.id, label: stored.doc.label, type: stored.doc.type, details: stored.doc.details };
    } catch (error) {
      if (error instanceof StrataError && error.code === 'MONITORING_OBJECT_NOT_FOUND') return undefined;
      throw error;
    }
  }
}
