// Owns the rules around entities, checks and alarms: parents exist, references resolve, children block deletes.
import type { StoredDoc } from './doc-store.js';
import { DocCollection, type CollectionDeps } from './doc-collection.js';
import { alarmDoc, type AlarmDoc } from './alarm-rules.js';
import { checkDoc, type CheckContext, type CheckDoc } from './check-rules.js';
import { entityDoc, type EntityDoc } from './entity-rules.js';
import { childrenExist, fieldError, parentNotFound } from './monitoring-errors.js';
import { ALARMS_PER_ENTITY_MAX, CHECKS_PER_ENTITY_MAX, ENTITIES_PER_TENANT_MAX } from './monitoring-limits.js';
import type { MonitoringZone } from './monitoring-zones.js';
import type { PlanDoc } from './notification-rules.js';
import type { Page, PageRequest } from './paging.js';
import type { AlarmCreate, AlarmUpdate } from './schemas/alarm-schema.js';
import type { CheckCreate, CheckUpdate } from './schemas/check-schema.js';
import type { EntityCreate, EntityUpdate } from './schemas/entity-schema.js';

/** What the entity service needs: store, clock, the zones, and the plans (alarms name one). */
export interface EntityServiceDeps extends CollectionDeps {
  readonly zones: readonly MonitoringZone[];
  readonly plans: DocCollection<PlanDoc>;
}

/** Entities and the checks and alarms that belong to them. */
export class EntityService {
  private readonly entities: DocCollection<EntityDoc>;
  private readonly checks: DocCollection<CheckDoc>;
  private readonly alarms: DocCollection<AlarmDoc>;

  constructor(private readonly deps: EntityServiceDeps) {
    this.entities = new DocCollection(deps, { table: 'mon_entity', name: 'Entity', idKind: 'entity', scopeMax: ENTITIES_PER_TENANT_MAX });
    this.checks = new DocCollection(deps, { table: 'mon_check', name: 'Check', idKind: 'check', scopeMax: CHECKS_PER_ENTITY_MAX });
    this.alarms = new DocCollection(deps, { table: 'mon_alarm', name: 'Alarm', idKind: 'alarm', scopeMax: ALARMS_PER_ENTITY_MAX });
  }

  private tx<T>(work: () => T): T {
    return this.deps.store.transaction(work);
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
    return this.tx(() => this.entities.create({ tenant }, doc));
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
  }

  /** Deletes an entity that has no checks and no alarms left. */
  deleteEntity(tenant: string, id: string): void {
    this.tx(() => {
      this.entities.get({ tenant }, id);
      if (this.deps.store.docs.count('mon_check', { tenant, entityId: id }) > 0) throw childrenExist('Check', 'checks');
      if (this.deps.store.docs.count('mon_alarm', { tenant, entityId: id }) > 0) throw childrenExist('Alarm', 'alarms');
      this.entities.remove({ tenant }, id);
    });
  }

  /** A page of the tenant's entities. */
  listEntities(tenant: string, page: PageRequest): Page<StoredDoc<EntityDoc>> {
    return this.entities.list({ tenant }, page);
  }

  /** Creates a check on an entity; returns its id. */
  createCheck(tenant: string, entityId: string, body: CheckCreate): string {
    return this.tx(() => {
      const entity = this.parent(tenant, entityId);
      return this.checks.create({ tenant, entityId }, checkDoc(body, this.checkContext(entity.doc)));
    });
  }

  /** One check of an entity; MONITORING_PARENT_NOT_FOUND or MONITORING_OBJECT_NOT_FOUND when missing. */
  check(tenant: string, entityId: string, id: string): StoredDoc<CheckDoc> {
    this.parent(tenant, entityId);
    return this.checks.get({ tenant, entityId }, id);
  }

  /** Updates a check's fields. */
  updateCheck(tenant: string, entityId: string, id: string, body: CheckUpdate): void {
    this.tx(() => {
      const entity = this.parent(tenant, entityId);
      const existing = this.checks.get({ tenant, entityId }, id);
      this.checks.replace({ tenant, entityId }, id, checkDoc(body, this.checkContext(entity.doc), existing.doc));
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
  }

  /** A page of an entity's checks. */
  listChecks(tenant: string, entityId: string, page: PageRequest): Page<StoredDoc<CheckDoc>> {
    this.parent(tenant, entityId);
    return this.checks.list({ tenant, entityId }, page);
  }

  /** An alarm's check must be on the same entity and its plan must exist. */
  private checkAlarmRefs(tenant: string, entityId: string, doc: AlarmDoc): void {
    if (this.checks.find({ tenant, entityId }, doc.check_id) === undefined) throw fieldError('check_id', `no check ${doc.check_id} on entity ${entityId}`);
    if (this.deps.plans.find({ tenant }, doc.notification_plan_id) === undefined) {
      throw fieldError('notification_plan_id', `no notification plan ${doc.notification_plan_id}`);
    }
  }

  /** Creates an alarm on an entity; returns its id. */
  createAlarm(tenant: string, entityId: string, body: AlarmCreate): string {
    return this.tx(() => {
      this.parent(tenant, entityId);
      const doc = alarmDoc(body);
      this.checkAlarmRefs(tenant, entityId, doc);
      return this.alarms.create({ tenant, entityId }, doc, { checkId: doc.check_id, planId: doc.notification_plan_id });
    });
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
  }

  /** Deletes an alarm. */
  deleteAlarm(tenant: string, entityId: string, id: string): void {
    this.tx(() => {
      this.parent(tenant, entityId);
      this.alarms.remove({ tenant, entityId }, id);
    });
  }

  /** A page of an entity's alarms. */
  listAlarms(tenant: string, entityId: string, page: PageRequest): Page<StoredDoc<AlarmDoc>> {
    this.parent(tenant, entityId);
    return this.alarms.list({ tenant, entityId }, page);
  }
}
