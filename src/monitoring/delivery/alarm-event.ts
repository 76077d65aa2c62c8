// Owns the spec 6.1 payload of an alarm state change: event_id, log_entry_id, details, and the spec 2.7 entity, check and alarm records.
import type { AlarmState } from '../alarm-language/ast.js';
import type { AlarmDoc } from '../alarm-rules.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import { redactDetails } from '../check-secrets.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import type { EventSuppressionIds, SuppressionIds } from '../suppressions/suppression-service.js';
import type { AlarmEventPayload } from './channel-types.js';

/** The change being notified (the consensus step's AlarmTransition fits). */
export interface EventTransition {
  readonly state: AlarmState;
  readonly previousState: AlarmState | null;
  /** The criteria's message for the new state. */
  readonly status: string;
  /** The zone whose observation completed the change. */
  readonly zoneId: string;
  readonly timestampMs: number;
}

/** One zone's latest verdict (the consensus step's ZoneVerdict fits). */
export interface EventObservation {
  readonly zoneId: string;
  readonly state: AlarmState;
  readonly status: string;
  readonly timestampMs: number;
}

/** Everything the payload is built from. */
export interface AlarmEventInput {
  readonly tenant: string;
  readonly entity: StoredDoc<EntityDoc>;
  /** The check as reads show it; its secrets are redacted here again in any case. */
  readonly check: StoredDoc<CheckDoc>;
  readonly alarm: StoredDoc<AlarmDoc>;
  readonly transition: EventTransition;
  /** The observation that completed the change: its metrics are the payload's. */
  readonly result: CheckResult;
  readonly observations: readonly EventObservation[];
  /** Id of the changelog entry of the change (spec 2.6, a UUID). */
  readonly logEntryId: string;
  /** Transaction that recorded the change; default `txn.<logEntryId>`. */
  readonly txnId?: string;
  /** Address the check ran from; default 127.0.0.1 (zones run inside the server process). */
  readonly collectorAddress?: string;
  /**
   * The suppression ids of the entity, check and alarm records (SuppressionService.eventIds at the
   * change's time). Left out: the check and alarm records say null, as the reference sends unset
   * fields, and the entity record has no suppression fields (spec 2.7 lists none for it).
   */
  readonly suppressions?: EventSuppressionIds;
}

/** Collector address when the runner names none: the zones poll from this host. */
const COLLECTOR_ADDRESS_DEFAULT = '127.0.0.1';

/**
 * The event id: tenant, entity, alarm, check, change time (ms) and state, colon-separated (spec
 * 6.1). Ids never hold a colon, so it splits back into its six parts.
 */
export function alarmEventId(tenant: string, entityId: string, alarmId: string, checkId: string, timestampMs: number, state: string): string {
  return [tenant, entityId, alarmId, checkId, String(timestampMs), state].join(':');
}

/** The suppression fields of a record: the ids when known, null otherwise (the reference's unset value). */
function suppressionFields(ids: SuppressionIds | undefined): { active_suppressions: readonly string[] | null; scheduled_suppressions: readonly string[] | null } {
  return ids === undefined ? { active_suppressions: null, scheduled_suppressions: null } : { active_suppressions: ids.active, scheduled_suppressions: ids.scheduled };
}

/**
 * Spec 2.7 entity record; with `suppressions` it carries active_suppressions and
 * scheduled_suppressions too, as the check and alarm records do (Strata's addition: the entity is
 * what a maintenance window names most often).
 */
export function entityRecord(entity: StoredDoc<EntityDoc>, suppressions?: SuppressionIds): Record<string, unknown> {
  const d = entity.doc;
  return {
    id: entity.id,
    label: d.label,
    ip_addresses: d.ip_addresses,
    metadata: d.metadata,
    managed: d.managed,
    uri: d.uri,
    agent_id: d.agent_id,
    ...(suppressions !== undefined ? suppressionFields(suppressions) : {}),
    created_at: entity.createdMs,
    updated_at: entity.updatedMs,
  };
}

