// Owns the overview view's data: a page of entities, each with its checks, alarms and the alarms' latest states.
import type { AlarmDoc } from './alarm-rules.js';
import type { AlarmStateRow, AlarmStateStore } from './alarms/alarm-state-store.js';
import type { CheckDoc } from './check-rules.js';
import type { StoredDoc } from './doc-store.js';
import type { EntityDoc } from './entity-rules.js';
import { ALARMS_PER_ENTITY_MAX, CHECKS_PER_ENTITY_MAX } from './monitoring-limits.js';
import type { MonitoringService } from './monitoring-service.js';
import { pageOf, type Page, type PageRequest } from './paging.js';

/** One entity of the overview with everything a console draws for it. */
export interface OverviewItem {
  readonly entity: StoredDoc<EntityDoc>;
  /** Its checks (all of them: at most CHECKS_PER_ENTITY_MAX), secrets redacted. */
  readonly checks: readonly StoredDoc<CheckDoc>[];
  /** Its alarms (all of them: at most ALARMS_PER_ENTITY_MAX). */
  readonly alarms: readonly StoredDoc<AlarmDoc>[];
  /** The committed state of each of its alarms that has one, by alarm id. */
  readonly states: readonly AlarmStateRow[];
}

/** An overview request: the page of entities, optionally only the entities named. */
export interface OverviewRequest extends PageRequest {
  /** Only these entities (ids that name none are skipped); undefined for all. */
  readonly entityIds?: readonly string[];
}

/** The overview of a tenant's entities, paged by entity id like every monitoring list. */
export class MonitoringOverview {
  /** `states` is the alarm runtime's store of committed states (one owner of the table's statements). */
  constructor(
    private readonly monitoring: MonitoringService,
    private readonly states: AlarmStateStore,
  ) {}

  /** A page of the overview: entities from `marker` on, in id order. */
  page(tenant: string, request: OverviewRequest): Page<OverviewItem> {
    const entities = request.entityIds === undefined ? this.monitoring.entities.listEntities(tenant, request) : this.named(tenant, request.entityIds, request);
    return { values: entities.values.map((entity) => this.itemOf(tenant, entity)), nextMarker: entities.nextMarker };
  }

  /** The named entities that exist, from the marker on, as one page. */
  private named(tenant: string, ids: readonly string[], page: PageRequest): Page<StoredDoc<EntityDoc>> {
    const wanted = [...new Set(ids)].sort().filter((id) => page.marker === undefined || id >= page.marker);
    const found: StoredDoc<EntityDoc>[] = [];
    for (const id of wanted) {
      if (found.length > page.limit) break;
      // A one-item page starting at the id is a lookup that does not throw for a missing entity.
      const first = this.monitoring.entities.listEntities(tenant, { marker: id, limit: 1 }).values[0];
      if (first?.id === id) found.push(first);
    }
    return pageOf(found, page.limit, (entity) => entity.id);
  }

  private itemOf(tenant: string, entity: StoredDoc<EntityDoc>): OverviewItem {
    const checks = this.monitoring.entities.listChecks(tenant, entity.id, { limit: CHECKS_PER_ENTITY_MAX }).values;
    const alarms = this.monitoring.entities.listAlarms(tenant, entity.id, { limit: ALARMS_PER_ENTITY_MAX }).values;
    // A state row outlives its alarm only if the alarm was deleted while no runtime listened: skip those.
    const alarmIds = new Set(alarms.map((alarm) => alarm.id));
    const states = this.states.ofEntity(tenant, entity.id, ALARMS_PER_ENTITY_MAX).filter((state) => alarmIds.has(state.alarmId));
    return { entity, checks, alarms, states };
  }
}
