// Owns the rules around notifications and plans: plans name existing notifications; used ones cannot be deleted; the defaults stay.
import type { AccountLimits } from './account/account-limits.js';
import { defaultObjectProtected, isDefaultNotification, isDefaultPlan } from './account/default-objects.js';
import { DefaultObjectsStore } from './account/default-objects-store.js';
import type { StoredDoc } from './doc-store.js';
import { DocCollection, type CollectionDeps } from './doc-collection.js';
import { childrenExist, fieldError } from './monitoring-errors.js';
import { PLAN_STATES, notificationDoc, planDoc, type NotificationDoc, type PlanDoc } from './notification-rules.js';
import type { Page, PageRequest } from './paging.js';
import type { NotificationCreate, NotificationUpdate } from './schemas/notification-schema.js';
import type { PlanCreate, PlanUpdate } from './schemas/plan-schema.js';
import {
  decryptNotificationDetails,
  encryptGivenNotificationDetails,
  encryptStoredNotificationDetails,
  redactNotificationDetails,
} from './notification-secrets.js';
import type { SecretBox } from './secret-box.js';

/** What the notification service needs: store, clock, the box notification secrets are encrypted with, and the account limits. */
export interface NotificationServiceDeps extends CollectionDeps {
  readonly secrets: SecretBox;
  /** The account limits: creates check the tenant's room inside their transaction. */
  readonly limits: AccountLimits;
}

/** A notification as reads show it: its secrets redacted (notification-secrets.ts). */
function shown(stored: StoredDoc<NotificationDoc>): StoredDoc<NotificationDoc> {
  const details = redactNotificationDetails(stored.doc.type, stored.doc.details);
  return details === stored.doc.details ? stored : { ...stored, doc: { ...stored.doc, details } };
}

/**
 * Notifications and notification plans of a tenant. Notification secrets (service and API keys,
 * webhook URLs) are stored encrypted, read back redacted, and decrypted only by notificationWithSecrets.
 * Every tenant has the default notification and plan (account/default-objects.ts), materialized
 * before any read, list or write of either kind: they can be read, never deleted; the default
 * notification never changes, the default plan may be updated. They do not count against the
 * account limits of notifications and plans (AccountLimits), which count the tenant's own objects.
 */
export class NotificationService {
  private readonly notifications: DocCollection<NotificationDoc>;
  /** Plans, shared with the entity service (alarms name a plan). */
  readonly plans: DocCollection<PlanDoc>;
  private readonly defaults: DefaultObjectsStore;

  constructor(private readonly deps: NotificationServiceDeps) {
    // The account limits (configurable, the defaults aside) bound a tenant's notifications and
    // plans: createNotification and createPlan check them, so the collections set no bound of their own.
    this.notifications = new DocCollection(deps, { table: 'mon_notification', name: 'Notification', idKind: 'notification', scopeMax: Number.MAX_SAFE_INTEGER });
    this.plans = new DocCollection(deps, { table: 'mon_plan', name: 'NotificationPlan', idKind: 'plan', scopeMax: Number.MAX_SAFE_INTEGER });
    this.defaults = new DefaultObjectsStore(deps.store.db, deps.clock);
  }

  private tx<T>(work: () => T): T {
    return this.deps.store.transaction(work);
  }

  /**
   * Makes sure the tenant's default notification (ntTechnicalContactsEmail) and plan
   * (npTechnicalContactsEmail) exist: idempotent, one Set lookup once they are committed.
   */
  ensureDefaults(tenant: string): void {
    this.defaults.ensure(tenant);
  }

  /** Creates a notification from a body its schema has admitted, its secrets encrypted; returns its id. */
  createNotification(tenant: string, body: NotificationCreate): string {
    this.ensureDefaults(tenant);
    const doc = notificationDoc(body);
    const details = encryptGivenNotificationDetails(doc.type, doc.details, undefined, this.deps.secrets, tenant);
    return this.tx(() => {
      this.deps.limits.ensureRoom(tenant, 'notifications');
      return this.notifications.create({ tenant }, { ...doc, details });
    });
  }

  /** One notification, its secrets redacted. */
  notification(tenant: string, id: string): StoredDoc<NotificationDoc> {
    this.ensureDefaults(tenant);
    return shown(this.notifications.get({ tenant }, id));
  }

  /**
   * One notification with its secrets in plaintext, for the notification sender, which must send
   * them; the only reader that decrypts. Throws MONITORING_SECRET_UNREADABLE when a secret does not decrypt.
   */
  notificationWithSecrets(tenant: string, id: string): StoredDoc<NotificationDoc> {
    this.ensureDefaults(tenant);
    const stored = this.notifications.get({ tenant }, id);
    return { ...stored, doc: { ...stored.doc, details: decryptNotificationDetails(stored.doc.type, stored.doc.details, this.deps.secrets, tenant) } };
  }

