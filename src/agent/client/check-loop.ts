// Owns running the agent's schedule: each enabled check on its period from a random first phase, through its collector, into results.
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import { SECOND_MS } from '../../core/time.js';
import { AGENT_CHECK_PERIOD_S_MAX, AGENT_FIELD_LENGTH_MAX, AGENT_SCHEDULE_CHECKS_MAX } from '../agent-limits.js';
import type { Collected, Collector } from '../collectors/collector-registry.js';
import type { MetricsPostParams, ScheduledCheck } from '../protocol/messages.js';
import type { AgentLogger, AgentScheduler, RandomSource, TimerHandle } from './agent-deps.js';

/** What the loop needs. */
export interface CheckLoopDeps {
  /** A new collector for a check type (collector-registry.ts collectorFor); one per check, kept while the check is unchanged. */
  readonly collectorFor: (type: string) => Collector;
  readonly clock: Clock;
  readonly scheduler: AgentScheduler;
  readonly random: RandomSource;
  readonly logger: AgentLogger;
  /** Receives every result, in check_metrics.post form. */
  readonly onResult: (result: MetricsPostParams) => void;
}

/** Counters of the loop. */
export interface CheckLoopStatus {
  /** Checks in the schedule (disabled ones included). */
  readonly checks: number;
  /** Enabled checks, each with a timer. */
  readonly enabled: number;
  /** Collections in flight. */
  readonly running: number;
  /** Collections started since the loop was made. */
  readonly runs: number;
  /** Due runs skipped because the previous one was still in flight or the process fell behind. */
  readonly skipped: number;
  /** Runs that hit their check's timeout. */
  readonly timeouts: number;
}

interface Slot {
  readonly check: ScheduledCheck;
  /** Identity of what the check does: a changed one restarts with a new phase and collector. */
  readonly signature: string;
  readonly collector: Collector;
  readonly periodMs: number;
  timer: TimerHandle | undefined;
  nextDueMs: number;
  running: boolean;
}

function signatureOf(check: ScheduledCheck): string {
  return JSON.stringify([check.type, check.period, check.timeout, check.disabled, check.details]);
}

/** Longest timer the loop arms for a period or a timeout: setTimeout fires a delay beyond 2^31 ms at once. */
const TIMER_MS_MAX = AGENT_CHECK_PERIOD_S_MAX * SECOND_MS;

/** True when a period or timeout in seconds makes a timer the loop can arm: 1 ms to TIMER_MS_MAX. */
function timeable(seconds: number): boolean {
  const ms = Math.round(seconds * SECOND_MS);
  return Number.isSafeInteger(ms) && ms > 0 && ms <= TIMER_MS_MAX;
}

function clip(text: string): string {
  return text.length <= AGENT_FIELD_LENGTH_MAX ? text : text.slice(0, AGENT_FIELD_LENGTH_MAX);
}

/**
 * Runs the checks of the latest schedule. Each enabled check gets a collector and a timer: the first run falls at a
 * random point of its first period (so an agent's checks, and a fleet of agents, do not all collect at once), then
 * every period on that phase. A run still in flight when the next is due makes that one skip; a run past the check's
 * timeout is reported unavailable. A new schedule keeps the phase and collector (with its rate state) of every check
 * it leaves unchanged.
 */
export class CheckLoop {
  private readonly slots = new Map<string, Slot>();
  private runs = 0;
  private skipped = 0;
  private timeouts = 0;
  private stopped = false;

  constructor(private readonly deps: CheckLoopDeps) {}

  /**
   * Replaces the schedule (at most AGENT_SCHEDULE_CHECKS_MAX checks are run; the rest are logged and left out).
   * Schedules come through scheduleResult, which bounds periods and timeouts; a check whose period or timeout would
   * still make a timer beyond AGENT_CHECK_PERIOD_S_MAX (or none) is logged and not run.
   */
  setSchedule(checks: readonly ScheduledCheck[]): void {
    if (this.stopped) return;
    if (checks.length > AGENT_SCHEDULE_CHECKS_MAX) {
      this.deps.logger.warn({ checks: checks.length, max: AGENT_SCHEDULE_CHECKS_MAX }, 'schedule longer than the agent runs; the rest is left out');
    }
    const next = new Map<string, ScheduledCheck>();
    for (const check of checks.slice(0, AGENT_SCHEDULE_CHECKS_MAX)) next.set(check.id, check);
    for (const [id, slot] of this.slots) {
      const check = next.get(id);
      if (check === undefined || signatureOf(check) !== slot.signature) this.remove(id);
    }
    for (const check of next.values()) {
      if (!this.slots.has(check.id)) this.add(check);
    }
  }

