// Owns the rules around entities, checks and alarms: parents exist, references resolve, children block deletes.
import type { AccountLimits } from './account/account-limits.js';
import type { ChangeFeed, MonitoringChange } from './change-feed.js';
import type { StoredDoc } from './doc-store.js';
import { DocCollection, type CollectionDeps } from './doc-collection.js';
import { alarmDoc, type AlarmDoc } from './alarm-rules.js';
import { checkDoc, type CheckContext, type CheckDoc } from './check-rules.js';
import { decryptDetails, redactDetails, encryptGivenDetails, encryptStoredDetails } from './check-secrets.js';
import { entityDoc, type EntityDoc } from './entity-rules.js';
import { childrenExist, fieldError, parentNotFound } from './monitoring-errors.js';
import { ALARMS_PER_ENTITY_MAX, CHECKS_PER_ENTITY_MAX } from './monitoring-limits.js';
import type { MonitoringZone } from './monitoring-zones.js';
import type { PlanDoc } from './notification-rules.js';
import type { Page, PageRequest } from './paging.js';
import type { SecretBox } from './secret-box.js';
import type { AlarmCreate, AlarmUpdate } from './schemas/alarm-schema.js';
import type { CheckCreate, CheckUpdate } from './schemas/check-schema.js';
import type { EntityCreate, EntityUpdate } from './schemas/entity-schema.js';

/** What the entity service needs: store, clock, the zones, the plans (alarms name one), and the box check secrets are encrypted with. */
export interface EntityServiceDeps extends CollectionDeps {
  readonly zones: readonly MonitoringZone[];
  readonly plans: DocCollection<PlanDoc>;
  readonly secrets: SecretBox;
  /** Told of every committed create, update and delete of entities, checks and alarms (the runtime reloads its caches). */
  readonly changes: ChangeFeed;
  /** Materializes the tenant's default notification and plan (NotificationService.ensureDefaults), so an alarm may name npTechnicalContactsEmail from the tenant's first request. */
  readonly ensureDefaults: (tenant: string) => void;
  /** The account limits: every create checks the tenant's room inside its transaction. */
  readonly limits: AccountLimits;
}

/** A check as reads show it: its secrets redacted (check-secrets.ts). */
function shown(stored: StoredDoc<CheckDoc>): StoredDoc<CheckDoc> {
  const details = redactDetails(stored.doc.details);
  return details === stored.doc.details ? stored : { ...stored, doc: { ...stored.doc, details } };
}

/**
 * Entities and the checks and alarms that belong to them. Check secrets (passwords, credential
 * headers) are stored encrypted, read back redacted, and decrypted only by checkWithSecrets.
 */
export class EntityService {
  private readonly entities: DocCollection<EntityDoc>;
  private readonly checks: DocCollection<CheckDoc>;
  private readonly alarms: DocCollection<AlarmDoc>;

  constructor(private readonly deps: EntityServiceDeps) {
    // The account limit (limits.ensureRoom, configurable) bounds a tenant's entities; checks and
    // alarms keep their per-entity bound here besides their account limits.
    this.entities = new DocCollection(deps, { table: 'mon_entity', name: 'Entity', idKind: 'entity', scopeMax: Number.MAX_SAFE_INTEGER });
    this.checks = new DocCollection(deps, { table: 'mon_check', name: 'Check', idKind: 'check', scopeMax: CHECKS_PER_ENTITY_MAX });
    this.alarms = new DocCollection(deps, { table: 'mon_alarm', name: 'Alarm', idKind: 'alarm', scopeMax: ALARMS_PER_ENTITY_MAX });
  }

  private tx<T>(work: () => T): T {
    return this.deps.store.transaction(work);
  }

  /** Tells the change feed about a change whose transaction has committed. */
  private changed(change: MonitoringChange): void {
    this.deps.changes.emit(change);
  }

  /** The entity, or MONITORING_PARENT_NOT_FOUND (for objects that belong to it). */
  private parent(tenant: string, entityId: string): StoredDoc<EntityDoc> {
    const entity = this.entities.find({ tenant }, entityId);
    if (entity === undefined) throw parentNotFound('Entity', entityId);
    return entity;
  }

  private checkContext(entity: EntityDoc): CheckContext {
    return { zoneIds: this.deps.zones.map((zone) => zone.id), addressNames: Object.keys(entity.ip_addresses) };
  }

  /** Creates an entity from a body its schema has admitted; returns its id. */
  createEntity(tenant: string, body: EntityCreate): string {
    const doc = entityDoc(body);
    const id = this.tx(() => {
      this.deps.limits.ensureRoom(tenant, 'entities');
      return this.entities.create({ tenant }, doc);
    });
    this.changed({ kind: 'entity', op: 'create', tenant, entityId: id, id });
    return id;
  }

