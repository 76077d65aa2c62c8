// Owns the monitoring service's composition: one store, the clock, the zones, and the services over them.
import type { Clock } from '../core/clock.js';
import type { Store } from '../store-types.js';
import { AccountLimits, type ResourceLimits } from './account/account-limits.js';
import { AccountService } from './account/account-service.js';
import { HostInfoBroker } from './agent-host-info.js';
import { AuditService } from './audits/audit-service.js';
import { NotificationHistory } from './history/notification-history.js';
import { SuppressionService } from './suppressions/suppression-service.js';
import { AgentService } from './agent-service.js';
import { ChangeFeed } from './change-feed.js';
import { ChangelogService } from './changelog-service.js';
import { listCheckMetrics, type CheckMetric } from './check-metrics.js';
import { EntityService } from './entity-service.js';
import { MonitoringStore } from './monitoring-store.js';
import { resolveZones, type MonitoringZone } from './monitoring-zones.js';
import { NotificationService } from './notification-service.js';
import type { Page, PageRequest } from './paging.js';
import { SecretBox } from './secret-box.js';
import { loadTokenKey } from './token-key.js';

/** Options of openMonitoring. */
export interface MonitoringOptions {
  /** Data directory (monitoring.sqlite and monitoring.key go there); undefined keeps everything in memory. */
  readonly dir: string | undefined;
  readonly clock: Clock;
  /** Monitoring zones remote checks may poll from (default: three). */
  readonly zones?: readonly MonitoringZone[];
  /** Account resource limits over the defaults (`--account-limits`). */
  readonly limits?: Partial<ResourceLimits>;
  /** How long the notification history (and the suppression logs) are kept (`--history-retention`). */
  readonly historyRetentionMs?: number;
  /** How long audit records are kept (`--audit-retention`). */
  readonly auditRetentionMs?: number;
}

/** The monitoring API's service: entities, checks, alarms, notifications, plans, agents, changelogs, zones. */
export class MonitoringService {
  /** The clock every time in this service comes from (agent retention, changelog windows, created_at). */
  readonly clock: Clock;
  /** Configured monitoring zones, sorted by id. */
  readonly zones: readonly MonitoringZone[];
  /** Entities and their checks and alarms. */
  readonly entities: EntityService;
  /** Notifications and notification plans. */
  readonly notifications: NotificationService;
  /** Agents, agent connections and agent tokens. */
  readonly agents: AgentService;
  /** Alarm changelogs. */
  readonly changelogs: ChangelogService;
  /** Committed changes of entities, checks and alarms, for the runtime's caches. */
  readonly changes = new ChangeFeed();
  /** The monitoring file: the runtime's table stores (alarm states, outbox, account) live in it too. */
  readonly store: MonitoringStore;
  /** Account settings (technical contacts, webhook token) of each tenant, and what deliveries need of them. */
  readonly account: AccountService;
  /** Account resource limits and usage. */
  readonly limits: AccountLimits;
  /** Maintenance suppressions and their logs. */
  readonly suppressions: SuppressionService;
  /** The notification history of alarm changes. */
  readonly history: NotificationHistory;
  /** The audit trail of changing requests. */
  readonly audits: AuditService;
  /** Live host-info requests to connected agents (the agent endpoint attaches itself). */
  readonly hostInfo = new HostInfoBroker();

  constructor(options: MonitoringOptions) {
    this.zones = resolveZones(options.zones);
    this.clock = options.clock;
    this.store = new MonitoringStore(options.dir);
    const deps = { store: this.store, clock: options.clock };
    this.limits = new AccountLimits({ ...deps, ...(options.limits !== undefined ? { limits: options.limits } : {}) });
    this.suppressions = new SuppressionService({ ...deps, limits: this.limits });
    this.history = new NotificationHistory({ ...deps, ...(options.historyRetentionMs !== undefined ? { retentionMs: options.historyRetentionMs } : {}) });
    this.audits = new AuditService({ ...deps, ...(options.auditRetentionMs !== undefined ? { retentionMs: options.auditRetentionMs } : {}) });
    // One server key, two independent uses: agent token values (HMAC) and encrypting check and
    // notification secrets (HKDF-derived key).
    const serverKey = loadTokenKey(options.dir);
    const secrets = new SecretBox(serverKey);
    this.notifications = new NotificationService({ ...deps, secrets, limits: this.limits });
    const ensureDefaults = (tenant: string): void => this.notifications.ensureDefaults(tenant);
    this.entities = new EntityService({ ...deps, zones: this.zones, plans: this.notifications.plans, secrets, changes: this.changes, ensureDefaults, limits: this.limits });
    this.account = new AccountService({ ...deps, secrets });
    this.agents = new AgentService(this.store, options.clock, serverKey);
    this.changelogs = new ChangelogService(this.store, options.clock);
    // Files written before check or notification secrets were encrypted hold them in plaintext:
    // encrypt them on open, and checkpoint at once so the main file keeps no page with the plaintext.
    const rewritten = this.entities.encryptStoredSecrets() + this.notifications.encryptStoredSecrets();
    if (rewritten > 0) this.store.checkpoint();
  }

  /** Operation 5: a page of the metrics a check has produced (MONITORING_PARENT_NOT_FOUND or MONITORING_OBJECT_NOT_FOUND when the entity or check is missing). */
  async checkMetrics(engine: Store, tenant: string, entityId: string, checkId: string, page: PageRequest): Promise<Page<CheckMetric>> {
    this.entities.check(tenant, entityId, checkId);
    return listCheckMetrics(engine, this.store.changelogs, { tenant, entityId, checkId, nowMs: this.clock.now() }, page);
  }

  /** Declares the one-letter types of a check's metrics (the check runner and agent endpoint know them). */
  declareMetricTypes(tenant: string, entityId: string, checkId: string, types: Readonly<Record<string, string>>): void {
    this.entities.check(tenant, entityId, checkId);
    this.store.transaction(() => {
      for (const [name, type] of Object.entries(types)) this.store.changelogs.putMetricType(tenant, entityId, checkId, name, type);
    });
  }

  /** Closes the monitoring file. */
  close(): void {
    this.store.close();
  }
}

/** Opens the monitoring service over `<dir>/monitoring.sqlite`. */
export function openMonitoring(options: MonitoringOptions): MonitoringService {
  return new MonitoringService(options);
}
