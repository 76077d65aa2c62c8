// Owns recording one alarm state change: changelog entry, committed state and outbox rows, in one transaction.
import type { AlarmState } from '../alarm-language/ast.js';
import type { AlarmDoc } from '../alarm-rules.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import { buildAlarmEvent } from '../delivery/alarm-event.js';
import type { Outbox } from '../delivery/outbox.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { AlarmTransition, ZoneVerdict } from './alarm-consensus.js';
import type { AlarmStateStore } from './alarm-state-store.js';
import { loggableError } from '../loggable-error.js';

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

/** What recording did: the changelog entry and how many notifications were queued. */
export interface CommitOutcome {
  readonly logEntryId: string;
  readonly enqueued: number;
}

/**
 * Whether a change notifies. The first state of a new alarm (no previous state) is recorded but
 * notifies only when it is not OK: "all is well" about an alarm nobody has heard of is noise, a
 * new alarm that starts CRITICAL or WARNING is news. Every later change notifies.
 */
export function changeNotifies(transition: Pick<AlarmTransition, 'state' | 'previousState'>): boolean {
  return transition.previousState !== null || transition.state !== 'OK';
}

/** The plan list a state triggers: OK → ok_state, WARNING → warning_state, CRITICAL → critical_state. */
export function planListOf(state: AlarmState): 'ok_state' | 'warning_state' | 'critical_state' {
  return state === 'OK' ? 'ok_state' : state === 'WARNING' ? 'warning_state' : 'critical_state';
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

/**
 * Records a change in one MonitoringStore transaction: the changelog entry (spec 2.6 plus
 * previous_state, analyzed by the zone that completed it), the alarm's committed state, and one
 * outbox row per notification of the plan's list for the new state, each carrying the spec 6.1
 * payload (the check as reads show it: secrets redacted). Throws when the transaction fails;
 * then nothing of it is written.
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
    if (!changeNotifies(transition)) return { logEntryId, enqueued: 0 };
    const notificationIds = notificationsOf(deps, change);
    if (notificationIds.length === 0) return { logEntryId, enqueued: 0 };
    const event = buildAlarmEvent({
      tenant,
      logEntryId,
      entity: deps.monitoring.entities.entity(tenant, entityId),
      check: deps.monitoring.entities.check(tenant, entityId, check.id),
      alarm,
      transition,
      result: change.result,
      observations: change.observations,
    });
    for (const notificationId of notificationIds) {
      deps.outbox.enqueue(tenant, { notificationId, entityId, alarmId: alarm.id, checkId: check.id, state: transition.state, event });
    }
    return { logEntryId, enqueued: notificationIds.length };
  });
}
