// Owns the running agent: one connection per endpoint, the one schedule they share, result posting round-robin, update checks.
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import { AGENT_BUFFER_RESULTS_MAX, AGENT_POSTS_IN_FLIGHT_MAX, AGENT_UPDATE_CHECK_INTERVAL_MS } from '../agent-limits.js';
import type { Collector } from '../collectors/collector-registry.js';
import { scheduleResult } from '../protocol/method-params.js';
import type { AgentFeature, HelloResult, MetricsPostParams, ScheduleResult } from '../protocol/messages.js';
import type { EndpointAddress } from './agent-config.js';
import type { AgentLogger, AgentScheduler, RandomSource, TimerHandle } from './agent-deps.js';
import { AgentConnection, type AgentConnectionEvents, type AgentConnectionStatus } from './agent-connection.js';
import { CheckLoop, type CheckLoopStatus } from './check-loop.js';
import { ResultBuffer } from './result-buffer.js';
import { AgentUpdater, type AgentUpdateSettings } from './agent-updater.js';

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

/** The agent's state and counters. */
export interface AgentFleetStatus {
  readonly connections: readonly AgentConnectionStatus[];
  readonly checks: CheckLoopStatus;
  /** Results waiting to be posted. */
  readonly buffered: number;
  /** Results dropped because the buffer was full. */
  readonly dropped: number;
  /** Results the endpoint accepted. */
  readonly posted: number;
  /** Results the endpoint answered with a 400 (not retried). */
  readonly refused: number;
  /** Posts that failed in transit and went back to the buffer's front. */
  readonly requeued: number;
  /** Schedules fetched and applied. */
  readonly schedules: number;
  readonly bundleVersion: string;
  /** The newest staged update (not run), null with updates off. */
  readonly stagedVersion: string | null;
}

/**
 * The agent: one AgentConnection per endpoint; one schedule (the latest fetched over any of them, on hello when the
 * endpoint names an entity and on check_schedule.changed) run by one CheckLoop; its results queue in one bounded
 * ResultBuffer and each is posted once, over the next ready connection in turn (AGENT_POSTS_IN_FLIGHT_MAX per
 * connection); a post lost in transit goes back to the front, one the endpoint refuses with 400 is dropped and counted.
 * Nothing is posted while no connection is ready.
 */
export class AgentFleet {
  private readonly connections: AgentConnection[];
  private readonly loop: CheckLoop;
  private readonly buffer: ResultBuffer<MetricsPostParams>;
  private readonly inFlight = new Map<AgentConnection, number>();
  private readonly updater: AgentUpdater | undefined;
  private cursor = -1;
  /** Schedule fetches started; the answer of an older one than the last applied is ignored. */
  private fetchesStarted = 0;
  private fetchApplied = 0;
  private counts = { posted: 0, refused: 0, requeued: 0, schedules: 0 };
  private updateTimer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly options: AgentFleetOptions) {
    this.buffer = new ResultBuffer<MetricsPostParams>(options.bufferResultsMax ?? AGENT_BUFFER_RESULTS_MAX);
    this.loop = new CheckLoop({ ...options, onResult: (result) => this.enqueue(result) });
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
    await Promise.all(this.connections.map((connection) => connection.stop()));
  }

  /** The agent's state and counters now. */
  status(): AgentFleetStatus {
    return {
      connections: this.connections.map((connection) => connection.status()),
      checks: this.loop.status(),
      buffered: this.buffer.size,
      dropped: this.buffer.dropped,
      ...this.counts,
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
    this.pump();
  }

  private fetchSchedule(connection: AgentConnection): void {
    if (this.stopped) return;
    const fetch = ++this.fetchesStarted;
    connection.request('check_schedule.get', {}).then(
      (result) => this.applySchedule(fetch, scheduleResult(result)),
      (error: unknown) => this.options.logger.warn({ endpoint: connection.name, code: isStrataError(error) ? error.code : 'unknown' }, 'check schedule fetch failed'),
    ).catch((error: unknown) => this.options.logger.warn({ endpoint: connection.name, code: isStrataError(error) ? error.code : 'unknown' }, 'check schedule answer invalid'));
  }

  private applySchedule(fetch: number, schedule: ScheduleResult): void {
    if (this.stopped || fetch < this.fetchApplied) return;
    this.fetchApplied = fetch;
    this.counts.schedules += 1;
    this.options.logger.info({ checks: schedule.checks.length }, 'check schedule applied');
    this.loop.setSchedule(schedule.checks);
  }

  private enqueue(result: MetricsPostParams): void {
    const droppedBefore = this.buffer.dropped;
    this.buffer.push(result);
    if (this.buffer.dropped !== droppedBefore) this.options.logger.debug({ dropped: this.buffer.dropped }, 'result buffer full; oldest result dropped');
    this.pump();
  }

  /** The next ready connection after the last one used that can take one more post, or undefined. */
  private nextConnection(): AgentConnection | undefined {
    for (let step = 1; step <= this.connections.length; step += 1) {
      const index = (this.cursor + step) % this.connections.length;
      const connection = this.connections[index] as AgentConnection;
      if (connection.ready && (this.inFlight.get(connection) ?? 0) < AGENT_POSTS_IN_FLIGHT_MAX) {
        this.cursor = index;
        return connection;
      }
    }
    return undefined;
  }

  private pump(): void {
    while (!this.stopped && this.buffer.size > 0) {
      const connection = this.nextConnection();
      if (connection === undefined) return;
      this.post(connection, this.buffer.shift() as MetricsPostParams);
    }
  }

  private post(connection: AgentConnection, result: MetricsPostParams): void {
    this.inFlight.set(connection, (this.inFlight.get(connection) ?? 0) + 1);
    const settle = (): void => {
      this.inFlight.set(connection, (this.inFlight.get(connection) ?? 1) - 1);
    };
    connection.request('check_metrics.post', result).then(
      () => {
        settle();
        this.counts.posted += 1;
        this.pump();
      },
      (error: unknown) => {
        settle();
        if (isStrataError(error) && error.code === 'AGENT_REQUEST_REFUSED' && error.details.code === 400) {
          this.counts.refused += 1;
          this.options.logger.warn({ checkId: result.check_id, endpoint: connection.name, reason: error.details.message }, 'check result refused by the endpoint');
        } else {
          this.counts.requeued += 1;
          this.buffer.requeue(result);
        }
        this.pump();
      },
    );
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
