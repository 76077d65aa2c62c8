// Owns the alarm backtest: an alarm (or unsaved criteria) replayed over its check's stored observations, with the notifications each change would have sent.
import { BacktestReportCache } from './backtest-report-cache.js';
import type { AlarmState } from '../alarm-language/ast.js';
import { consensusParams, type AlarmTransition } from '../alarms/alarm-consensus.js';
import { planListOf } from '../alarms/alarm-commit.js';
import { compileCriteria } from '../alarms/criteria-eval.js';
import { decideNotifications, type NotificationStatus } from '../alarms/notification-decision.js';
import type { CheckDoc } from '../check-rules.js';
import { isRemoteType } from '../check-types.js';
import type { StoredDoc } from '../doc-store.js';
import { BACKTEST_OBSERVATIONS_MAX } from '../monitoring-limits.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { SuppressionTarget } from '../suppressions/suppression-service.js';
import type { TimeWindow } from '../time-series.js';
import type { Store } from '../../store-types.js';
import { AlarmReplay, replayInSteps } from './backtest-replay.js';
import { BacktestSlots } from './backtest-slots.js';
import { backtestWindow, replayedPart, type UnreplayedPart } from './backtest-window.js';
import { listSeries, storedObservations, type ObservationSource, type QueryRunner } from './stored-observations.js';

/** A notification a change would have sent. */
export interface BacktestNotification {
  readonly id: string;
  /** The notification's type; null when it no longer exists. */
  readonly type: string | null;
}

/** One state change the replay found, with what it would have sent. */
export interface BacktestChange {
  readonly timestampMs: number;
  readonly state: AlarmState;
  readonly previousState: AlarmState | null;
  readonly status: string;
  /** The zone whose verdict decided it (null for an agent result carried by no zone). */
  readonly zoneId: string | null;
  /** What the change does with the plan (notification-decision.ts): silent, none, suppressed or notified. */
  readonly notificationStatus: NotificationStatus;
  /** The notifications it would have sent (empty unless notified). */
  readonly notifications: readonly BacktestNotification[];
  /** The suppressions that would have stopped its notifications (empty unless suppressed). */
  readonly suppressedBy: readonly string[];
}

/** Changes into each state and the observations replayed. */
export interface BacktestTotals {
  readonly OK: number;
  readonly WARNING: number;
  readonly CRITICAL: number;
  readonly observations: number;
}

/** A whole backtest: every change in time order, the totals, and which part of the window was replayed. */
export interface BacktestReport {
  /** The asked window, defaults resolved. */
  readonly window: TimeWindow;
  readonly replayed: TimeWindow;
  readonly unreplayed: readonly UnreplayedPart[];
  readonly changes: readonly BacktestChange[];
  readonly totals: BacktestTotals;
}

/** The asked window: integer ms, either end optional (backtest-window.ts). */
export interface BacktestWindowRequest {
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** What backtests need. */
export interface BacktestDeps {
  readonly monitoring: MonitoringService;
  readonly engine: Store;
  /** The zones this process runs checks from (--zones): quorum counts them as the live runtime does. Absent: every zone. */
  readonly runZones?: readonly string[];
  /** Runs each engine query (the server's query admission); default: at once. */
  readonly runQuery?: QueryRunner;
  /** Bounds backtests in flight; default: BACKTEST_CONCURRENCY_MAX and BACKTEST_PER_TENANT_MAX. */
  readonly slots?: BacktestSlots;
  readonly observationsMax?: number;
}

/** What one replay is of. */
interface Subject {
  readonly tenant: string;
  readonly check: StoredDoc<CheckDoc>;
  readonly criteria: string | null;
  /** The saved alarm with its plan; null for criteria not saved (no plan: nothing is notified). */
  readonly alarm: { readonly id: string; readonly planId: string } | null;
}

/**
 * Replays alarms over their check's stored observations (FULL data of every zone the alarm
 * counts) through the evaluator and consensus the runtime uses, from an empty memory, and decides
 * each change's notifications with the runtime's rule (plan list, suppressions at the change's
 * time). Bounded: range, series and observations, steps between turns of the event loop, and
 * BacktestSlots in flight.
 */
export class AlarmBacktests {
  /** Reports of recent replays, kept briefly so the next pages of a backtest are cut from them instead of replayed. */
  readonly reports = new BacktestReportCache();
  private readonly slots: BacktestSlots;

  constructor(private readonly deps: BacktestDeps) {
    this.slots = deps.slots ?? new BacktestSlots();
  }

