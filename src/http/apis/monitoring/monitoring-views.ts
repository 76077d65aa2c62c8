// Owns the JSON shapes of monitoring objects as the reference API renders them (times in integer ms).
import type { LiveConnection } from '../../../monitoring/agent-connections.js';
import type { AgentTokenView } from '../../../monitoring/agent-service.js';
import type { AgentRow } from '../../../monitoring/agent-store.js';
import type { AlarmDoc } from '../../../monitoring/alarm-rules.js';
import type { ChangelogRow } from '../../../monitoring/changelog-store.js';
import type { CheckDoc } from '../../../monitoring/check-rules.js';
import type { StoredDoc } from '../../../monitoring/doc-store.js';
import type { EntityDoc } from '../../../monitoring/entity-rules.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import type { NotificationDoc, PlanDoc } from '../../../monitoring/notification-rules.js';
import type { SuppressionIds, SuppressionTarget } from '../../../monitoring/suppressions/suppression-service.js';

function times(stored: StoredDoc<unknown>): { created_at: number; updated_at: number } {
  return { created_at: stored.createdMs, updated_at: stored.updatedMs };
}

/** The suppression ids a record of a target carries (one `nowMs` for a whole page). */
export type SuppressionLookup = (target: SuppressionTarget) => SuppressionIds;

/** The suppression lookup of one read of the tenant: one `now` for every record it shows. */
export function suppressionLookup(monitoring: MonitoringService, tenant: string): SuppressionLookup {
  const nowMs = monitoring.clock.now();
  return (target) => monitoring.suppressions.idsOf(tenant, target, nowMs);
}

/** A record's suppression fields (spec 2.7): ids of the suppressions covering it now, and of those that will later. */
function suppressionFields(ids: SuppressionIds): { active_suppressions: readonly string[]; scheduled_suppressions: readonly string[] } {
  return { active_suppressions: ids.active, scheduled_suppressions: ids.scheduled };
}

/** An entity: id, its fields, the suppressions naming it, created_at and updated_at. */
export function entityView(stored: StoredDoc<EntityDoc>, suppressions: SuppressionLookup): Record<string, unknown> {
  return { id: stored.id, ...stored.doc, ...suppressionFields(suppressions({ entityId: stored.id })), ...times(stored) };
}

/** A check, with the entity it belongs to and the suppressions naming the entity or the check. */
export function checkView(stored: StoredDoc<CheckDoc>, suppressions: SuppressionLookup): Record<string, unknown> {
  const entityId = stored.entityId ?? '';
  return { id: stored.id, entity_id: stored.entityId, ...stored.doc, ...suppressionFields(suppressions({ entityId, checkId: stored.id })), ...times(stored) };
}

/** An alarm, with the entity it belongs to and the suppressions naming its entity, check, itself or its plan. */
export function alarmView(stored: StoredDoc<AlarmDoc>, suppressions: SuppressionLookup): Record<string, unknown> {
  const target = { entityId: stored.entityId ?? '', checkId: stored.doc.check_id, alarmId: stored.id, planId: stored.doc.notification_plan_id };
  return { id: stored.id, entity_id: stored.entityId, ...stored.doc, ...suppressionFields(suppressions(target)), ...times(stored) };
}

/** A notification. */
export function notificationView(stored: StoredDoc<NotificationDoc>): Record<string, unknown> {
  return { id: stored.id, ...stored.doc, ...times(stored) };
}

/** A notification plan. */
export function planView(stored: StoredDoc<PlanDoc>): Record<string, unknown> {
  return { id: stored.id, ...stored.doc, ...times(stored) };
}

/** An agent token with its value. */
export function agentTokenView(token: AgentTokenView): Record<string, unknown> {
  return { id: token.id, token: token.token, label: token.label, created_at: token.createdMs, updated_at: token.updatedMs };
}

/** An agent (spec 2.1: last_connected in ms). */
export function agentView(agent: AgentRow): Record<string, unknown> {
  return { id: agent.id, last_connected: agent.lastConnectedMs };
}

/** An agent connection (spec 2.2). */
export function connectionView(c: LiveConnection): Record<string, unknown> {
  return { id: c.id, guid: c.guid, agent_id: c.agentId, process_version: c.processVersion, bundle_version: c.bundleVersion, agent_ip: c.agentIp };
}

/** An alarm changelog entry (spec 2.6 plus previous_state, which clients require). */
export function changelogView(e: ChangelogRow): Record<string, unknown> {
  return {
    id: e.id,
    timestamp: e.timestampMs,
    entity_id: e.entityId,
    alarm_id: e.alarmId,
    check_id: e.checkId,
    state: e.state,
    previous_state: e.previousState,
    analyzed_by_monitoring_zone_id: e.zoneId,
  };
}
