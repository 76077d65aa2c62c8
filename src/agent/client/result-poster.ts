// Owns posting the agent's check results: the bounded buffer, round-robin over ready connections, pacing, in-flight counts, and what a failed post means.
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import {
  AGENT_BUFFER_RESULTS_MAX,
  AGENT_CLIENT_POSTS_PER_SECOND_MAX,
  AGENT_POST_ATTEMPTS_MAX,
  AGENT_POSTS_IN_FLIGHT_MAX,
  AGENT_RATE_LIMITED_BACKOFF_MS,
} from '../agent-limits.js';
import type { MetricsPostParams } from '../protocol/messages.js';
import type { AgentLogger, AgentScheduler, TimerHandle } from './agent-deps.js';
import { ResultBuffer } from './result-buffer.js';

/** What the poster needs of a connection (an AgentConnection): its name, whether it is ready, and requests over it. */
export interface PostConnection {
  readonly name: string;
  readonly ready: boolean;
  request(method: string, params: unknown): Promise<unknown>;
}

/** The connections to post over and the poster's dependencies. */
export interface ResultPosterOptions {
  /** Taken in turn, in this order. */
  readonly connections: readonly PostConnection[];
  readonly clock: Clock;
  readonly scheduler: AgentScheduler;
  readonly logger: AgentLogger;
  /** Results buffered at most (AGENT_BUFFER_RESULTS_MAX). */
  readonly bufferResultsMax?: number;
}

/** The poster's counters (AgentFleetStatus carries them). */
export interface ResultPosterStatus {
  /** Results waiting to be posted. */
  readonly buffered: number;
  /** Results dropped because the buffer was full. */
  readonly dropped: number;
  /** Results the endpoint accepted. */
  readonly posted: number;
  /** Results the endpoint answered with a 400 (not retried). */
  readonly refused: number;
  /** Failed posts (lost with their connection, refused other than 400 such as AGENT_BUSY, or refused AGENT_RATE_LIMITED) that went back to the buffer's front. */
  readonly requeued: number;
  /** Results dropped after AGENT_POST_ATTEMPTS_MAX failed posts. */
  readonly abandoned: number;
  /** Results dropped because their post is longer than a protocol line may be (AGENT_LINE_TOO_LONG: never sent). */
  readonly oversized: number;
}

/** A result waiting to be posted, with the posts of it made so far. */
interface QueuedResult {
  readonly result: MetricsPostParams;
  attempts: number;
}

/** Time (ms) between two posts over one connection: AGENT_CLIENT_POSTS_PER_SECOND_MAX a second. */
const POST_SPACING_MS = Math.ceil(1000 / AGENT_CLIENT_POSTS_PER_SECOND_MAX);

function codeOf(error: unknown): string {
  return isStrataError(error) ? error.code : 'unknown';
}

/**
 * Posts check results once each: they queue in one bounded ResultBuffer and go, front first, over the next ready
 * connection in turn that has fewer than AGENT_POSTS_IN_FLIGHT_MAX posts in flight and whose pacing allows one (one
 * post every ceil(1000 / AGENT_CLIENT_POSTS_PER_SECOND_MAX) ms per connection); when only pacing holds them back, a
 * timer comes back when it allows. A post the endpoint refuses with 400 is dropped (`refused`), and so is one too long
 * to send (`oversized`). A refusal of type AGENT_RATE_LIMITED (a 400 whose request was not served) is not an attempt:
 * the result goes back to the front (`requeued`) and that connection carries no post for AGENT_RATE_LIMITED_BACKOFF_MS.
 * Any other failure (the connection lost, a timeout, a refusal other than 400 such as AGENT_BUSY) puts the result back
 * at the front (`requeued`), but every such post counts as an attempt: after AGENT_POST_ATTEMPTS_MAX the result is
 * dropped (`abandoned`), so a result that always fails cannot block the results behind it nor close the connections on
 * every reconnect. Nothing is posted while no connection is ready; `pump` is called again when one becomes ready.
 */
export class ResultPoster {
  private readonly buffer: ResultBuffer<QueuedResult>;
  private readonly inFlight = new Map<PostConnection, number>();
  /** Earliest time (ms) each connection may carry its next post: posts are paced at AGENT_CLIENT_POSTS_PER_SECOND_MAX. */
  private readonly nextPostMs = new Map<PostConnection, number>();
  private pumpTimer: TimerHandle | undefined;
  /** When the pending pump timer fires (ms); a shorter wait replaces it. */
  private pumpAtMs = 0;
  private cursor = -1;
  private counts = { posted: 0, refused: 0, requeued: 0, abandoned: 0, oversized: 0 };
  private stopped = false;

  constructor(private readonly options: ResultPosterOptions) {
    this.buffer = new ResultBuffer<QueuedResult>(options.bufferResultsMax ?? AGENT_BUFFER_RESULTS_MAX);
  }

  /** Buffers a result (dropping and counting the oldest when full) and posts what may go now. */
  enqueue(result: MetricsPostParams): void {
    const droppedBefore = this.buffer.dropped;
    this.buffer.push({ result, attempts: 0 });
    if (this.buffer.dropped !== droppedBefore) this.options.logger.debug({ dropped: this.buffer.dropped }, 'result buffer full; oldest result dropped');
    this.pump();
  }

