// Owns the SQL of the notification outbox (mon_outbox) and its attempt history (mon_delivery_attempt); the row shapes are in outbox-rows.ts.
import type Database from 'better-sqlite3';
import {
  parseEvent,
  toAttempt,
  toItem,
  UNREADABLE_EVENT_ERROR,
  type AttemptRecord,
  type AttemptResult,
  type DeliveryItem,
  type DeliveryKey,
  type DeliveryRow,
  type DeliveryStatus,
  type NewDelivery,
  type RawAttempt,
  type RawDelivery,
} from './outbox-rows.js';

export { DELIVERY_STATUSES, UNREADABLE_EVENT_ERROR } from './outbox-rows.js';
export type { AttemptOutcome, AttemptRecord, AttemptResult, DeliveryItem, DeliveryKey, DeliveryRow, DeliveryStatus, NewDelivery } from './outbox-rows.js';

const ITEM = 'tenant, id, notification_id, entity_id, alarm_id, check_id, state, status, attempts, retry_from, next_attempt_ms, last_error, created_ms, updated_ms';
// The literal status 'pending' matches the partial indexes mon_outbox_due and mon_outbox_age; the scans
// that walk them in order name them (INDEXED BY): without statistics SQLite would rather take the
// status index and sort every pending row.
const DUE = "status = 'pending' AND claimed_ms IS NULL";

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO mon_outbox (tenant, id, notification_id, entity_id, alarm_id, check_id, state, event, status, attempts, retry_from, next_attempt_ms, claimed_ms, last_error, created_ms, updated_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, 0, ?, NULL, NULL, ?, ?)`,
    ),
    due: db.prepare<[number, number], RawDelivery>(`SELECT ${ITEM}, event FROM mon_outbox INDEXED BY mon_outbox_due WHERE ${DUE} AND next_attempt_ms <= ? ORDER BY next_attempt_ms, rowid LIMIT ?`),
    claim: db.prepare<[number, string, string]>(`UPDATE mon_outbox SET claimed_ms = ? WHERE tenant = ? AND id = ? AND ${DUE}`),
    release: db.prepare<[string, string]>("UPDATE mon_outbox SET claimed_ms = NULL WHERE tenant = ? AND id = ? AND status = 'pending'"),
    releaseAll: db.prepare("UPDATE mon_outbox SET claimed_ms = NULL WHERE status = 'pending' AND claimed_ms IS NOT NULL"),
    nextDue: db.prepare<[], { next_attempt_ms: number }>(`SELECT next_attempt_ms FROM mon_outbox INDEXED BY mon_outbox_due WHERE ${DUE} ORDER BY next_attempt_ms LIMIT 1`),
    finish: db.prepare<[string, number, string | null, number, string, string]>(
      'UPDATE mon_outbox SET status = ?, attempts = attempts + 1, next_attempt_ms = ?, claimed_ms = NULL, last_error = ?, updated_ms = ? WHERE tenant = ? AND id = ?',
    ),
    addAttempt: db.prepare<[string, string, number, string, number, number, string, string | null]>(
      'INSERT INTO mon_delivery_attempt (tenant, outbox_id, attempt, txn_id, started_ms, duration_ms, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    one: db.prepare<[string, string], RawDelivery>(`SELECT ${ITEM} FROM mon_outbox WHERE tenant = ? AND id = ?`),
    page: db.prepare<[string, string, number], RawDelivery>(`SELECT ${ITEM} FROM mon_outbox WHERE tenant = ? AND id >= ? ORDER BY id LIMIT ?`),
    pageOfStatus: db.prepare<[string, string, string, number], RawDelivery>(
      `SELECT ${ITEM} FROM mon_outbox WHERE tenant = ? AND status = ? AND id >= ? ORDER BY id LIMIT ?`,
    ),
    // The latest `limit` attempts, returned oldest first.
    attempts: db.prepare<[string, string, number], RawAttempt>(
      `SELECT * FROM (SELECT attempt, txn_id, started_ms, duration_ms, outcome, detail FROM mon_delivery_attempt
        WHERE tenant = ? AND outbox_id = ? ORDER BY attempt DESC LIMIT ?) ORDER BY attempt`,
    ),
    retry: db.prepare<[number, number, string, string]>(
      "UPDATE mon_outbox SET status = 'pending', retry_from = attempts, next_attempt_ms = ?, claimed_ms = NULL, updated_ms = ? WHERE tenant = ? AND id = ? AND status = 'dead'",
    ),
    countPending: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM mon_outbox WHERE status = 'pending'"),
    countOf: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM mon_outbox WHERE status = ?'),
    depth: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM mon_outbox WHERE status = 'pending' LIMIT ?)"),
    oldestPending: db.prepare<[], { created_ms: number }>("SELECT created_ms FROM mon_outbox INDEXED BY mon_outbox_age WHERE status = 'pending' ORDER BY created_ms LIMIT 1"),
    finishedBefore: db.prepare<[number, number, number], DeliveryKey>(
      `SELECT tenant, id FROM mon_outbox WHERE status = 'delivered' AND updated_ms < ?
       UNION ALL SELECT tenant, id FROM mon_outbox WHERE status = 'dead' AND updated_ms < ? LIMIT ?`,
    ),
    expiring: db.prepare<[number, number], DeliveryKey>(`SELECT tenant, id FROM mon_outbox INDEXED BY mon_outbox_age WHERE ${DUE} AND created_ms < ? ORDER BY created_ms LIMIT ?`),
    expire: db.prepare<[string, number, string, string]>(
      `UPDATE mon_outbox SET status = 'dead', last_error = ?, updated_ms = ? WHERE tenant = ? AND id = ? AND ${DUE}`,
    ),
    deleteRow: db.prepare<[string, string]>('DELETE FROM mon_outbox WHERE tenant = ? AND id = ?'),
    deleteAttempts: db.prepare<[string, string]>('DELETE FROM mon_delivery_attempt WHERE tenant = ? AND outbox_id = ?'),
  };
}

/** Prepared statements over the outbox tables of monitoring.sqlite; every method is synchronous. */
export class OutboxStore {
  private readonly s: ReturnType<typeof prepare>;

  constructor(readonly db: Database.Database) {
    this.s = prepare(db);
  }

  /** Inserts a pending delivery due at once. */
  insert(tenant: string, row: NewDelivery): void {
    const { id, notificationId, entityId, alarmId, checkId, state, event, nowMs } = row;
    this.s.insert.run(tenant, id, notificationId, entityId, alarmId, checkId, state, JSON.stringify(event), nowMs, nowMs, nowMs);
  }

  /**
   * Claims up to `limit` unclaimed pending deliveries due at `nowMs`, soonest due first, in one
   * transaction. A row whose stored event does not parse is made dead instead, so it cannot stop
   * the rows behind it.
   */
  claimDue(nowMs: number, limit: number): DeliveryRow[] {
    return this.db.transaction(() => {
      const claimed: DeliveryRow[] = [];
      for (const row of this.s.due.all(nowMs, limit)) {
        const event = parseEvent(row.event);
        if (event === undefined) {
          this.s.expire.run(UNREADABLE_EVENT_ERROR, nowMs, row.tenant, row.id);
          continue;
        }
        this.s.claim.run(nowMs, row.tenant, row.id);
        claimed.push({ ...toItem(row), event });
      }
      return claimed;
    })();
  }

  /** Makes a claimed delivery claimable again without recording an attempt (an attempt cut short by stop). */
  release(key: DeliveryKey): void {
    this.s.release.run(key.tenant, key.id);
  }

  /** Releases every claim: at start nothing is in flight, so claims left by a crash or a stop are void. Returns how many. */
  releaseAll(): number {
    return this.s.releaseAll.run().changes;
  }

  /** When the soonest unclaimed pending delivery is due, or undefined when none is pending. */
  nextDueMs(): number | undefined {
    return this.s.nextDue.get()?.next_attempt_ms;
  }

  /** Records an attempt and its effect on the delivery in one transaction (the claim ends). */
  recordAttempt(key: DeliveryKey, attempt: AttemptRecord, result: AttemptResult): void {
    this.db.transaction(() => {
      this.s.addAttempt.run(key.tenant, key.id, attempt.attempt, attempt.txnId, attempt.startedMs, attempt.durationMs, attempt.outcome, attempt.detail);
      this.s.finish.run(result.status, result.nextAttemptMs, result.lastError, result.nowMs, key.tenant, key.id);
    })();
  }

  /** One delivery of the tenant, or undefined. */
  item(tenant: string, id: string): DeliveryItem | undefined {
    const row = this.s.one.get(tenant, id);
    return row === undefined ? undefined : toItem(row);
  }

  /** Up to `limit` deliveries of the tenant from id `marker` on, by id, optionally of one status. */
  page(tenant: string, marker: string, limit: number, status?: DeliveryStatus): DeliveryItem[] {
    const rows = status === undefined ? this.s.page.all(tenant, marker, limit) : this.s.pageOfStatus.all(tenant, status, marker, limit);
    return rows.map(toItem);
  }

  /** The latest `limit` attempts of a delivery, oldest first. */
  attempts(tenant: string, id: string, limit: number): AttemptRecord[] {
    return this.s.attempts.all(tenant, id, limit).map(toAttempt);
  }

  /** Makes a dead delivery pending and due at `nowMs` with a fresh attempt budget; false when it is not dead. */
  retry(tenant: string, id: string, nowMs: number): boolean {
    return this.s.retry.run(nowMs, nowMs, tenant, id).changes === 1;
  }

  /** Deliveries per status, all tenants. */
  counts(): Record<DeliveryStatus, number> {
    return {
      pending: this.s.countPending.get()?.n ?? 0,
      delivered: this.s.countOf.get('delivered')?.n ?? 0,
      dead: this.s.countOf.get('dead')?.n ?? 0,
    };
  }

  /** Pending deliveries, counted up to `bound` (a bounded scan). */
  pendingDepth(bound: number): number {
    return this.s.depth.get(bound)?.n ?? 0;
  }

  /** When the oldest pending delivery was enqueued, or undefined when none is pending. */
  oldestPendingMs(): number | undefined {
    return this.s.oldestPending.get()?.created_ms;
  }

  /** Deletes up to `limit` delivered or dead deliveries last changed before `beforeMs`, with their attempts. Returns how many. */
  pruneFinished(beforeMs: number, limit: number): number {
    return this.db.transaction(() => {
      const keys = this.s.finishedBefore.all(beforeMs, beforeMs, limit);
      for (const key of keys) {
        this.s.deleteAttempts.run(key.tenant, key.id);
        this.s.deleteRow.run(key.tenant, key.id);
      }
      return keys.length;
    })();
  }

  /** Makes up to `limit` unclaimed pending deliveries enqueued before `beforeMs` dead with `error`. Returns them. */
  expirePending(beforeMs: number, limit: number, error: string, nowMs: number): DeliveryKey[] {
    return this.db.transaction(() => {
      const keys = this.s.expiring.all(beforeMs, limit);
      for (const key of keys) this.s.expire.run(error, nowMs, key.tenant, key.id);
      return keys;
    })();
  }
}
