// Owns the notification outbox as the rest of monitoring sees it: enqueue inside the caller's transaction, dead letters, retry, and bounded upkeep.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import { notFound } from '../monitoring-errors.js';
import type { MonitoringStore } from '../monitoring-store.js';
import {
  DELIVERY_ATTEMPTS_SHOWN_MAX,
  OUTBOX_DEPTH_CHECK_EVERY,
  OUTBOX_FINISHED_RETENTION_MS,
  OUTBOX_PENDING_AGE_MAX_MS,
  OUTBOX_PENDING_MAX,
  OUTBOX_PRUNE_BATCH_MAX,
} from '../monitoring-limits.js';
import { pageOf, type Page, type PageRequest } from '../paging.js';
import type { AlarmEventPayload } from './channel-types.js';
import type { DeliveryLogger } from './delivery-config.js';
import { OutboxStore, type AttemptRecord, type DeliveryItem, type DeliveryStatus } from './outbox-store.js';

/** One notification of one alarm state change to deliver. */
export interface OutboxEntry {
  readonly notificationId: string;
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  /** The alarm's new state. */
  readonly state: string;
  /** The spec 6.1 payload (buildAlarmEvent); every attempt sends it as stored. */
  readonly event: AlarmEventPayload;
}

/** What the outbox needs: the monitoring connection, the clock, and a logger for depth warnings. */
export interface OutboxOptions {
  /** The monitoring connection (MonitoringService.store.db). */
  readonly db: MonitoringStore['db'];
  readonly clock: Clock;
  readonly logger?: DeliveryLogger;
  /**
   * How long delivered and dead rows (and their attempts) are kept: the runtime passes the
   * notification history's retention, so every delivery a history record names is still there to
   * show (OUTBOX_FINISHED_RETENTION_MS when left out).
   */
  readonly finishedRetentionMs?: number;
}

/** A delivery with its latest attempts. */
export interface DeliveryDetail {
  readonly item: DeliveryItem;
  readonly attempts: readonly AttemptRecord[];
}

/** What one maintenance step did. */
export interface OutboxUpkeep {
  /** Delivered and dead deliveries deleted past their retention (OutboxOptions.finishedRetentionMs). */
  readonly pruned: number;
  /** Pending deliveries made dead past OUTBOX_PENDING_AGE_MAX_MS. */
  readonly expired: number;
}

/** Prefix of delivery ids. */
const DELIVERY_ID_PREFIX = 'dl';
/** Width of the time in base 36: enough until the year 5188, so ids sort by time. */
const TIME_WIDTH = 9;
/** Width of the sequence within one millisecond in base 36. */
const SEQUENCE_WIDTH = 3;
/** Ids one millisecond holds before the next one's are used. */
const SEQUENCE_MAX = 36 ** SEQUENCE_WIDTH - 1;
/** Random bytes at the end (8 URL-safe characters), so ids of two outboxes over one file never collide. */
const RANDOM_BYTES = 6;

/**
 * Makes delivery ids: `dl`, the time in base 36, a sequence within the millisecond, then random
 * URL-safe characters. Each id sorts after the one before, even within a millisecond or when the
 * clock steps back, so id order is enqueue order.
 */
export class DeliveryIds {
  private lastMs = Number.NEGATIVE_INFINITY;
  private sequence = 0;

