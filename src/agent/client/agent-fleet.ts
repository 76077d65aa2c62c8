// Owns the running agent: one connection per endpoint, the one schedule they share, update checks; results go through its ResultPoster.
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import { AGENT_UPDATE_CHECK_INTERVAL_MS } from '../agent-limits.js';
import type { Collector } from '../collectors/collector-registry.js';
import { scheduleResult } from '../protocol/method-params.js';
import type { AgentFeature, HelloResult, ScheduleResult } from '../protocol/messages.js';
import type { EndpointAddress } from './agent-config.js';
import type { AgentLogger, AgentScheduler, RandomSource, TimerHandle } from './agent-deps.js';
import { AgentConnection, type AgentConnectionEvents, type AgentConnectionStatus } from './agent-connection.js';
import { CheckLoop, type CheckLoopStatus } from './check-loop.js';
import { ResultPoster, type ResultPosterStatus } from './result-poster.js';
import { AgentUpdater, type AgentUpdateSettings } from './agent-updater.js';

function codeOf(error: unknown): string {
  return isStrataError(error) ? error.code : 'unknown';
}

/** The name the agent gives itself in its hello. */
export const AGENT_NAME = 'Strata agent';
/** Features the agent announces (the reference's upgrades feature). */
export const AGENT_FEATURES: readonly AgentFeature[] = [{ name: 'upgrades', version: '1.0.0' }];

/** Settings and dependencies of the agent. */
export interface AgentFleetOptions {
  readonly endpoints: readonly EndpointAddress[];
  /** PEM of the root certificate(s) trusted, and nothing else. */
  readonly ca: string;
  readonly token: string;
  readonly agentId: string;
  readonly guid: string;
  /** The agent's own version (package.json). */
  readonly processVersion: string;
  /** The bundle version the agent runs and announces. */
  readonly bundleVersion: string;
  /** The newest update staged by an earlier run, when newer than bundleVersion (updates older or equal are not fetched). */
  readonly stagedVersion?: string;
  /** Update checks and staging; undefined: updates off. */
  readonly update?: AgentUpdateSettings;
  readonly collectorFor: (type: string) => Collector;
  readonly clock: Clock;
  readonly scheduler: AgentScheduler;
  readonly random: RandomSource;
  readonly logger: AgentLogger;
  /** Told each time a connection's hello succeeds (the CLI prints a line); `index` counts from 1 in endpoint order. */
  readonly onConnected?: (endpoint: EndpointAddress, index: number) => void;
  /** Results buffered at most (AGENT_BUFFER_RESULTS_MAX). */
  readonly bufferResultsMax?: number;
  readonly reconnectBaseMs?: number;
  readonly reconnectMaxMs?: number;
  readonly requestTimeoutMs?: number;
}

/** The agent's state and counters (the posting counters are ResultPosterStatus's). */
export interface AgentFleetStatus extends ResultPosterStatus {
  readonly connections: readonly AgentConnectionStatus[];
  readonly checks: CheckLoopStatus;
  /** Schedules fetched and applied. */
  readonly schedules: number;
  readonly bundleVersion: string;
  /** The newest staged update (not run), null with updates off. */
  readonly stagedVersion: string | null;
}

/**
 * The agent: one AgentConnection per endpoint; one schedule (the latest fetched over any of them, on hello when the
 * endpoint names an entity and on check_schedule.changed) run by one CheckLoop; its results go to one ResultPoster,
 * which posts each once over the connections in turn, paced, and decides what a failed post means (see there).
 * A connection becoming ready lets it post what waits. A schedule answer check_schedule.get gives that scheduleResult
 * refuses (a check's period or timeout out of range, among others) is logged with the field named, and the schedule
 * running is kept.
 */
