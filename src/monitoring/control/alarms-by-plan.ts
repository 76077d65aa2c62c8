// Owns the alarmsByNp view: the alarms of a tenant that use one notification plan, paged by alarm id; 404 for a plan that does not exist.
import type { AlarmDoc } from '../alarm-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { MonitoringStore } from '../monitoring-store.js';
import { pageOf, type Page, type PageRequest } from '../paging.js';
import { AlarmsByPlanStore } from './alarms-by-plan-store.js';

/** What the view needs: the monitoring file, and the plan lookup that throws MONITORING_OBJECT_NOT_FOUND for a missing plan. */
export interface AlarmsByPlanDeps {
  readonly db: MonitoringStore['db'];
  readonly plan: (tenant: string, planId: string) => unknown;
}

/** One alarm as the alarmsByNp view shows it. */
export interface AlarmOfPlan {
  readonly id: string;
  readonly entity_id: string | null;
  readonly check_id: string;
  readonly notification_plan_id: string;
  readonly criteria: string | null;
  readonly label: string | null;
  readonly disabled: boolean;
}

/** The view's item of a stored alarm. */
export function alarmOfPlanView(stored: StoredDoc<AlarmDoc>): AlarmOfPlan {
  const { check_id, notification_plan_id, criteria, label, disabled } = stored.doc;
  return { id: stored.id, entity_id: stored.entityId, check_id, notification_plan_id, criteria, label, disabled };
}

/** The alarmsByNp view over the monitoring file. */
export class AlarmsByPlan {
  readonly #store: AlarmsByPlanStore;

  constructor(private readonly deps: AlarmsByPlanDeps) {
    this.#store = new AlarmsByPlanStore(deps.db);
  }

  /** A page of the tenant's alarms whose plan is `planId`, by id; MONITORING_OBJECT_NOT_FOUND when the plan does not exist. */
  page(tenant: string, planId: string, page: PageRequest): Page<StoredDoc<AlarmDoc>> {
    this.deps.plan(tenant, planId);
    return pageOf(this.#store.list(tenant, planId, page.marker ?? '', page.limit + 1), page.limit, (alarm) => alarm.id);
  }
}
