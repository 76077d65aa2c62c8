// Owns the world of the history tests: a monitoring service in memory on a ManualClock, an outbox over its file, and hand-made history records.
import { ManualClock } from '../../../src/core/clock.js';
import { Outbox } from '../../../src/monitoring/delivery/outbox.js';
import type { HistoryRecord } from '../../../src/monitoring/history/notification-history.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

/** Start of every test's time. */
export const NOW_MS = 1_790_000_000_000;

/** A record of alarm alA of entity enA on check chA at `timestampMs`, notified with no deliveries unless `extra` says otherwise. */
export function record(id: string, timestampMs: number, extra: Partial<HistoryRecord> = {}): HistoryRecord {
  return {
    id,
    timestampMs,
    entityId: 'enA',
    alarmId: 'alA',
    checkId: 'chA',
    planId: 'npA',
    state: 'CRITICAL',
    previousState: 'OK',
    status: 'notified',
    message: 'HTTP 503',
    txnId: `txn.${id}`,
    suppressions: null,
    notificationIds: [],
    outboxIds: [],
    ...extra,
  };
}

/** A monitoring service in memory and an outbox over it. */
export class HistoryWorld {
  readonly clock = new ManualClock(NOW_MS);
  readonly monitoring: MonitoringService;
  readonly outbox: Outbox;

  constructor(options: { historyRetentionMs?: number } = {}) {
    this.monitoring = openMonitoring({ dir: undefined, clock: this.clock, ...options });
    this.outbox = new Outbox({ db: this.monitoring.store.db, clock: this.clock });
  }

  /** Records `rows` for `tenant` in one transaction, as the alarm change does. */
  add(tenant: string, ...rows: HistoryRecord[]): void {
    this.monitoring.store.transaction(() => {
      for (const row of rows) this.monitoring.history.record(tenant, row);
    });
  }

  close(): void {
    this.monitoring.close();
  }
}
