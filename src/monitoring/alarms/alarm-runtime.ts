// Owns turning check observations into alarm states: evaluate every alarm of the check, step its consensus, record changes.
import type { Clock } from '../../core/clock.js';
import type { AlarmDoc } from '../alarm-rules.js';
import type { MonitoringChange } from '../change-feed.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { Outbox } from '../delivery/outbox.js';
import { ALARM_CRITERIA_CACHE_ENTITIES_MAX, ALARM_MEMORY_ENTRIES_MAX, ALARM_PREVIOUS_RESULTS_CHECKS_MAX } from '../monitoring-limits.js';
import type { MonitoringService } from '../monitoring-service.js';
import { isRemoteType } from '../check-types.js';
import { consensusParams, emptyMemory, PSEUDO_ZONE_ID, stepAlarm, type AlarmMemory, type ZoneVerdict } from './alarm-consensus.js';
import { commitChange, type AlarmLogger, type CommitDeps, type CommitOutcome } from './alarm-commit.js';
import { LruMap } from './alarm-lru.js';
import { AlarmStateStore } from './alarm-state-store.js';
import { compileCriteria, evaluateCriteria, type CompiledCriteria } from './criteria-eval.js';
import { loggableError } from '../loggable-error.js';

/** What the alarm runtime needs. */
export interface AlarmRuntimeDeps {
  readonly monitoring: MonitoringService;
  /** Where notifications of a change are queued, in the change's transaction. */
  readonly outbox: Outbox;
  /** Tells the deliverer new outbox rows are waiting (called after the transaction committed). */
  readonly wakeDelivery: () => void;
  readonly clock: Clock;
  readonly logger: AlarmLogger;
  /** The zones this process runs checks from (--zones); quorum counts only these. Absent: every zone. */
  readonly zones?: readonly string[];
}

/** Counters of the alarm runtime, for /metrics and tests. */
export interface AlarmRuntimeStats {
  /** Observations handed to observe(). */
  readonly observations: number;
  /** Alarm evaluations (one observation of a check with N enabled alarms counts N). */
  readonly evaluations: number;
  /** State changes recorded. */
  readonly transitions: number;
  /** Outbox rows queued. */
  readonly enqueued: number;
  /** Evaluations or recordings that failed (each logged). */
  readonly errors: number;
  /** Alarms whose consensus memory is held (at most ALARM_MEMORY_ENTRIES_MAX). */
  readonly alarmsInMemory: number;
}

/** An enabled alarm with its criteria compiled once; `compiled` is null when they do not compile (logged once). */
interface LiveAlarm {
  readonly alarm: StoredDoc<AlarmDoc>;
  readonly compiled: CompiledCriteria | null;
}

const SEP = '\u0000';

/** Each zone's last verdict in the memory, for the notification's observations (an agent check's one pseudo-zone as the change's zone). */
function observationsOf(memory: AlarmMemory, changeZoneId: string): ZoneVerdict[] {
  return Object.entries(memory.zones).map(([zoneId, zone]) => ({
    zoneId: zoneId === PSEUDO_ZONE_ID ? changeZoneId : zoneId,
    timestampMs: zone.timestampMs,
    state: zone.state,
    status: zone.status,
  }));
}

/** What evaluation reads of a result: everything but the response body. */
function evaluated(result: CheckResult): CheckResult {
  return { monitoringZoneId: result.monitoringZoneId, timestampMs: result.timestampMs, available: result.available, status: result.status, metrics: result.metrics };
}

/**
 * The alarm runtime: each observation of a check is evaluated against every enabled alarm of the
 * check (criteria compiled once and cached per entity until an entity, check or alarm of it
 * changes), with the same zone's previous result for previous() and rate(); the verdict steps the
 * alarm's consensus memory (consecutiveCount, consistencyLevel across zones), and a state change is
 * recorded with its notifications in one transaction (alarm-commit.ts). Memory starts from the
 * persisted state, so a restart neither forgets a state nor notifies it again. Every cache is
 * bounded; what a bounded cache forgets is reloaded from the store or rebuilt.
 */