  /** One entity; MONITORING_OBJECT_NOT_FOUND when missing. */
  entity(tenant: string, id: string): StoredDoc<EntityDoc> {
    return this.entities.get({ tenant }, id);
  }

  /** Updates the fields the body gives; an address a check targets by alias must stay. */
  updateEntity(tenant: string, id: string, body: EntityUpdate): void {
    this.tx(() => {
      const doc = entityDoc(body, this.entities.get({ tenant }, id).doc);
      for (const check of this.checks.list({ tenant, entityId: id }, { limit: CHECKS_PER_ENTITY_MAX }).values) {
        const alias = check.doc.target_alias;
        if (alias !== null && !Object.hasOwn(doc.ip_addresses, alias)) throw fieldError('ip_addresses', `'${alias}' is the target_alias of check ${check.id}`);
      }
      this.entities.replace({ tenant }, id, doc);
    });
    this.changed({ kind: 'entity', op: 'update', tenant, entityId: id, id });
  }

  /** Deletes an entity that has no checks and no alarms left. */
  deleteEntity(tenant: string, id: string): void {
    this.tx(() => {
      this.entities.get({ tenant }, id);
      if (this.deps.store.docs.count('mon_check', { tenant, entityId: id }) > 0) throw childrenExist('Check', 'checks');
      if (this.deps.store.docs.count('mon_alarm', { tenant, entityId: id }) > 0) throw childrenExist('Alarm', 'alarms');
      this.entities.remove({ tenant }, id);
    });
    this.changed({ kind: 'entity', op: 'delete', tenant, entityId: id, id });
  }

  /** A page of the tenant's entities. */
  listEntities(tenant: string, page: PageRequest): Page<StoredDoc<EntityDoc>> {
    return this.entities.list({ tenant }, page);
  }

  /** Creates a check on an entity, its secrets encrypted; returns its id. */
  createCheck(tenant: string, entityId: string, body: CheckCreate): string {
    const id = this.tx(() => {
      const entity = this.parent(tenant, entityId);
      const doc = checkDoc(body, this.checkContext(entity.doc));
      this.deps.limits.ensureRoom(tenant, 'checks');
      return this.checks.create({ tenant, entityId }, { ...doc, details: encryptGivenDetails(doc.details, undefined, this.deps.secrets, tenant) });
    });
    this.changed({ kind: 'check', op: 'create', tenant, entityId, id });
    return id;
  }

  /** One check of an entity, its secrets redacted; MONITORING_PARENT_NOT_FOUND or MONITORING_OBJECT_NOT_FOUND when missing. */
  check(tenant: string, entityId: string, id: string): StoredDoc<CheckDoc> {
    this.parent(tenant, entityId);
    return shown(this.checks.get({ tenant, entityId }, id));
  }

  /**
   * One check with its secrets in plaintext, for the check runner, which must send them; the only
   * reader that decrypts. Throws MONITORING_SECRET_UNREADABLE when a secret does not decrypt.
   */
  checkWithSecrets(tenant: string, entityId: string, id: string): StoredDoc<CheckDoc> {
    this.parent(tenant, entityId);
    const stored = this.checks.get({ tenant, entityId }, id);
    return { ...stored, doc: { ...stored.doc, details: decryptDetails(stored.doc.details, this.deps.secrets, tenant) } };
  }

  /**
   * Updates a check's fields. Details given are encrypted anew (a redacted secret sent back keeps the
   * stored one); details left out stay as stored, any plaintext of older data in them encrypted now.
   */
  updateCheck(tenant: string, entityId: string, id: string, body: CheckUpdate): void {
    this.tx(() => {
      const entity = this.parent(tenant, entityId);
      const existing = this.checks.get({ tenant, entityId }, id);
      const doc = checkDoc(body, this.checkContext(entity.doc), existing.doc);
      const details =
        body.details === undefined
          ? encryptStoredDetails(doc.details, this.deps.secrets, tenant)
          : encryptGivenDetails(doc.details, existing.doc.details, this.deps.secrets, tenant);
      this.checks.replace({ tenant, entityId }, id, { ...doc, details });
    });
    this.changed({ kind: 'check', op: 'update', tenant, entityId, id });
  }

  /**
   * Encrypts the plaintext secrets older versions stored in check details, in one transaction;
   * updated_at stays, since the checks do not change. Returns how many checks were rewritten.
   */
  encryptStoredSecrets(): number {
    return this.tx(() => {
      const pending: { scope: { tenant: string; entityId?: string }; id: string; doc: CheckDoc }[] = [];
      this.deps.store.docs.scan<CheckDoc>('mon_check', (scope, stored) => {
        const details = encryptStoredDetails(stored.doc.details, this.deps.secrets, scope.tenant);
        if (details !== stored.doc.details) pending.push({ scope, id: stored.id, doc: { ...stored.doc, details } });
      });
      for (const { scope, id, doc } of pending) this.deps.store.docs.rewrite('mon_check', scope, id, doc);
      return pending.length;
    });
  }