  /** Stops every timer; results of runs in flight are dropped. */
  stop(): void {
    this.stopped = true;
    for (const id of [...this.slots.keys()]) this.remove(id);
  }

  /** The loop's counters now. */
  status(): CheckLoopStatus {
    let enabled = 0;
    let running = 0;
    for (const slot of this.slots.values()) {
      if (slot.timer !== undefined || slot.running) enabled += 1;
      if (slot.running) running += 1;
    }
    return { checks: this.slots.size, enabled, running, runs: this.runs, skipped: this.skipped, timeouts: this.timeouts };
  }

  private add(check: ScheduledCheck): void {
    const periodMs = Math.round(check.period * SECOND_MS);
    const slot: Slot = { check, signature: signatureOf(check), collector: this.deps.collectorFor(check.type), periodMs, timer: undefined, nextDueMs: 0, running: false };
    this.slots.set(check.id, slot);
    if (check.disabled) return;
    if (!timeable(check.period) || !timeable(check.timeout)) {
      this.deps.logger.warn({ checkId: check.id, period: check.period, timeout: check.timeout }, 'check has no usable period or timeout; not run');
      return;
    }
    const phaseMs = Math.min(periodMs - 1, Math.floor(this.deps.random() * periodMs));
    slot.nextDueMs = this.deps.clock.now() + phaseMs;
    this.arm(slot);
  }

  private remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    if (slot.timer !== undefined) this.deps.scheduler.clearTimeout(slot.timer);
    slot.timer = undefined;
    this.slots.delete(id);
  }

  private arm(slot: Slot): void {
    const delayMs = Math.max(0, slot.nextDueMs - this.deps.clock.now());
    slot.timer = this.deps.scheduler.setTimeout(() => this.fire(slot), delayMs);
  }

  private fire(slot: Slot): void {
    slot.timer = undefined;
    if (this.slots.get(slot.check.id) !== slot) return;
    const nowMs = this.deps.clock.now();
    if (slot.running) this.skipped += 1;
    else void this.run(slot, nowMs);
    // Next due on the phase; periods the process slept through are skipped, not run in a burst.
    slot.nextDueMs += slot.periodMs;
    if (slot.nextDueMs <= nowMs) {
      const behind = Math.floor((nowMs - slot.nextDueMs) / slot.periodMs) + 1;
      this.skipped += behind;
      slot.nextDueMs += behind * slot.periodMs;
    }
    this.arm(slot);
  }

  private async run(slot: Slot, startMs: number): Promise<void> {
    slot.running = true;
    this.runs += 1;
    const { check } = slot;
    const collected = await this.collectWithin(slot, startMs);
    slot.running = false;
    // A check removed or changed meanwhile reports nothing: its result would name a check the endpoint no longer has.
    if (this.stopped || this.slots.get(check.id) !== slot) return;
    this.deps.onResult({
      check_id: check.id,
      check_type: check.type,
      state: collected.available ? 'available' : 'unavailable',
      status: clip(collected.status),
      metrics: collected.metrics,
      timestamp: startMs,
    });
  }

  private collectWithin(slot: Slot, startMs: number): Promise<Collected> {
    const timeoutMs = Math.max(1, Math.round(slot.check.timeout * SECOND_MS));
    return new Promise<Collected>((resolve) => {
      const timer = this.deps.scheduler.setTimeout(() => {
        this.timeouts += 1;
        resolve({ available: false, status: `check timed out after ${timeoutMs} ms`, metrics: [] });
      }, timeoutMs);
      slot.collector.collect(slot.check.details, startMs).then(
        (collected) => {
          this.deps.scheduler.clearTimeout(timer);
          resolve(collected);
        },
        (error: unknown) => {
          this.deps.scheduler.clearTimeout(timer);
          // Only a StrataError's message is known to be safe to send; anything else is logged here by its name.
          const status = isStrataError(error) ? error.message : 'the collector failed';
          this.deps.logger.warn({ checkId: slot.check.id, type: slot.check.type, code: isStrataError(error) ? error.code : undefined, name: error instanceof Error ? error.name : typeof error }, 'collection failed');
          resolve({ available: false, status, metrics: [] });
        },
      );
    });
  }
}