  /** Posts buffered results while a connection may take one; when only pacing holds them back, comes back when it allows. */
  pump(): void {
    while (!this.stopped && this.buffer.size > 0) {
      const nowMs = this.options.clock.now();
      const { connection, waitMs } = this.nextConnection(nowMs);
      if (connection === undefined) {
        // One timer, at the earliest time a ready connection's pacing allows a post: a shorter
        // wait (another connection) replaces a longer one (a rate-limited connection's hold).
        if (waitMs !== undefined && (this.pumpTimer === undefined || nowMs + waitMs < this.pumpAtMs)) {
          if (this.pumpTimer !== undefined) this.options.scheduler.clearTimeout(this.pumpTimer);
          this.pumpAtMs = nowMs + waitMs;
          this.pumpTimer = this.options.scheduler.setTimeout(() => {
            this.pumpTimer = undefined;
            this.pump();
          }, waitMs);
        }
        return;
      }
      this.nextPostMs.set(connection, Math.max(nowMs, this.nextPostMs.get(connection) ?? 0) + POST_SPACING_MS);
      this.post(connection, this.buffer.shift() as QueuedResult);
    }
  }

  /** Posts nothing more and cancels the pacing timer (buffered results are lost; posts in flight still settle and count). */
  stop(): void {
    this.stopped = true;
    if (this.pumpTimer !== undefined) this.options.scheduler.clearTimeout(this.pumpTimer);
    this.pumpTimer = undefined;
  }

  /** The buffer's size and the counters now. */
  status(): ResultPosterStatus {
    return { buffered: this.buffer.size, dropped: this.buffer.dropped, ...this.counts };
  }

  /**
   * The next ready connection after the last one used that can take one more post now, or
   * undefined; `waitMs` is then how long until a ready connection's pacing allows one (undefined
   * when none is ready or all are full).
   */
  private nextConnection(nowMs: number): { connection?: PostConnection; waitMs?: number } {
    const connections = this.options.connections;
    let waitMs: number | undefined;
    for (let step = 1; step <= connections.length; step += 1) {
      const index = (this.cursor + step) % connections.length;
      const connection = connections[index] as PostConnection;
      if (!connection.ready || (this.inFlight.get(connection) ?? 0) >= AGENT_POSTS_IN_FLIGHT_MAX) continue;
      const due = this.nextPostMs.get(connection) ?? 0;
      if (due <= nowMs) {
        this.cursor = index;
        return { connection };
      }
      waitMs = Math.min(waitMs ?? Infinity, due - nowMs);
    }
    return waitMs === undefined ? {} : { waitMs };
  }

  private post(connection: PostConnection, queued: QueuedResult): void {
    this.inFlight.set(connection, (this.inFlight.get(connection) ?? 0) + 1);
    queued.attempts += 1;
    const settle = (): void => {
      this.inFlight.set(connection, (this.inFlight.get(connection) ?? 1) - 1);
    };
    connection.request('check_metrics.post', queued.result).then(
      () => {
        settle();
        this.counts.posted += 1;
        this.pump();
      },
      (error: unknown) => {
        settle();
        this.postFailed(connection, queued, error);
        this.pump();
      },
    );
  }

  /** Drops a result refused with 400 or too long to send; requeues one refused AGENT_RATE_LIMITED (no attempt; the connection held), and any other failure until AGENT_POST_ATTEMPTS_MAX attempts. */
  private postFailed(connection: PostConnection, queued: QueuedResult, error: unknown): void {
    const log = { checkId: queued.result.check_id, endpoint: connection.name, code: codeOf(error), attempts: queued.attempts };
    if (isStrataError(error) && error.code === 'AGENT_REQUEST_REFUSED' && error.details.type === 'AGENT_RATE_LIMITED') {
      // Not served, so not an attempt: hold this connection's posts a while and try again.
      queued.attempts -= 1;
      this.counts.requeued += 1;
      this.buffer.requeue(queued);
      this.nextPostMs.set(connection, this.options.clock.now() + AGENT_RATE_LIMITED_BACKOFF_MS);
    } else if (isStrataError(error) && error.code === 'AGENT_REQUEST_REFUSED' && error.details.code === 400) {
      this.counts.refused += 1;
      this.options.logger.warn({ ...log, type: error.details.type, reason: error.details.message }, 'check result refused by the endpoint');
    } else if (isStrataError(error) && error.code === 'AGENT_LINE_TOO_LONG') {
      this.counts.oversized += 1;
      this.options.logger.warn(log, 'check result too long to post; dropped');
    } else if (queued.attempts >= AGENT_POST_ATTEMPTS_MAX) {
      this.counts.abandoned += 1;
      this.options.logger.warn({ ...log, type: isStrataError(error) ? error.details.type : undefined }, 'check result failed every post attempt; dropped');
    } else {
      this.counts.requeued += 1;
      this.buffer.requeue(queued);
    }
  }
}
