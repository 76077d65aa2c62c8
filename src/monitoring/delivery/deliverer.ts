// Owns the delivery loop: claiming due outbox rows, attempting them through the channels with bounded concurrency, recording every attempt, retries and dead letters.
import PQueue from 'p-queue';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import {
  DELIVERY_CLAIM_BATCH_MAX,
  DELIVERY_POLL_INTERVAL_MS,
  DELIVERY_QUEUE_MAX,
  DELIVERY_SETTLE_GRACE_MS,
  DELIVERY_STOP_WAIT_MS_MAX,
  OUTBOX_PRUNE_BATCH_MAX,
  OUTBOX_PRUNE_INTERVAL_MS,
} from '../monitoring-limits.js';
import type { NotificationTypeId } from '../notification-types.js';
import type { NotificationDetails } from '../schemas/notification-details-schema.js';
import type { Channel, ChannelOutcome, DeliveryAccount, DeliveryJob } from './channel-types.js';
import type { DeliveryConfig, DeliveryLogger } from './delivery-config.js';
import { attemptVerdict, runAttempt } from './delivery-attempt.js';
import type { Outbox } from './outbox.js';
import type { DeliveryRow } from './outbox-store.js';

export type { DeliveryLogger } from './delivery-config.js';

/** A notification as delivery needs it, secrets in plaintext. */
export interface DeliveryNotification {
  readonly id: string;
  readonly label: string;
  readonly type: NotificationTypeId;
  readonly details: NotificationDetails;
}

/** What the deliverer works with. */
export interface DelivererDeps {
  readonly outbox: Outbox;
  readonly clock: Clock;
  readonly logger: DeliveryLogger;
  readonly config: DeliveryConfig;
  readonly channels: ReadonlyMap<NotificationTypeId, Channel>;
  /** The notification with its secrets, or undefined when it was deleted. */
  notification(tenant: string, id: string): DeliveryNotification | undefined;
  /** The tenant's delivery settings (technical contacts, webhook token). */
  account(tenant: string): DeliveryAccount;
  /** A new transaction id for one attempt. */
  newTxnId(): string;
  /** In [0, 1): the retry jitter (default Math.random). */
  random?(): number;
}

/** The outbox as /metrics shows it. */
export interface DeliveryStats {
  readonly pending: number;
  readonly delivered: number;
  readonly dead: number;
  /** Age of the oldest pending delivery (0 when none is pending). */
  readonly oldestPendingAgeMs: number;
  /** Enqueues recorded while the outbox was over OUTBOX_PENDING_MAX. */
  readonly overDepthEnqueues: number;
}

type Prepared = { readonly job: DeliveryJob; readonly channel: Channel } | { readonly outcome: ChannelOutcome; readonly type: string };

/**
 * Sends the outbox: one timer runs a turn that claims due rows (soonest first, at most
 * DELIVERY_CLAIM_BATCH_MAX, never more than DELIVERY_QUEUE_MAX claimed at once) and hands them to a
 * p-queue of `config.concurrency`; each attempt is recorded with its outcome. Rows stay in
 * SQLite throughout, so a restart resumes them (at least once).
 */
