// Owns materializing a tenant's default notification and plan in monitoring.sqlite: once, idempotently, cheaply on the hot path.
import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { DEFAULTS_ENSURED_TENANTS_MAX } from '../monitoring-limits.js';
import { DEFAULT_NOTIFICATION_DOC, DEFAULT_NOTIFICATION_ID, DEFAULT_PLAN_DOC, DEFAULT_PLAN_ID } from './default-objects.js';

/**
 * Inserts the default notification and plan of a tenant where missing (INSERT OR IGNORE, so a
 * default the tenant has since updated stays as it is), with the plan's members recorded, so
 * the rule "a plan's notifications cannot be deleted" holds for it too. Tenants whose defaults a
 * committed transaction wrote are remembered, so later calls cost one Set lookup.
 */
export class DefaultObjectsStore {
  /** Tenants whose defaults are known to be committed; emptied when DEFAULTS_ENSURED_TENANTS_MAX is reached. */
  private readonly ensured = new Set<string>();
  private readonly insertNotification: Database.Statement;
  private readonly insertPlan: Database.Statement;
  private readonly insertMember: Database.Statement;
  private readonly notificationJson = JSON.stringify(DEFAULT_NOTIFICATION_DOC);
  private readonly planJson = JSON.stringify(DEFAULT_PLAN_DOC);

  constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
  ) {
    this.insertNotification = db.prepare('INSERT OR IGNORE INTO mon_notification (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?)');
    this.insertPlan = db.prepare('INSERT OR IGNORE INTO mon_plan (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?)');
    this.insertMember = db.prepare('INSERT OR IGNORE INTO mon_plan_member (tenant, notification_id, plan_id) VALUES (?, ?, ?)');
  }

  /** Makes sure the tenant's default notification and plan exist. */
  ensure(tenant: string): void {
    if (this.ensured.has(tenant)) return;
    // Inside a caller's transaction (an alarm's reference check) the rows join it: it may still
    // roll back, so the tenant is not remembered until a call commits on its own.
    if (this.db.inTransaction) {
      this.insert(tenant);
      return;
    }
    this.db.transaction(() => this.insert(tenant))();
    if (this.ensured.size >= DEFAULTS_ENSURED_TENANTS_MAX) this.ensured.clear();
    this.ensured.add(tenant);
  }

  private insert(tenant: string): void {
    const nowMs = this.clock.now();
    this.insertNotification.run(tenant, DEFAULT_NOTIFICATION_ID, this.notificationJson, nowMs, nowMs);
    // Members only with a new plan: an existing default plan may have been updated, and its
    // members were recorded by that update.
    if (this.insertPlan.run(tenant, DEFAULT_PLAN_ID, this.planJson, nowMs, nowMs).changes === 1) {
      for (const id of new Set([...DEFAULT_PLAN_DOC.critical_state, ...DEFAULT_PLAN_DOC.warning_state, ...DEFAULT_PLAN_DOC.ok_state])) {
        this.insertMember.run(tenant, id, DEFAULT_PLAN_ID);
      }
    }
  }
}
