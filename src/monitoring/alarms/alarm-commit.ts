// Owns recording one alarm state change: changelog entry, committed state, and what its notifications became (outbox rows, a suppression log, the history record), in one transaction.
import type { AlarmState } from '../alarm-language/ast.js';
import type { AlarmDoc } from '../alarm-rules.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import { buildAlarmEvent } from '../delivery/alarm-event.js';
import type { Outbox } from '../delivery/outbox.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { EventSuppressionIds, SuppressionTarget } from '../suppressions/suppression-service.js';
import type { AlarmTransition, ZoneVerdict } from './alarm-consensus.js';
import type { AlarmStateStore } from './alarm-state-store.js';
import { changeNotifies, decideNotifications, type NotificationDecision, type NotificationStatus } from './notification-decision.js';
import { loggableError } from '../loggable-error.js';

// The rule lives in notification-decision.ts (the backtest applies it too); re-exported for the callers of this module.
export { changeNotifies } from './notification-decision.js';

/** The log lines the alarm runtime writes (a pino Logger fits). */
export interface AlarmLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What recording a change needs. */
export interface CommitDeps {
  readonly monitoring: MonitoringService;
  readonly states: AlarmStateStore;
  readonly outbox: Outbox;
  readonly logger: AlarmLogger;
}

/** One state change of one alarm, as the consensus step decided it. */
export interface AlarmChange {
  readonly tenant: string;
  /** The observed check (its entityId is the alarm's entity). */
  readonly check: StoredDoc<CheckDoc>;
  readonly alarm: StoredDoc<AlarmDoc>;
  readonly transition: AlarmTransition;
  /** The observation that completed the change: its metrics go into the notification. */
  readonly result: CheckResult;
  /** The latest verdict of each zone, for the notification's observations. */
  readonly observations: readonly ZoneVerdict[];
}

/** What recording did: the changelog entry, how many notifications were queued, and the decision (notification-decision.ts). */
export interface CommitOutcome {
  readonly logEntryId: string;
  readonly enqueued: number;
  readonly notifications: NotificationStatus;
}

/** The plan list a state triggers: OK → ok_state, WARNING → warning_state, CRITICAL → critical_state. */
export function planListOf(state: AlarmState): 'ok_state' | 'warning_state' | 'critical_state' {
  return state === 'OK' ? 'ok_state' : state === 'WARNING' ? 'warning_state' : 'critical_state';
}

/** The transaction id of a recorded change: the payload's details.txn_id, the history record's and the suppression log's. */
export function changeTxnId(logEntryId: string): string {
  return `txn.${logEntryId}`;
}

/** The notifications of the alarm's plan for the new state; none (logged) when the plan is gone. */
function notificationsOf(deps: CommitDeps, change: AlarmChange): readonly string[] {
  const planId = change.alarm.doc.notification_plan_id;
  try {
    return deps.monitoring.notifications.plan(change.tenant, planId).doc[planListOf(change.transition.state)];
  } catch (error) {
    deps.logger.warn(
      { tenant: change.tenant, alarmId: change.alarm.id, planId, ...loggableError(error) },
      'alarm plan unreadable; the change is recorded without notifications',
    );
    return [];
  }
}

/** What a change of the alarm names for suppressions: its entity, check, alarm and plan. */
function changeTarget(change: AlarmChange, entityId: string): Required<SuppressionTarget> {
  return { entityId, checkId: change.check.id, alarmId: change.alarm.id, planId: change.alarm.doc.notification_plan_id };
}

/**
 * Ids of the suppressions covering the change at its own time. A failure to evaluate them is logged
 * and counts as none: paging about a change is better than dropping it silently.
 */
function suppressionsAt(deps: CommitDeps, change: AlarmChange, entityId: string): readonly string[] {
  try {
    return deps.monitoring.suppressions.activeAt(change.tenant, changeTarget(change, entityId), change.transition.timestampMs);
  } catch (error) {
    deps.logger.error({ tenant: change.tenant, alarmId: change.alarm.id, ...loggableError(error) }, 'suppressions unreadable; the change notifies as if none covered it');
    return [];
  }
}

/** The one decision rule over the plan's list and the covering suppressions (asked only when there is something to stop). */
function decide(deps: CommitDeps, change: AlarmChange, entityId: string): NotificationDecision {
  const { state, previousState } = change.transition;
  const planned = changeNotifies(change.transition) ? notificationsOf(deps, change) : [];
  const activeSuppressions = planned.length === 0 ? [] : suppressionsAt(deps, change, entityId);
  return decideNotifications({ state, previousState, planned, activeSuppressions });
}