export class Deliverer {
  private readonly queue: PQueue;
  private readonly stopController = new AbortController();
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private claimed = 0;
  private nextUpkeepMs = Number.NEGATIVE_INFINITY;
  private unsubscribe: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: DelivererDeps) {
    this.queue = new PQueue({ concurrency: deps.config.concurrency });
  }

  /** Starts the loop: claims a crash or stop left are released, so those rows are due again at once. */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    const released = this.deps.outbox.store.releaseAll();
    if (released > 0) this.deps.logger.info({ released }, 'notification deliveries interrupted by a stop or crash are due again');
    this.unsubscribe = this.deps.outbox.onReady(() => this.wake());
    this.scheduleIn(0);
  }

  /** Runs a turn now (after an enqueue or a retry); a no-op unless running. */
  wake(): void {
    if (this.state === 'running') this.scheduleIn(0);
  }

  private scheduleIn(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.turn(), delayMs);
    this.timer.unref();
  }

  private turn(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.state !== 'running') return;
    let full = false;
    try {
      this.upkeep();
      const room = Math.min(DELIVERY_QUEUE_MAX - this.claimed, DELIVERY_CLAIM_BATCH_MAX);
      if (room > 0) {
        const rows = this.deps.outbox.store.claimDue(this.deps.clock.now(), room);
        for (const row of rows) this.submit(row);
        full = rows.length === room;
      }
      this.scheduleNext(full);
    } catch (error) {
      this.deps.logger.error({ error: isStrataError(error) ? error.code : String(error) }, 'notification delivery turn failed');
      this.scheduleIn(DELIVERY_POLL_INTERVAL_MS);
    }
  }

  /** The next turn: at once after a full claim, when the soonest row is due, and at least every poll interval. */
  private scheduleNext(full: boolean): void {
    if (full && this.claimed < DELIVERY_QUEUE_MAX) return this.scheduleIn(0);
    // With the queue full, finishing attempts wake the loop; until then only poll.
    const next = this.claimed >= DELIVERY_QUEUE_MAX ? undefined : this.deps.outbox.store.nextDueMs();
    const delayMs = next === undefined ? DELIVERY_POLL_INTERVAL_MS : Math.min(Math.max(next - this.deps.clock.now(), 0), DELIVERY_POLL_INTERVAL_MS);
    this.scheduleIn(delayMs);
  }

  /** Every OUTBOX_PRUNE_INTERVAL_MS a bounded pruning and expiry step; a step that found a full batch is followed by another next turn. */
  private upkeep(): void {
    const nowMs = this.deps.clock.now();
    if (nowMs < this.nextUpkeepMs) return;
    const done = this.deps.outbox.upkeep();
    const more = done.pruned >= OUTBOX_PRUNE_BATCH_MAX || done.expired >= OUTBOX_PRUNE_BATCH_MAX;
    this.nextUpkeepMs = more ? nowMs : nowMs + OUTBOX_PRUNE_INTERVAL_MS;
  }

  private submit(row: DeliveryRow): void {
    this.claimed += 1;
    this.queue
      .add(() => this.attempt(row))
      .catch((error: unknown) => this.deps.logger.error({ outboxId: row.id, tenant: row.tenant, error: isStrataError(error) ? error.code : String(error) }, 'notification delivery attempt could not be recorded'))
      .finally(() => {
        this.claimed -= 1;
        this.wake();
      });
  }

  /** The job of an attempt, or the outcome that makes it needless (notification deleted, no channel, no account). */
  private prepare(row: DeliveryRow, attempt: number, txnId: string): Prepared {
    let notification: DeliveryNotification | undefined;
    try {
      notification = this.deps.notification(row.tenant, row.notificationId);
    } catch (error) {
      return { outcome: { ok: false, retryable: true, error: `notification unreadable: ${isStrataError(error) ? error.code : 'error'}` }, type: 'unknown' };
    }
    if (notification === undefined) return { outcome: { ok: false, retryable: false, error: 'notification deleted' }, type: 'unknown' };
    const channel = this.deps.channels.get(notification.type);
    if (channel === undefined) return { outcome: { ok: false, retryable: false, error: `no channel delivers ${notification.type} notifications` }, type: notification.type };
    let account: DeliveryAccount;
    try {
      account = this.deps.account(row.tenant);
    } catch (error) {
      return { outcome: { ok: false, retryable: true, error: `account settings unreadable: ${isStrataError(error) ? error.code : 'error'}` }, type: notification.type };
    }
    const job: DeliveryJob = { outboxId: row.id, tenant: row.tenant, attempt, txnId, notification, event: row.event, account };
    return { job, channel };
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    if (this.state !== 'running' && this.state !== 'stopping') return;
    const attempt = row.attempts + 1;
    const txnId = this.deps.newTxnId();
    const startedMs = this.deps.clock.now();
    const prepared = this.prepare(row, attempt, txnId);
    const type = 'job' in prepared ? prepared.job.notification.type : prepared.type;
    const outcome = 'job' in prepared ? await runAttempt(prepared.channel, prepared.job, this.deps.config.attemptTimeoutMs, this.stopController.signal) : prepared.outcome;
    // Cut short by stop, or finished after stop returned: the row stays pending and is due at the next start.
    if (outcome === 'stopped' || this.isStopped()) return;
    const nowMs = this.deps.clock.now();
    const verdict = attemptVerdict(outcome, { roundAttempt: attempt - row.retryFrom, nowMs, random: (this.deps.random ?? Math.random)() }, this.deps.config);
    const durationMs = Math.max(0, nowMs - startedMs);
    this.deps.outbox.store.recordAttempt(
      row,
      { attempt, txnId, startedMs, durationMs, outcome: verdict.outcome, detail: verdict.detail },
      { status: verdict.status, nextAttemptMs: verdict.nextAttemptMs, lastError: verdict.lastError, nowMs },
    );
    const line = { txnId, outboxId: row.id, tenant: row.tenant, notificationId: row.notificationId, notificationType: type, attempt, outcome: verdict.outcome, durationMs };
    if (verdict.outcome === 'delivered') this.deps.logger.info(line, 'notification delivered');
    else if (verdict.outcome === 'failed') this.deps.logger.warn({ ...line, error: verdict.detail, nextAttemptMs: verdict.nextAttemptMs }, 'notification delivery failed; retrying');
    else this.deps.logger.error({ ...line, error: verdict.detail }, 'notification delivery is dead');
  }

  /** True once stop() has finished (a method, so the check after an await is not narrowed away). */
  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** Pending, delivered and dead counts and the oldest pending age, for /metrics. */
  stats(): DeliveryStats {
    const store = this.deps.outbox.store;
    const oldest = store.oldestPendingMs();
    return {
      ...store.counts(),
      oldestPendingAgeMs: oldest === undefined ? 0 : Math.max(0, this.deps.clock.now() - oldest),
      overDepthEnqueues: this.deps.outbox.overDepthCount,
    };
  }

  /**
   * Stops the loop: queued attempts are dropped, running ones get up to `waitMs` (default their
   * timeout plus DELIVERY_SETTLE_GRACE_MS, at most DELIVERY_STOP_WAIT_MS_MAX) and are then aborted;
   * their rows stay pending, due at the next start. Idempotent.
   */
  stop(waitMs?: number): Promise<void> {
    this.stopping ??= this.shutdown(waitMs);
    return this.stopping;
  }

  private async shutdown(asked: number | undefined): Promise<void> {
    if (this.state === 'idle') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.queue.clear();
    const waitMs = Math.min(DELIVERY_STOP_WAIT_MS_MAX, asked ?? this.deps.config.attemptTimeoutMs + DELIVERY_SETTLE_GRACE_MS);
    if (!(await settlesWithin(this.queue.onPendingZero(), waitMs))) {
      this.stopController.abort();
      await settlesWithin(this.queue.onPendingZero(), 2 * DELIVERY_SETTLE_GRACE_MS);
    }
    this.state = 'stopped';
    // Queued rows dropped above (and any attempt still stuck) keep their claims; release them now.
    if (this.deps.outbox.store.db.open) this.deps.outbox.store.releaseAll();
  }
}

/** True when `promise` settles within `waitMs`. */
async function settlesWithin(promise: Promise<unknown>, waitMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