export class AgentFleet {
  private readonly connections: AgentConnection[];
  private readonly loop: CheckLoop;
  private readonly poster: ResultPoster;
  private readonly updater: AgentUpdater | undefined;
  /** Schedule fetches started; the answer of an older one than the last applied is ignored. */
  private fetchesStarted = 0;
  private fetchApplied = 0;
  private schedules = 0;
  private updateTimer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly options: AgentFleetOptions) {
    this.loop = new CheckLoop({ ...options, onResult: (result) => this.poster.enqueue(result) });
    this.updater = options.update === undefined ? undefined : new AgentUpdater({ settings: options.update, ca: options.ca, newestVersion: options.stagedVersion ?? options.bundleVersion, clock: options.clock, logger: options.logger });
    const events: AgentConnectionEvents = {
      onReady: (connection, hello) => this.connectionReady(connection, hello),
      onDown: () => undefined,
      onScheduleChanged: (connection) => this.fetchSchedule(connection),
      onUpgradeRequest: (connection) => void this.updater?.check(connection, true),
    };
    this.connections = options.endpoints.map(
      (endpoint) =>
        new AgentConnection({
          endpoint,
          ca: options.ca,
          guid: options.guid,
          hello: () => ({
            token: options.token,
            agent_id: options.agentId,
            agent_name: AGENT_NAME,
            process_version: options.processVersion,
            bundle_version: options.bundleVersion,
            features: AGENT_FEATURES,
          }),
          events,
          clock: options.clock,
          scheduler: options.scheduler,
          random: options.random,
          logger: options.logger,
          ...(options.reconnectBaseMs !== undefined ? { reconnectBaseMs: options.reconnectBaseMs } : {}),
          ...(options.reconnectMaxMs !== undefined ? { reconnectMaxMs: options.reconnectMaxMs } : {}),
          ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
        }),
    );
    this.poster = new ResultPoster({
      connections: this.connections,
      clock: options.clock,
      scheduler: options.scheduler,
      logger: options.logger,
      ...(options.bufferResultsMax !== undefined ? { bufferResultsMax: options.bufferResultsMax } : {}),
    });
  }

  /** Connects to every endpoint; with updates on, checks for one every AGENT_UPDATE_CHECK_INTERVAL_MS. */
  start(): void {
    for (const connection of this.connections) connection.start();
    if (this.updater !== undefined) this.armUpdateTimer();
  }

  /** Stops the checks, the update timer and every connection (results still buffered are lost). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.loop.stop();
    if (this.updateTimer !== undefined) this.options.scheduler.clearTimeout(this.updateTimer);
    this.updateTimer = undefined;
    this.poster.stop();
    await Promise.all(this.connections.map((connection) => connection.stop()));
  }

  /** The agent's state and counters now. */
  status(): AgentFleetStatus {
    return {
      connections: this.connections.map((connection) => connection.status()),
      checks: this.loop.status(),
      ...this.poster.status(),
      schedules: this.schedules,
      bundleVersion: this.options.bundleVersion,
      stagedVersion: this.updater?.stagedVersion ?? null,
    };
  }

  private connectionReady(connection: AgentConnection, hello: HelloResult): void {
    const index = this.connections.indexOf(connection) + 1;
    this.options.onConnected?.(connection.endpoint, index);
    if (hello.entity_id !== null) this.fetchSchedule(connection);
    else this.applySchedule(++this.fetchesStarted, { checks: [] });
    void this.updater?.check(connection, false, hello.channel);
    this.poster.pump();
  }

  private fetchSchedule(connection: AgentConnection): void {
    if (this.stopped) return;
    const fetch = ++this.fetchesStarted;
    connection.request('check_schedule.get', {}).then(
      (result) => {
        let schedule: ScheduleResult;
        try {
          schedule = scheduleResult(result);
        } catch (error) {
          // The whole answer is refused: the schedule running now stays.
          this.options.logger.warn({ endpoint: connection.name, code: codeOf(error), field: isStrataError(error) ? error.details.field : undefined }, 'check schedule answer invalid; keeping the current schedule');
          return;
        }
        this.applySchedule(fetch, schedule);
      },
      (error: unknown) => this.options.logger.warn({ endpoint: connection.name, code: codeOf(error) }, 'check schedule fetch failed'),
    );
  }

  private applySchedule(fetch: number, schedule: ScheduleResult): void {
    if (this.stopped || fetch < this.fetchApplied) return;
    this.fetchApplied = fetch;
    this.schedules += 1;
    this.options.logger.info({ checks: schedule.checks.length }, 'check schedule applied');
    this.loop.setSchedule(schedule.checks);
  }

  private armUpdateTimer(): void {
    this.updateTimer = this.options.scheduler.setTimeout(() => {
      this.updateTimer = undefined;
      if (this.stopped) return;
      const connection = this.connections.find((c) => c.ready);
      if (connection !== undefined) void this.updater?.check(connection, true);
      this.armUpdateTimer();
    }, AGENT_UPDATE_CHECK_INTERVAL_MS);
  }
}