  /** Deletes a check no alarm uses; its declared metric types go with it (its metric data stays in the engine until retention). */
  deleteCheck(tenant: string, entityId: string, id: string): void {
    this.tx(() => {
      this.check(tenant, entityId, id);
      if (this.deps.store.docs.alarmsReferring(tenant, 'check_id', id) > 0) throw childrenExist('Alarm', 'alarms');
      this.checks.remove({ tenant, entityId }, id);
      this.deps.store.changelogs.dropMetricTypes(tenant, entityId, id);
    });
    this.changed({ kind: 'check', op: 'delete', tenant, entityId, id });
  }

  /** A page of an entity's checks, their secrets redacted. */
  listChecks(tenant: string, entityId: string, page: PageRequest): Page<StoredDoc<CheckDoc>> {
    this.parent(tenant, entityId);
    const listed = this.checks.list({ tenant, entityId }, page);
    return { ...listed, values: listed.values.map(shown) };
  }

  /** An alarm's check must be on the same entity and its plan must exist (the tenant's default plan always does). */
  private checkAlarmRefs(tenant: string, entityId: string, doc: AlarmDoc): void {
    if (this.checks.find({ tenant, entityId }, doc.check_id) === undefined) throw fieldError('check_id', `no check ${doc.check_id} on entity ${entityId}`);
    this.deps.ensureDefaults(tenant);
    if (this.deps.plans.find({ tenant }, doc.notification_plan_id) === undefined) {
      throw fieldError('notification_plan_id', `no notification plan ${doc.notification_plan_id}`);
    }
  }

  /** Creates an alarm on an entity; returns its id. */
  createAlarm(tenant: string, entityId: string, body: AlarmCreate): string {
    const id = this.tx(() => {
      this.parent(tenant, entityId);
      const doc = alarmDoc(body);
      this.checkAlarmRefs(tenant, entityId, doc);
      this.deps.limits.ensureRoom(tenant, 'alarms');
      return this.alarms.create({ tenant, entityId }, doc, { checkId: doc.check_id, planId: doc.notification_plan_id });
    });
    this.changed({ kind: 'alarm', op: 'create', tenant, entityId, id });
    return id;
  }

  /** One alarm of an entity. */
  alarm(tenant: string, entityId: string, id: string): StoredDoc<AlarmDoc> {
    this.parent(tenant, entityId);
    return this.alarms.get({ tenant, entityId }, id);
  }

  /** Updates an alarm's fields. */
  updateAlarm(tenant: string, entityId: string, id: string, body: AlarmUpdate): void {
    this.tx(() => {
      const existing = this.alarm(tenant, entityId, id);
      const doc = alarmDoc(body, existing.doc);
      this.checkAlarmRefs(tenant, entityId, doc);
      this.alarms.replace({ tenant, entityId }, id, doc, { checkId: doc.check_id, planId: doc.notification_plan_id });
    });
    this.changed({ kind: 'alarm', op: 'update', tenant, entityId, id });
  }

  /** Deletes an alarm. */
  deleteAlarm(tenant: string, entityId: string, id: string): void {
    this.tx(() => {
      this.parent(tenant, entityId);
      this.alarms.remove({ tenant, entityId }, id);
    });
    this.changed({ kind: 'alarm', op: 'delete', tenant, entityId, id });
  }

  /** The alarms of one check (the alarm runtime evaluates each of its observations against them); at most ALARMS_PER_ENTITY_MAX. */
  alarmsOfCheck(tenant: string, entityId: string, checkId: string): StoredDoc<AlarmDoc>[] {
    return this.deps.store.docs.alarmsOfCheck<AlarmDoc>(tenant, entityId, checkId);
  }

  /** Ids of the tenant's entities whose agent_id is `agentId`, sorted, at most `limit` (the agent endpoint's schedule). */
  entitiesOfAgent(tenant: string, agentId: string, limit: number): string[] {
    return this.deps.store.docs.entitiesOfAgent(tenant, agentId, limit);
  }

  /**
   * The agent checks (type agent.*) of these entities of the tenant, disabled ones included, in the
   * order of `entityIds` and by id within each; secrets redacted, as every read but the runner's.
   * At most CHECKS_PER_ENTITY_MAX per entity; an unknown entity has none.
   */
  agentChecksOf(tenant: string, entityIds: readonly string[]): StoredDoc<CheckDoc>[] {
    return entityIds.flatMap((entityId) => this.deps.store.docs.agentChecksOf<CheckDoc>(tenant, entityId, CHECKS_PER_ENTITY_MAX).map(shown));
  }

  /** A page of an entity's alarms. */
  listAlarms(tenant: string, entityId: string, page: PageRequest): Page<StoredDoc<AlarmDoc>> {
    this.parent(tenant, entityId);
    return this.alarms.list({ tenant, entityId }, page);
  }
}