  /**
   * Updates a notification's fields. Details given are encrypted anew (a redacted secret sent back
   * keeps the stored one while the type stays); details left out (or null) stay as stored, any
   * plaintext of older data in them encrypted now. The default notification cannot be changed.
   */
  updateNotification(tenant: string, id: string, body: NotificationUpdate): void {
    this.ensureDefaults(tenant);
    this.tx(() => {
      const existing = this.notifications.get({ tenant }, id).doc;
      if (isDefaultNotification(id)) throw defaultObjectProtected('Notification', id, 'changed');
      const doc = notificationDoc(body, existing);
      const stored = doc.type === existing.type ? existing.details : undefined;
      const details =
        body.details === undefined || body.details === null
          ? encryptStoredNotificationDetails(doc.type, doc.details, this.deps.secrets, tenant)
          : encryptGivenNotificationDetails(doc.type, doc.details, stored, this.deps.secrets, tenant);
      this.notifications.replace({ tenant }, id, { ...doc, details });
    });
  }

  /**
   * Encrypts the plaintext secrets older versions stored in notification details, in one
   * transaction; updated_at stays, since the notifications do not change. Returns how many were rewritten.
   */
  encryptStoredSecrets(): number {
    return this.tx(() => {
      const pending: { scope: { tenant: string }; id: string; doc: NotificationDoc }[] = [];
      this.deps.store.docs.scan<NotificationDoc>('mon_notification', (scope, stored) => {
        const details = encryptStoredNotificationDetails(stored.doc.type, stored.doc.details, this.deps.secrets, scope.tenant);
        if (details !== stored.doc.details) pending.push({ scope, id: stored.id, doc: { ...stored.doc, details } });
      });
      for (const { scope, id, doc } of pending) this.deps.store.docs.rewrite('mon_notification', scope, id, doc);
      return pending.length;
    });
  }

  /** Deletes a notification no plan names; never the default one. */
  deleteNotification(tenant: string, id: string): void {
    this.ensureDefaults(tenant);
    this.tx(() => {
      this.notifications.get({ tenant }, id);
      if (isDefaultNotification(id)) throw defaultObjectProtected('Notification', id, 'deleted');
      if (this.deps.store.docs.plansNaming(tenant, id) > 0) throw childrenExist('NotificationPlan', 'notification plans');
      this.notifications.remove({ tenant }, id);
    });
  }

  /** A page of notifications, their secrets redacted. */
  listNotifications(tenant: string, page: PageRequest): Page<StoredDoc<NotificationDoc>> {
    this.ensureDefaults(tenant);
    const listed = this.notifications.list({ tenant }, page);
    return { ...listed, values: listed.values.map(shown) };
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
    this.ensureDefaults(tenant);
    const doc = planDoc(body);
    return this.tx(() => {
      this.deps.limits.ensureRoom(tenant, 'notification_plans');
      const members = this.checkMembers(tenant, doc);
      const id = this.plans.create({ tenant }, doc);
      this.deps.store.docs.setPlanMembers(tenant, id, members);
      return id;
    });
  }

  /** One plan. */
  plan(tenant: string, id: string): StoredDoc<PlanDoc> {
    this.ensureDefaults(tenant);
    return this.plans.get({ tenant }, id);
  }

  /** Updates a plan's fields; the default plan too (a tenant may add a webhook to it, or rename it). */
  updatePlan(tenant: string, id: string, body: PlanUpdate): void {
    this.ensureDefaults(tenant);
    this.tx(() => {
      const doc = planDoc(body, this.plans.get({ tenant }, id).doc);
      const members = this.checkMembers(tenant, doc);
      this.plans.replace({ tenant }, id, doc);
      this.deps.store.docs.setPlanMembers(tenant, id, members);
    });
  }

  /** Deletes a plan no alarm uses; never the default one. */
  deletePlan(tenant: string, id: string): void {
    this.ensureDefaults(tenant);
    this.tx(() => {
      this.plans.get({ tenant }, id);
      if (isDefaultPlan(id)) throw defaultObjectProtected('NotificationPlan', id, 'deleted');
      if (this.deps.store.docs.alarmsReferring(tenant, 'plan_id', id) > 0) throw childrenExist('Alarm', 'alarms');
      this.plans.remove({ tenant }, id);
      this.deps.store.docs.setPlanMembers(tenant, id, []);
    });
  }

  /** A page of plans. */
  listPlans(tenant: string, page: PageRequest): Page<StoredDoc<PlanDoc>> {
    this.ensureDefaults(tenant);
    return this.plans.list({ tenant }, page);
  }
}