/** The spec 2.7 suppression ids of the payload's entity, check and alarm records now; undefined (logged: the records then say null) when unreadable. */
function recordSuppressions(deps: CommitDeps, change: AlarmChange, entityId: string): EventSuppressionIds | undefined {
  try {
    return deps.monitoring.suppressions.eventIds(change.tenant, changeTarget(change, entityId), deps.monitoring.clock.now());
  } catch (error) {
    deps.logger.warn({ tenant: change.tenant, alarmId: change.alarm.id, ...loggableError(error) }, 'suppressions unreadable; the payload lists none');
    return undefined;
  }
}

/** Queues one outbox row per notification, each carrying the spec 6.1 payload; returns the rows' ids in the same order. */
function enqueueAll(deps: CommitDeps, change: AlarmChange, entityId: string, logEntryId: string, notificationIds: readonly string[]): string[] {
  const { tenant, check, alarm, transition } = change;
  const suppressions = recordSuppressions(deps, change, entityId);
  const event = buildAlarmEvent({
    tenant,
    logEntryId,
    txnId: changeTxnId(logEntryId),
    entity: deps.monitoring.entities.entity(tenant, entityId),
    check: deps.monitoring.entities.check(tenant, entityId, check.id),
    alarm,
    transition,
    result: change.result,
    observations: change.observations,
    ...(suppressions !== undefined ? { suppressions } : {}),
  });
  return notificationIds.map((notificationId) =>
    deps.outbox.enqueue(tenant, { notificationId, entityId, alarmId: alarm.id, checkId: check.id, state: transition.state, event }),
  );
}

/**
 * Records a change in one MonitoringStore transaction: the changelog entry (spec 2.6 plus
 * previous_state, analyzed by the zone that completed it) and the alarm's committed state, then
 * what decideNotifications says of its plan: `notified` queues one outbox row per notification of
 * the plan's list for the new state (the spec 6.1 payload, the check as reads show it: secrets
 * redacted); `suppressed` (a suppression covered the change at its timestamp) queues nothing and
 * writes one suppression log entry; every status but `silent` writes one history record. Throws
 * when the transaction fails; then nothing of it is written.
 */
export function commitChange(deps: CommitDeps, change: AlarmChange): CommitOutcome {
  const { tenant, check, alarm, transition } = change;
  const entityId = check.entityId ?? '';
  // A result without a zone (an agent check's) is analyzed by no zone.
  const zoneId = transition.zoneId === '' ? null : transition.zoneId;
  return deps.monitoring.store.transaction(() => {
    const logEntryId = deps.monitoring.changelogs.append(tenant, {
      timestampMs: transition.timestampMs,
      entityId,
      alarmId: alarm.id,
      checkId: check.id,
      state: transition.state,
      previousState: transition.previousState,
      zoneId,
    });
    deps.states.put(tenant, {
      entityId,
      alarmId: alarm.id,
      checkId: check.id,
      state: transition.state,
      previousState: transition.previousState,
      status: transition.status,
      zoneId,
      timestampMs: transition.timestampMs,
    });
    const decision = decide(deps, change, entityId);
    if (decision.status === 'silent') return { logEntryId, enqueued: 0, notifications: decision.status };
    const txnId = changeTxnId(logEntryId);
    const planId = alarm.doc.notification_plan_id;
    const outboxIds = decision.status === 'notified' ? enqueueAll(deps, change, entityId, logEntryId, decision.notificationIds) : [];
    const fields = { timestampMs: transition.timestampMs, entityId, alarmId: alarm.id, checkId: check.id, planId, state: transition.state, previousState: transition.previousState, txnId };
    if (decision.status === 'suppressed') deps.monitoring.suppressions.appendLog(tenant, { ...fields, suppressions: decision.suppressions });
    deps.monitoring.history.record(tenant, {
      ...fields,
      id: logEntryId,
      status: decision.status,
      message: transition.status,
      suppressions: decision.status === 'suppressed' ? decision.suppressions : null,
      notificationIds: decision.planned,
      outboxIds,
    });
    return { logEntryId, enqueued: outboxIds.length, notifications: decision.status };
  });
}
