// Owns when checks run: one timer over a min-heap of (check, zone) slots, due runs into a bounded p-queue, lag and skips counted.
import PQueue from 'p-queue';
import type { Clock } from '../../core/clock.js';
import type { MonitoringChange } from '../change-feed.js';
import { CHECK_CONCURRENCY_DEFAULT, CHECK_LOAD_CHUNK, CHECK_QUEUE_MAX, CHECK_STOP_WAIT_MS, CHECK_TIMER_SLEEP_MS_MAX } from '../monitoring-limits.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { CheckRunner, RuntimeLogger } from './check-runner.js';
import type { ResultConsumer } from './result-sink.js';
import { DueFifo, type RunnerStats, type RunOutcome } from './runner-stats.js';
import { ScheduleHeap } from './schedule-heap.js';
import { ScheduledChecks, type CheckRef, type Slot, type SlotChange } from './scheduled-checks.js';
import { dueAtOrAfter } from './slot-phase.js';

/** One run as the scheduler saw it (for the bench and tests). */
export interface RunEvent {
  readonly type: string;
  readonly outcome: RunOutcome;
  /** Start time minus due time. */
  readonly lagMs: number;
  /** From start to settled. */
  readonly durationMs: number;
}

/** Settings of the scheduler. */
export interface CheckSchedulerOptions {
  /** Ids of the zones this process runs (default: every configured zone). */
  readonly zones?: readonly string[];
  /** Runs in flight at once (CHECK_CONCURRENCY_DEFAULT). */
  readonly concurrency?: number;
  /** Due runs waiting at most (CHECK_QUEUE_MAX); beyond it a due run is skipped and counted. */
  readonly queueMax?: number;
  /** When true (default), a check created or changed while running runs at once, then settles on its phase. */
  readonly promptFirstRun?: boolean;
  /** Told about every run that settled. */
  readonly onRun?: (event: RunEvent) => void;
}

/** What the scheduler needs. */
export interface CheckSchedulerDeps {
  readonly monitoring: MonitoringService;
  readonly runner: CheckRunner;
  readonly sink: ResultConsumer;
  readonly stats: RunnerStats;
  readonly clock: Clock;
  readonly logger: RuntimeLogger;
  readonly options?: CheckSchedulerOptions;
}

/** The scheduler's state now, for /metrics. */
export interface SchedulerState {
  readonly checks: number;
  readonly slots: number;
  /** Runs started and not settled. */
  readonly running: number;
  /** Due runs waiting for a run slot. */
  readonly waiting: number;
  /** How overdue the oldest waiting run is, 0 when none waits. */
  readonly oldestWaitingMs: number;
}

/**
 * Runs every enabled remote check of every tenant every `period` seconds from each of its zones
 * this process runs. Each (check, zone) slot has a stable phase in its period (slot-phase.ts); one
 * timer sleeps until the earliest slot is due; due slots go into a p-queue of bounded concurrency
 * and size. Agent checks are never scheduled here. Reloads on committed monitoring changes.
 */
export class CheckScheduler {
  private readonly heap = new ScheduleHeap<Slot>();
  private readonly catalog: ScheduledChecks;
  private readonly queue: PQueue;
  private readonly queueMax: number;
  private readonly promptFirstRun: boolean;
  /** Due times of waiting runs, oldest first (the queue is FIFO). */
  private readonly waitingDues = new DueFifo();
  private staleInHeap = 0;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private loaded = false;
  private running = false;
  private stopping = false;

  constructor(private readonly deps: CheckSchedulerDeps) {
    const options = deps.options ?? {};
    const zones = options.zones ?? deps.monitoring.zones.map((zone) => zone.id);
    this.catalog = new ScheduledChecks({ monitoring: deps.monitoring, zones, runs: (type) => deps.runner.runs(type), logger: deps.logger });
    this.queue = new PQueue({ concurrency: options.concurrency ?? CHECK_CONCURRENCY_DEFAULT });
    this.queueMax = options.queueMax ?? CHECK_QUEUE_MAX;
    this.promptFirstRun = options.promptFirstRun ?? true;
  }

  /** Loads every check at once and follows changes; the slots get their phase times but nothing runs until start() or tick(). */
  load(): void {
    if (this.loaded) return;
    for (const ref of this.subscribeAndScan()) this.loadCheck(ref);
  }