  /** The next id at `nowMs`. */
  next(nowMs: number): string {
    if (nowMs > this.lastMs) {
      this.lastMs = nowMs;
      this.sequence = 0;
    } else if (this.sequence < SEQUENCE_MAX) {
      this.sequence += 1;
    } else {
      this.lastMs += 1;
      this.sequence = 0;
    }
    const time = this.lastMs.toString(36).padStart(TIME_WIDTH, '0');
    const sequence = this.sequence.toString(36).padStart(SEQUENCE_WIDTH, '0');
    return `${DELIVERY_ID_PREFIX}${time}${sequence}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
  }
}

/** The last_error of a delivery that stayed pending too long. */
export const EXPIRED_ERROR = 'expired: still pending after OUTBOX_PENDING_AGE_MAX_MS';

/**
 * The durable outbox over mon_outbox. `enqueue` is a row insert, synchronous, meant to run inside
 * the transaction that records the alarm change; listeners (the deliverer's wake) are told at
 * once and only schedule work, so nothing is sent before that transaction commits.
 */
export class Outbox {
  /** The outbox's SQL; the deliverer claims and records attempts through it. */
  readonly store: OutboxStore;
  private readonly listeners = new Set<() => void>();
  private readonly ids = new DeliveryIds();
  private enqueuesSinceCheck = OUTBOX_DEPTH_CHECK_EVERY;
  private overDepth = false;
  private overDepthEnqueues = 0;

  constructor(private readonly options: OutboxOptions) {
    this.store = new OutboxStore(options.db);
  }

  /** Calls `listener` after each enqueue and retry (it must only schedule work); returns the unsubscribe. */
  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private ready(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * Records a delivery due now and returns its id. Over OUTBOX_PENDING_MAX pending it is still
   * recorded (an acknowledged alarm change is never dropped), counted and logged.
   */
  enqueue(tenant: string, entry: OutboxEntry): string {
    const nowMs = this.options.clock.now();
    const id = this.ids.next(nowMs);
    this.store.insert(tenant, { ...entry, id, nowMs });
    this.checkDepth(tenant);
    this.ready();
    return id;
  }

  /** Measures the depth once every OUTBOX_DEPTH_CHECK_EVERY enqueues (a count bounded by the limit), and counts enqueues made over it. */
  private checkDepth(tenant: string): void {
    this.enqueuesSinceCheck += 1;
    if (this.enqueuesSinceCheck >= OUTBOX_DEPTH_CHECK_EVERY) {
      this.enqueuesSinceCheck = 0;
      const over = this.store.pendingDepth(OUTBOX_PENDING_MAX + 1) > OUTBOX_PENDING_MAX;
      if (over) this.options.logger?.warn({ tenant, pendingMax: OUTBOX_PENDING_MAX }, 'notification outbox over its depth; deliveries are still recorded');
      this.overDepth = over;
    }
    if (this.overDepth) this.overDepthEnqueues += 1;
  }

  /** Enqueues recorded while the outbox was over OUTBOX_PENDING_MAX (since this instance was made). */
  get overDepthCount(): number {
    return this.overDepthEnqueues;
  }

  /** A page of the tenant's deliveries by id (enqueue order), optionally of one status. */
  list(tenant: string, page: PageRequest, status?: DeliveryStatus): Page<DeliveryItem> {
    return pageOf(this.store.page(tenant, page.marker ?? '', page.limit + 1, status), page.limit, (item) => item.id);
  }

  /** A delivery and its latest DELIVERY_ATTEMPTS_SHOWN_MAX attempts; MONITORING_OBJECT_NOT_FOUND when the tenant has none with this id. */
  delivery(tenant: string, id: string): DeliveryDetail {
    const item = this.store.item(tenant, id);
    if (item === undefined) throw notFound('Delivery', id);
    return { item, attempts: this.store.attempts(tenant, id, DELIVERY_ATTEMPTS_SHOWN_MAX) };
  }

  /** Makes a dead delivery pending and due now with a fresh attempt budget; MONITORING_DELIVERY_NOT_DEAD for other statuses. */
  retry(tenant: string, id: string): void {
    const done = this.options.db.transaction(() => {
      const item = this.store.item(tenant, id);
      if (item === undefined) throw notFound('Delivery', id);
      if (!this.store.retry(tenant, id, this.options.clock.now())) {
        throw new StrataError('MONITORING_DELIVERY_NOT_DEAD', `Delivery ${id} is ${item.status}; only a dead delivery can be retried`, { id, status: item.status });
      }
      return true;
    })();
    if (done) this.ready();
  }

  /** One bounded maintenance step: prunes finished deliveries past their retention and expires pending ones past their age. */
  upkeep(): OutboxUpkeep {
    const nowMs = this.options.clock.now();
    const pruned = this.store.pruneFinished(nowMs - (this.options.finishedRetentionMs ?? OUTBOX_FINISHED_RETENTION_MS), OUTBOX_PRUNE_BATCH_MAX);
    const expired = this.store.expirePending(nowMs - OUTBOX_PENDING_AGE_MAX_MS, OUTBOX_PRUNE_BATCH_MAX, EXPIRED_ERROR, nowMs);
    if (expired.length > 0) this.options.logger?.warn({ expired: expired.length, ids: expired.map((key) => key.id) }, 'notification deliveries expired before they could be sent');
    return { pruned, expired: expired.length };
  }
}
