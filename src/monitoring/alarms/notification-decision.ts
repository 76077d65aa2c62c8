// Owns what an alarm state change sends: nothing for a new alarm's first OK, the plan's list for the new state, or a suppression log instead while a suppression covers it.
import type { AlarmState } from '../alarm-language/ast.js';

/**
 * What a change does with its plan: `silent` (a new alarm's first OK: recorded, never notified),
 * `none` (the plan's list for the state is empty), `suppressed` (active suppressions stop every
 * notification; a suppression log is written instead) or `notified` (one delivery per id).
 */
export type NotificationStatus = 'silent' | 'none' | 'suppressed' | 'notified';

/** The decision for one change. */
export interface NotificationDecision {
  readonly status: NotificationStatus;
  /** The notifications to deliver (empty unless `notified`). */
  readonly notificationIds: readonly string[];
  /** The notifications the plan's list named (what a suppression stopped, for `suppressed`). */
  readonly planned: readonly string[];
  /** The ids of the suppressions that covered the change (empty unless `suppressed`). */
  readonly suppressions: readonly string[];
}

/** What the decision is made from. */
export interface DecisionInput {
  readonly state: AlarmState;
  readonly previousState: AlarmState | null;
  /** The notification ids of the plan's list for the new state (ok_state, warning_state or critical_state). */
  readonly planned: readonly string[];
  /** Ids of the suppressions active at the change's time that cover the alarm (its entity, check, alarm or plan). */
  readonly activeSuppressions: readonly string[];
}

/**
 * Whether a change notifies at all. The first state of a new alarm (no previous state) is recorded
 * but notifies only when it is not OK: "all is well" about an alarm nobody has heard of is noise, a
 * new alarm that starts CRITICAL or WARNING is news. Every later change notifies.
 */
export function changeNotifies(change: { readonly state: AlarmState; readonly previousState: AlarmState | null }): boolean {
  return change.previousState !== null || change.state !== 'OK';
}

/**
 * The one rule both the live runtime (alarm-commit.ts) and the backtest apply: silent, then none,
 * then suppressed, then notified. A suppression stops the whole list; nothing is queued for later.
 */
export function decideNotifications(input: DecisionInput): NotificationDecision {
  if (!changeNotifies(input)) return { status: 'silent', notificationIds: [], planned: [], suppressions: [] };
  if (input.planned.length === 0) return { status: 'none', notificationIds: [], planned: [], suppressions: [] };
  if (input.activeSuppressions.length > 0) return { status: 'suppressed', notificationIds: [], planned: input.planned, suppressions: input.activeSuppressions };
  return { status: 'notified', notificationIds: input.planned, planned: input.planned, suppressions: [] };
}