export class AlarmRuntime {
  /** The committed states (also read by the overview view). */
  readonly states: AlarmStateStore;
  private readonly commitDeps: CommitDeps;
  /** `tenant␀entity` → check id → its enabled alarms, compiled. */
  private readonly alarmsByEntity = new LruMap<string, Map<string, readonly LiveAlarm[]>>(ALARM_CRITERIA_CACHE_ENTITIES_MAX);
  /** `tenant␀entity␀check` → zone → the zone's previous result. */
  private readonly previous = new LruMap<string, Map<string, CheckResult>>(ALARM_PREVIOUS_RESULTS_CHECKS_MAX);
  /** `tenant␀entity␀alarm` → consensus memory (each zone's last verdict and run, and the alarm's state). */
  private readonly memories = new LruMap<string, AlarmMemory>(ALARM_MEMORY_ENTRIES_MAX);
  private readonly unsubscribe: () => void;
  private readonly counters = { observations: 0, evaluations: 0, transitions: 0, enqueued: 0, errors: 0 };

  constructor(private readonly deps: AlarmRuntimeDeps) {
    this.states = new AlarmStateStore(deps.monitoring.store.db);
    this.commitDeps = { monitoring: deps.monitoring, states: this.states, outbox: deps.outbox, logger: deps.logger };
    this.unsubscribe = deps.monitoring.changes.subscribe((change) => this.onChange(change));
  }