/** Fields Strata has no notion of (configuration-management names and hashes): null, as the reference sends them when unset. */
const UNSET_FIELDS = { confd_name: null, confd_hash: null } as const;

/** Spec 2.7 check record: secrets redacted; unset targets are empty strings and agent checks poll no zones ([]); suppression ids when given, else null. */
export function checkRecord(check: StoredDoc<CheckDoc>, suppressions?: SuppressionIds): Record<string, unknown> {
  const d = check.doc;
  return {
    id: check.id,
    label: d.label,
    type: d.type,
    details: redactDetails(d.details),
    monitoring_zones_poll: d.monitoring_zones_poll ?? [],
    timeout: d.timeout,
    period: d.period,
    target_alias: d.target_alias ?? '',
    target_hostname: d.target_hostname ?? '',
    target_resolver: d.target_resolver ?? '',
    disabled: d.disabled,
    metadata: d.metadata,
    ...UNSET_FIELDS,
    ...suppressionFields(suppressions),
    created_at: check.createdMs,
    updated_at: check.updatedMs,
  };
}

/** Spec 2.7 alarm record; suppression ids when given, else null. */
export function alarmRecord(alarm: StoredDoc<AlarmDoc>, entityId: string, suppressions?: SuppressionIds): Record<string, unknown> {
  const d = alarm.doc;
  return {
    id: alarm.id,
    label: d.label,
    check_id: d.check_id,
    entity_id: alarm.entityId ?? entityId,
    criteria: d.criteria,
    disabled: d.disabled,
    notification_plan_id: d.notification_plan_id,
    metadata: d.metadata,
    ...UNSET_FIELDS,
    ...suppressionFields(suppressions),
    created_at: alarm.createdMs,
    updated_at: alarm.updatedMs,
  };
}

/** The address the check targets: its alias's address on the entity, or its hostname; null for checks without a target (agent checks). */
function targetOf(check: CheckDoc, entity: EntityDoc): string | null {
  if (check.target_alias !== null) return Object.hasOwn(entity.ip_addresses, check.target_alias) ? (entity.ip_addresses[check.target_alias] ?? null) : null;
  return check.target_hostname;
}

/** The payload's `details`: target, time, the completing observation's metrics, state, status, txn_id, collector and every zone's verdict. */
function eventDetails(input: AlarmEventInput): Record<string, unknown> {
  const { transition, result } = input;
  // fromEntries defines own properties, so a metric named __proto__ is kept like any other.
  const metrics = Object.fromEntries(Object.entries(result.metrics).map(([name, metric]) => [name, { type: metric.type, data: metric.data, unit: metric.unit }]));
  return {
    target: targetOf(input.check.doc, input.entity.doc),
    timestamp: transition.timestampMs,
    metrics,
    state: transition.state,
    // Strata's one addition to spec 6.1's details, as its changelog adds previous_state to spec 2.6
    // (null for an alarm's first state); the text channels say "was OK" with it.
    previous_state: transition.previousState,
    status: transition.status,
    txn_id: input.txnId ?? `txn.${input.logEntryId}`,
    collector_address_v4: input.collectorAddress ?? COLLECTOR_ADDRESS_DEFAULT,
    collector_address_v6: null,
    observations: input.observations.map((o) => ({
      monitoring_zone_id: o.zoneId,
      state: o.state,
      status: o.status,
      timestamp: o.timestampMs,
      // The zone's collector answered (an observation exists), so it is up.
      collectorState: 'UP',
    })),
  };
}

/** The spec 6.1 webhook payload of an alarm state change (also the event every other channel renders). */
export function buildAlarmEvent(input: AlarmEventInput): AlarmEventPayload {
  const { tenant, entity, check, alarm, transition } = input;
  return {
    event_id: alarmEventId(tenant, entity.id, alarm.id, check.id, transition.timestampMs, transition.state),
    log_entry_id: input.logEntryId,
    details: eventDetails(input),
    entity: entityRecord(entity, input.suppressions?.entity),
    check: checkRecord(check, input.suppressions?.check),
    alarm: alarmRecord(alarm, entity.id, input.suppressions?.alarm),
    tenant_id: tenant,
  };
}
