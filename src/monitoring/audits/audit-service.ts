// Owns the audit trail: one record per changing request of the monitoring API, secrets redacted, read as a time series and kept for the audit retention.
import type { Clock } from '../../core/clock.js';
import { AUDIT_RETENTION_MS_DEFAULT, AUDIT_RETENTION_MS_MAX, AUDIT_RETENTION_MS_MIN, TIME_SERIES_WINDOW_MS_DEFAULT } from '../monitoring-limits.js';
import type { MonitoringStore } from '../monitoring-store.js';
import type { Page } from '../paging.js';
import { resolveRetention, type RetentionRange } from '../retention-rule.js';
import { resolveWindow, seriesPage, type TimeSeriesRequest, type TimeWindow } from '../time-series.js';
import { auditRow, type AuditInput, type AuditRow } from './audit-record.js';
import { AuditStore } from './audit-store.js';

/** What the audit trail is built from. */
export interface AuditServiceDeps {
  readonly store: MonitoringStore;
  readonly clock: Clock;
  /** How long records are kept (AUDIT_RETENTION_MS_DEFAULT). */
  readonly retentionMs?: number;
}

/** The audit retentions accepted (the shared retention rule's range for audits). */
export const AUDIT_RETENTION: RetentionRange = { option: 'auditRetentionMs', defaultMs: AUDIT_RETENTION_MS_DEFAULT, minMs: AUDIT_RETENTION_MS_MIN, maxMs: AUDIT_RETENTION_MS_MAX };

/** The audit retention in force (resolveRetention over AUDIT_RETENTION); CONFIG_INVALID naming auditRetentionMs outside AUDIT_RETENTION_MS_MIN..MAX. */
export function resolveAuditRetention(retentionMs: number | undefined): number {
  return resolveRetention(retentionMs, AUDIT_RETENTION);
}

/** The audit trail of every tenant. */
export class AuditService {
  /** How long records are kept: the runtime's upkeep prunes records older than this. */
  readonly retentionMs: number;
  private readonly audits: AuditStore;

  constructor(private readonly deps: AuditServiceDeps) {
    this.retentionMs = resolveAuditRetention(deps.retentionMs);
    this.audits = new AuditStore(deps.store.db);
  }

  /** Records an answered request of the tenant now; returns the record's id. */
  record(tenant: string, input: AuditInput): string {
    const row = auditRow(input, this.deps.clock.now());
    this.audits.append(tenant, row);
    return row.id;
  }

  /** The window a list request covers: `to` defaults to just after now, `from` to TIME_SERIES_WINDOW_MS_DEFAULT (7 days) before `to`. */
  window(request: Pick<TimeSeriesRequest, 'fromMs' | 'toMs'>): TimeWindow {
    return resolveWindow(request, this.deps.clock.now(), TIME_SERIES_WINDOW_MS_DEFAULT);
  }

  /** A page of the tenant's records in the window, oldest first; a marker naming no record of the tenant yields an empty page. */
  list(tenant: string, request: TimeSeriesRequest): Page<AuditRow> {
    return seriesPage(request, this.window(request), (id) => this.audits.record(tenant, id), (query) => this.audits.page(tenant, query));
  }

  /** Deletes at most `max` records of any tenant older than `beforeMs` (the upkeep's bounded step); returns how many it deleted. */
  prune(beforeMs: number, max: number): number {
    return this.audits.prune(beforeMs, max);
  }
}
