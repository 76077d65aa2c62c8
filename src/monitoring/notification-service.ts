// Owns the rules around notifications and plans: plans name existing notifications; used ones cannot be deleted.
import type { StoredDoc } from './doc-store.js';
import { DocCollection, type CollectionDeps } from './doc-collection.js';
import { childrenExist, fieldError } from './monitoring-errors.js';
import { NOTIFICATIONS_PER_TENANT_MAX, PLANS_PER_TENANT_MAX } from './monitoring-limits.js';
import { PLAN_STATES, notificationDoc, planDoc, type NotificationDoc, type PlanDoc } from './notification-rules.js';
import type { Page, PageRequest } from './paging.js';
import type { NotificationCreate, NotificationUpdate } from './schemas/notification-schema.js';
import type { PlanCreate, PlanUpdate } from './schemas/plan-schema.js';

/** Notifications and notification plans of a tenant. */
export class NotificationService {
  private readonly notifications: DocCollection<NotificationDoc>;
  /** Plans, shared with the entity service (alarms name a plan). */
  readonly plans: DocCollection<PlanDoc>;

  constructor(private readonly deps: CollectionDeps) {
    this.notifications = new DocCollection(deps, { table: 'mon_notification', name: 'Notification', idKind: 'notification', scopeMax: NOTIFICATIONS_PER_TENANT_MAX });
    this.plans = new DocCollection(deps, { table: 'mon_plan', name: 'NotificationPlan', idKind: 'plan', scopeMax: PLANS_PER_TENANT_MAX });
  }

  private tx<T>(work: () => T): T {
    return this.deps.store.transaction(work);
  }

  /** Creates a notification from a body its schema has admitted; returns its id. */
  createNotification(tenant: string, body: NotificationCreate): string {
    const doc = notificationDoc(body);
    return this.tx(() => this.notifications.create({ tenant }, doc));
  }

  /** One notification. */
  notification(tenant: string, id: string): StoredDoc<NotificationDoc> {
    return this.notifications.get({ tenant }, id);
  }

  /** Updates a notification's fields. */
  updateNotification(tenant: string, id: string, body: NotificationUpdate): void {
    this.tx(() => this.notifications.replace({ tenant }, id, notificationDoc(body, this.notifications.get({ tenant }, id).doc)));
  }

  /** Deletes a notification no plan names. */
  deleteNotification(tenant: string, id: string): void {
    this.tx(() => {
      this.notifications.get({ tenant }, id);
      if (this.deps.store.docs.plansNaming(tenant, id) > 0) throw childrenExist('NotificationPlan', 'notification plans');
      this.notifications.remove({ tenant }, id);
    });
  }

  /** A page of notifications. */
  listNotifications(tenant: string, page: PageRequest): Page<StoredDoc<NotificationDoc>> {
    return this.notifications.list({ tenant }, page);
  }

  private checkMembers(tenant: string, doc: PlanDoc): string[] {
    const ids = new Set<string>();
    for (const state of PLAN_STATES) {
      for (const id of doc[state]) {
        if (this.notifications.find({ tenant }, id) === undefined) throw fieldError(state, `no notification ${id}`);
        ids.add(id);
      }
    }
    return [...ids];
  }

  /** Creates a plan from a body its schema has admitted; returns its id. */
  createPlan(tenant: string, body: PlanCreate): string {
    const doc = planDoc(body);
    return this.tx(() => {
      const members = this.checkMembers(tenant, doc);
      const id = this.plans.create({ tenant }, doc);
      this.deps.store.docs.setPlanMembers(tenant, id, members);
      return id;
    });
  }

  /** One plan. */
  plan(tenant: string, id: string): StoredDoc<PlanDoc> {
    return this.plans.get({ tenant }, id);
  }

  /** Updates a plan's fields. */
  updatePlan(tenant: string, id: string, body: PlanUpdate): void {
    this.tx(() => {
      const doc = planDoc(body, this.plans.get({ tenant }, id).doc);
      const members = this.checkMembers(tenant, doc);
      this.plans.replace({ tenant }, id, doc);
      this.deps.store.docs.setPlanMembers(tenant, id, members);
    });
  }

  /** Deletes a plan no alarm uses. */
  deletePlan(tenant: string, id: string): void {
    this.tx(() => {
      this.plans.get({ tenant }, id);
      if (this.deps.store.docs.alarmsReferring(tenant, 'plan_id', id) > 0) throw childrenExist('Alarm', 'alarms');
      this.plans.remove({ tenant }, id);
      this.deps.store.docs.setPlanMembers(tenant, id, []);
    });
  }

  /** A page of plans. */
  listPlans(tenant: string, page: PageRequest): Page<StoredDoc<PlanDoc>> {
    return this.plans.list({ tenant }, page);
  }
}