  /** Replays a saved alarm (enabled or not) over the window; 404 for a missing entity or alarm. */
  async ofAlarm(tenant: string, entityId: string, alarmId: string, window: BacktestWindowRequest): Promise<BacktestReport> {
    const { entities } = this.deps.monitoring;
    const alarm = entities.alarm(tenant, entityId, alarmId);
    const check = entities.check(tenant, entityId, alarm.doc.check_id);
    return this.run({ tenant, check, criteria: alarm.doc.criteria, alarm: { id: alarm.id, planId: alarm.doc.notification_plan_id } }, window);
  }

  /** Replays criteria not saved as an alarm over a check of the entity (test-alarm with from/to); nothing is notified. */
  async ofCriteria(tenant: string, entityId: string, checkId: string, criteria: string, window: BacktestWindowRequest): Promise<BacktestReport> {
    const check = this.deps.monitoring.entities.check(tenant, entityId, checkId);
    return this.run({ tenant, check, criteria, alarm: null }, window);
  }

  private async run(subject: Subject, asked: BacktestWindowRequest): Promise<BacktestReport> {
    const window = backtestWindow(asked, this.deps.monitoring.clock.now());
    const compiled = compileCriteria(subject.criteria);
    return this.slots.run(subject.tenant, async () => {
      const { check, tenant } = subject;
      const remote = isRemoteType(check.doc.type);
      const params = consensusParams(compiled, check.doc, this.deps.runZones);
      const source: ObservationSource = {
        engine: this.deps.engine,
        tenant,
        entityId: check.entityId ?? '',
        checkId: check.id,
        zones: remote ? params.zones : null,
        types: this.deps.monitoring.store.changelogs.metricTypes(tenant, check.entityId ?? '', check.id),
        periodMs: params.periodMs,
        ...(this.deps.runQuery !== undefined ? { runQuery: this.deps.runQuery } : {}),
      };
      const plan = this.deps.engine.plan({ tenant, metric: check.id, from: window.fromMs, to: window.toMs, resolution: 'FULL' });
      const part = replayedPart(window, plan.servedFrom);
      const series = await listSeries(source);
      const replay = new AlarmReplay(compiled, params, remote);
      const decide = this.decider(subject);
      const changes: BacktestChange[] = [];
      const observed = storedObservations(source, series, part.replayed.fromMs, part.replayed.toMs, this.deps.observationsMax ?? BACKTEST_OBSERVATIONS_MAX);
      await replayInSteps(replay, observed, (transition) => changes.push(decide(transition)));
      return { window, ...part, changes, totals: totalsOf(changes, replay.observations()) };
    });
  }

  /** The change of each transition: the plan's list for the new state, the suppressions at its time, the runtime's decision. */
  private decider(subject: Subject): (transition: AlarmTransition) => BacktestChange {
    const { monitoring } = this.deps;
    const { tenant, check, alarm } = subject;
    const entityId = check.entityId ?? '';
    const plan = alarm === null ? null : planOf(monitoring, tenant, alarm.planId);
    const target: SuppressionTarget = alarm === null ? { entityId, checkId: check.id } : { entityId, checkId: check.id, alarmId: alarm.id, planId: alarm.planId };
    const types = new Map<string, string | null>();
    const typeOf = (id: string): string | null => {
      if (!types.has(id)) types.set(id, notificationType(monitoring, tenant, id));
      return types.get(id) ?? null;
    };
    return (transition) => {
      const planned = plan === null ? [] : plan[planListOf(transition.state)];
      const decision = decideNotifications({
        state: transition.state,
        previousState: transition.previousState,
        planned,
        activeSuppressions: monitoring.suppressions.activeAt(tenant, target, transition.timestampMs),
      });
      return {
        timestampMs: transition.timestampMs,
        state: transition.state,
        previousState: transition.previousState,
        status: transition.status,
        // As the changelog records it: a result carried by no zone is analyzed by none.
        zoneId: transition.zoneId === '' ? null : transition.zoneId,
        notificationStatus: decision.status,
        notifications: decision.notificationIds.map((id) => ({ id, type: typeOf(id) })),
        suppressedBy: decision.suppressions,
      };
    };
  }
}

/** The plan's three lists, or null when the plan is gone (the runtime then records changes without notifications too). */
function planOf(monitoring: MonitoringService, tenant: string, planId: string): Record<'ok_state' | 'warning_state' | 'critical_state', readonly string[]> | null {
  try {
    return monitoring.notifications.plan(tenant, planId).doc;
  } catch {
    return null;
  }
}

function notificationType(monitoring: MonitoringService, tenant: string, id: string): string | null {
  try {
    return monitoring.notifications.notification(tenant, id).doc.type;
  } catch {
    return null;
  }
}

function totalsOf(changes: readonly BacktestChange[], observations: number): BacktestTotals {
  const count = (state: AlarmState) => changes.filter((change) => change.state === state).length;
  return { OK: count('OK'), WARNING: count('WARNING'), CRITICAL: count('CRITICAL'), observations };
}