  /** Evaluates one observation of `check` against each of its enabled alarms; never throws (failures are logged and counted). */
  observe(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void {
    this.counters.observations += 1;
    const entityId = check.entityId;
    if (entityId === null) return;
    let alarms: readonly LiveAlarm[];
    try {
      alarms = this.alarmsOf(tenant, entityId, check.id);
    } catch (error) {
      this.failed({ tenant, entityId, checkId: check.id }, error, 'alarms of a check unreadable');
      return;
    }
    // Only checks with alarms keep their zones' latest results (previous() and rate() read them),
    // and only what evaluation reads: a response body (include_body) can be 512 KiB.
    if (alarms.length === 0) return;
    const previous = this.swapPrevious(tenant, entityId, check.id, evaluated(result), isRemoteType(check.doc.type) ? result.monitoringZoneId : PSEUDO_ZONE_ID);
    let enqueued = 0;
    for (const live of alarms) {
      if (live.compiled === null) continue;
      try {
        enqueued += this.observeAlarm(tenant, check, live.alarm, live.compiled, result, previous);
      } catch (error) {
        this.failed({ tenant, entityId, checkId: check.id, alarmId: live.alarm.id }, error, 'alarm evaluation failed');
      }
    }
    if (enqueued > 0) this.deps.wakeDelivery();
  }

  /** The runtime's counters so far. */
  stats(): AlarmRuntimeStats {
    return { ...this.counters, alarmsInMemory: this.memories.size };
  }

  /** Stops listening to configuration changes (the runtime's stop). */
  stop(): void {
    this.unsubscribe();
  }

  /** Evaluates and steps one alarm and records a change; returns how many outbox rows it queued. */
  private observeAlarm(
    tenant: string,
    check: StoredDoc<CheckDoc>,
    alarm: StoredDoc<AlarmDoc>,
    compiled: CompiledCriteria,
    result: CheckResult,
    previous: CheckResult | null,
  ): number {
    this.counters.evaluations += 1;
    const verdict = evaluateCriteria(compiled, result, previous);
    const observation: ZoneVerdict = { zoneId: result.monitoringZoneId, timestampMs: result.timestampMs, state: verdict.state, status: verdict.status };
    const key = [tenant, check.entityId ?? '', alarm.id].join(SEP);
    const before = this.memoryOf(key, tenant, check.entityId ?? '', alarm.id);
    const step = stepAlarm(before, observation, consensusParams(compiled, check.doc, this.deps.zones));
    if (step.transition === null) {
      this.memories.set(key, step.memory);
      return 0;
    }
    let outcome: CommitOutcome;
    try {
      outcome = commitChange(this.commitDeps, {
        tenant,
        check,
        alarm,
        transition: step.transition,
        result,
        observations: observationsOf(step.memory, step.transition.zoneId),
      });
    } catch (error) {
      // Nothing was written: keep what the zones said but not the change, so the next observation
      // of any zone steps to the change again instead of leaving it unrecorded.
      this.memories.set(key, { state: before.state, zones: step.memory.zones });
      throw error;
    }
    this.memories.set(key, step.memory);
    this.counters.transitions += 1;
    this.counters.enqueued += outcome.enqueued;
    return outcome.enqueued;
  }

  /** The alarm's memory, from its persisted state when not in memory (first observation, after a restart or eviction). */
  private memoryOf(key: string, tenant: string, entityId: string, alarmId: string): AlarmMemory {
    return this.memories.get(key) ?? emptyMemory(this.states.get(tenant, entityId, alarmId)?.state ?? null);
  }

  /**
   * Records `result` as its zone's latest and returns the one it replaces (null for the zone's first).
   * An agent check's results share one key: the agent posts each result once, over whichever of its
   * zone connections is up, so previous() and rate() must not depend on the zone that carried it.
   */
  private swapPrevious(tenant: string, entityId: string, checkId: string, result: CheckResult, zoneKey: string): CheckResult | null {
    const key = [tenant, entityId, checkId].join(SEP);
    let zones = this.previous.get(key);
    if (zones === undefined) {
      zones = new Map();
      this.previous.set(key, zones);
    }
    const before = zones.get(zoneKey) ?? null;
    zones.set(zoneKey, result);
    return before;
  }

  /** The enabled alarms of a check, compiled; cached per entity. */
  private alarmsOf(tenant: string, entityId: string, checkId: string): readonly LiveAlarm[] {
    const key = [tenant, entityId].join(SEP);
    let checks = this.alarmsByEntity.get(key);
    if (checks === undefined) {
      checks = new Map();
      this.alarmsByEntity.set(key, checks);
    }
    let alarms = checks.get(checkId);
    if (alarms === undefined) {
      alarms = this.deps.monitoring.entities
        .alarmsOfCheck(tenant, entityId, checkId)
        .filter((alarm) => !alarm.doc.disabled)
        .map((alarm) => ({ alarm, compiled: this.compile(tenant, alarm) }));
      checks.set(checkId, alarms);
    }
    return alarms;
  }

  private compile(tenant: string, alarm: StoredDoc<AlarmDoc>): CompiledCriteria | null {
    try {
      return compileCriteria(alarm.doc.criteria);
    } catch (error) {
      this.failed({ tenant, entityId: alarm.entityId, alarmId: alarm.id }, error, 'alarm criteria do not compile; the alarm is skipped until it changes');
      return null;
    }
  }

  /** Drops what a committed configuration change makes stale. */
  private onChange(change: MonitoringChange): void {
    // Any change under an entity may add, drop or alter the alarms of its checks: recompile lazily.
    this.alarmsByEntity.delete([change.tenant, change.entityId].join(SEP));
    if (change.kind === 'check' && change.op === 'delete') this.previous.delete([change.tenant, change.entityId, change.id].join(SEP));
    if (change.kind === 'alarm' && change.op !== 'create') {
      // New criteria may count differently: restart the memory from the committed state.
      this.memories.delete([change.tenant, change.entityId, change.id].join(SEP));
      if (change.op === 'delete') this.states.remove(change.tenant, change.entityId, change.id);
    }
  }

  private failed(context: object, error: unknown, message: string): void {
    this.counters.errors += 1;
    this.deps.logger.error({ ...context, ...loggableError(error) }, message);
  }
}