  /**
   * Arms the timer and loads every check in chunks of CHECK_LOAD_CHUNK, yielding between them, so
   * a server with many checks keeps answering while it loads; resolves once all are loaded.
   */
  async start(): Promise<void> {
    this.running = true;
    this.stopping = false;
    this.arm();
    if (this.loaded) return;
    const refs = this.subscribeAndScan();
    for (let at = 0; at < refs.length && !this.stopping; at += CHECK_LOAD_CHUNK) {
      for (const ref of refs.slice(at, at + CHECK_LOAD_CHUNK)) this.loadCheck(ref);
      this.arm();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Follows changes from now on (so none is missed while loading) and lists the checks to load. */
  private subscribeAndScan(): CheckRef[] {
    this.loaded = true;
    this.unsubscribe = this.deps.monitoring.changes.subscribe((change) => this.changed(change));
    return this.catalog.enabledRemoteChecks();
  }

  /** Schedules the slots of one check at their phase (a check a change loaded already keeps its slots). */
  private loadCheck(ref: CheckRef): void {
    const nowMs = this.deps.clock.now();
    const change = this.catalog.reload(ref.tenant, ref.entityId, ref.id);
    for (const slot of change.added) this.schedule(slot, dueAtOrAfter(nowMs, slot.periodMs, slot.phaseMs));
    this.retire(change.removed.length);
  }

  /** Counts now. */
  state(): SchedulerState {
    const counts = this.catalog.counts();
    const oldest = this.waitingDues.oldest();
    return {
      ...counts,
      running: this.queue.pending,
      waiting: this.queue.size,
      oldestWaitingMs: oldest === undefined ? 0 : Math.max(0, this.deps.clock.now() - oldest),
    };
  }

  /** Dispatches every slot due by now and schedules its next run; re-arms the timer when running. */
  tick(): void {
    const nowMs = this.deps.clock.now();
    for (let top = this.heap.peek(); top !== undefined && top.dueMs <= nowMs; top = this.heap.peek()) {
      const slot = this.heap.pop() as Slot;
      if (!slot.active) {
        this.staleInHeap--;
        continue;
      }
      const dueMs = slot.dueMs;
      // Half a period on: a prompt first run then lands on the slot's phase, a phased one a period on.
      let next = dueAtOrAfter(dueMs + slot.periodMs / 2, slot.periodMs, slot.phaseMs);
      if (next <= nowMs) {
        // A period or more behind (the process was stalled): run this one late, skip the ones missed.
        const caughtUp = dueAtOrAfter(nowMs + 1, slot.periodMs, slot.phaseMs);
        this.deps.stats.recordSkip('behind', Math.round((caughtUp - next) / slot.periodMs));
        next = caughtUp;
      }
      slot.dueMs = next;
      this.heap.push(slot);
      void this.dispatch(slot, dueMs);
    }
    this.arm();
  }

  /** Runs every slot of one check now (through the same queue); resolves with how many ran once they settled. */
  async runNow(tenant: string, entityId: string, checkId: string): Promise<number> {
    const nowMs = this.deps.clock.now();
    const runs = this.catalog.slotsOf(tenant, entityId, checkId).map((slot) => this.dispatch(slot, nowMs));
    const ran = await Promise.all(runs);
    return ran.filter(Boolean).length;
  }

  /** The next due time of each slot of one check, by zone (empty when it is not scheduled). */
  dueTimes(tenant: string, entityId: string, checkId: string): { zoneId: string; dueMs: number }[] {
    return this.catalog.slotsOf(tenant, entityId, checkId).map((slot) => ({ zoneId: slot.zoneId, dueMs: slot.dueMs }));
  }

  /** Resolves when no run is waiting or in flight. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Stops scheduling, drops waiting runs, waits up to CHECK_STOP_WAIT_MS for runs in flight, then aborts them. */
  async stop(waitMs = CHECK_STOP_WAIT_MS): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    // Waiting runs are not cleared from the queue (their promises would never settle): each starts,
    // sees the scheduler stopping and returns at once.
    this.stopping = true;
    let wait: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      this.queue.onIdle().then(() => true),
      new Promise<boolean>((resolve) => (wait = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(wait);
    this.deps.runner.stop();
    if (!settled) await this.queue.onIdle();
  }

  /** Queues one run of a slot unless it is still running or the queue is full; resolves true once it ran. */
  private dispatch(slot: Slot, dueMs: number): Promise<boolean> {
    if (slot.running) {
      this.deps.stats.recordSkip('overlap');
      return Promise.resolve(false);
    }
    if (this.queue.size >= this.queueMax) {
      this.deps.stats.recordSkip('queue_full');
      return Promise.resolve(false);
    }
    slot.running = true;
    this.waitingDues.push(dueMs);
    return this.queue.add(() => this.execute(slot, dueMs)).then(
      (ran) => ran,
      (error: unknown) => {
        slot.running = false;
        this.deps.logger.error({ slot: slot.key, errName: error instanceof Error ? error.name : typeof error }, 'a check run failed in the scheduler');
        return false;
      },
    );
  }

  /** One run: lag recorded at start, the runner's result to the sink (unless the slot went meanwhile); false when stopping. */
  private async execute(slot: Slot, dueMs: number): Promise<boolean> {
    this.waitingDues.shift();
    if (this.stopping) {
      slot.running = false;
      return false;
    }
    const startMs = this.deps.clock.now();
    const lagMs = startMs - dueMs;
    this.deps.stats.recordLag(lagMs);
    try {
      const { tenant, entity, check, shown } = slot.owner;
      const run = await this.deps.runner.runZone(tenant, entity, check.doc, slot.zoneId);
      // A run a shutdown cut short says nothing about the target: an alarm must not see it.
      if (run.cancelled) return false;
      this.deps.stats.recordRun(check.doc.type, run.outcome);
      if (slot.active) this.deps.sink.accept(tenant, shown, run.result);
      this.deps.options?.onRun?.({ type: check.doc.type, outcome: run.outcome, lagMs, durationMs: this.deps.clock.now() - startMs });
      return true;
    } finally {
      slot.running = false;
    }
  }

  /** Puts a slot in the heap at `dueMs`. */
  private schedule(slot: Slot, dueMs: number): void {
    slot.dueMs = dueMs;
    this.heap.push(slot);
  }

  /** Applies a committed change: the check's slots, or every check of a changed entity, reloaded. */
  private changed(change: MonitoringChange): void {
    try {
      let result: SlotChange;
      if (change.kind === 'check') result = this.catalog.reload(change.tenant, change.entityId, change.id);
      else if (change.kind === 'entity' && change.op !== 'create') result = this.catalog.reloadEntity(change.tenant, change.entityId);
      else return;
      this.apply(result);
    } catch (error) {
      this.deps.logger.error({ tenant: change.tenant, kind: change.kind, id: change.id, errName: error instanceof Error ? error.name : typeof error }, 'reloading a changed check failed');
    }
  }

  /** Schedules added slots (at once when prompt, else at their phase) and lets removed ones fall out of the heap. */
  private apply(change: SlotChange): void {
    const nowMs = this.deps.clock.now();
    for (const slot of change.added) this.schedule(slot, this.promptFirstRun ? nowMs : dueAtOrAfter(nowMs, slot.periodMs, slot.phaseMs));
    this.retire(change.removed.length);
    if (change.added.length > 0) this.arm();
  }

  /** Counts slots removed while in the heap (they leave it when popped); rebuilds the heap when they are most of it, so churn cannot grow it. */
  private retire(removed: number): void {
    this.staleInHeap += removed;
    if (this.staleInHeap > 1024 && this.staleInHeap * 2 > this.heap.size) {
      this.heap.retain((slot) => slot.active);
      this.staleInHeap = 0;
    }
  }

  /** Sets the one timer to the earliest due slot (at most CHECK_TIMER_SLEEP_MS_MAX away). */
  private arm(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const top = this.heap.peek();
    const sleepMs = top === undefined ? CHECK_TIMER_SLEEP_MS_MAX : Math.min(CHECK_TIMER_SLEEP_MS_MAX, Math.max(0, top.dueMs - this.deps.clock.now()));
    this.timer = setTimeout(() => this.tick(), sleepMs);
    this.timer.unref();
  }
}
