// Owns running one remote check once from one or more zones: resolve the target, run the probe under the check's timeout, never throw.
import type { Clock } from '../../core/clock.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import { CHECK_PROBE_GRACE_MS } from '../monitoring-limits.js';
import type { AddressGuard } from '../probes/address-guard.js';
import type { ProbeRegistry } from '../probes/probe-registry.js';
import { resolveProbeTarget, type TargetError } from '../probes/probe-target.js';
import type { Probe, ProbeOutcome, ProbeTarget } from '../probes/probe-types.js';
import type { RunOutcome } from './runner-stats.js';
import { loggableError } from '../loggable-error.js';

/** The logger the runtime's parts use (a pino Logger fits). */
export interface RuntimeLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Resolves a check's target (resolveProbeTarget's shape). */
export type TargetResolverFn = (check: CheckDoc, entity: EntityDoc, options: { timeoutMs?: number; signal?: AbortSignal }) => Promise<ProbeTarget | TargetError>;

/** What the runner needs. */
export interface CheckRunnerDeps {
  readonly probes: ProbeRegistry;
  readonly guard: AddressGuard;
  readonly clock: Clock;
  readonly logger: RuntimeLogger;
  /** Target resolution; resolveProbeTarget when left out. */
  readonly resolveTarget?: TargetResolverFn;
}

/** One zone's run: the result, and how it ended for the counters. */
export interface ZoneRun {
  readonly result: CheckResult;
  readonly outcome: RunOutcome;
  /**
   * True when the runner stopped during the run and the run did not succeed: the result says
   * nothing about the target (a shutdown cut it short), so it must not reach alarms or the engine.
   */
  readonly cancelled: boolean;
}

/**
 * Runs remote checks. Zones are logical runners inside this process (one process hosts every
 * configured zone), so the results of one check from several zones differ only by their timing:
 * the same host makes each zone's connection. A probe that throws or never settles is a bug: the
 * run becomes an unavailable result and the bug is logged, and the runner goes on.
 */
export class CheckRunner {
  private readonly inFlight = new Set<AbortController>();
  private stopped = false;
  private readonly resolveTarget: TargetResolverFn;

  constructor(private readonly deps: CheckRunnerDeps) {
    this.resolveTarget = deps.resolveTarget ?? resolveProbeTarget;
  }

  /** True when this build has a probe for the check type. */
  runs(type: string): boolean {
    return this.deps.probes.has(type);
  }

  /**
   * Runs `check` once from each of `zones` (default: its monitoring_zones_poll) at the same time,
   * resolving the target once; one result per zone, in the order of `zones`. Never throws.
   */
  async runOnce(tenant: string, entity: StoredDoc<EntityDoc>, check: CheckDoc, zones?: readonly string[]): Promise<CheckResult[]> {
    const zoneIds = zones ?? check.monitoring_zones_poll ?? [];
    const resolved = await this.bounded(check, (signal) => this.resolveTarget(check, entity.doc, { timeoutMs: check.timeout * 1000, signal }));
    const target = resolved instanceof Error ? this.failure(resolved, { tenant, entityId: entity.id, checkType: check.type }) : resolved;
    const runs = await Promise.all(zoneIds.map((zoneId) => this.runZone(tenant, entity, check, zoneId, target)));
    return runs.map((run) => run.result);
  }

  /**
   * Runs `check` once from one zone (the scheduler's unit of work): resolve the target unless given,
   * probe, all within the check's timeout. Never throws.
   */
  async runZone(tenant: string, entity: StoredDoc<EntityDoc>, check: CheckDoc, zoneId: string, target?: ProbeTarget | TargetError): Promise<ZoneRun> {
    const startMs = this.deps.clock.now();
    const probe = this.deps.probes.get(check.type);
    let outcome: ProbeOutcome | Error;
    if (probe === undefined) outcome = unavailable(`no probe runs ${check.type} checks`);
    else if (target !== undefined && 'error' in target) outcome = unavailable(target.error);
    else outcome = await this.bounded(check, (signal) => this.probeOnce(probe, check, entity.doc, target, signal, startMs));
    let kind: RunOutcome;
    if (outcome instanceof Error) {
      kind = outcome.name === RUNNER_TIMEOUT ? 'unavailable' : 'error';
      outcome = unavailable(this.failure(outcome, { tenant, entityId: entity.id, checkType: check.type, zoneId }).error);
    } else {
      kind = probe === undefined ? 'error' : outcome.available ? 'available' : 'unavailable';
    }
    const result: CheckResult = {
      monitoringZoneId: zoneId,
      timestampMs: startMs,
      available: outcome.available,
      status: outcome.status,
      metrics: outcome.metrics,
      ...(outcome.body !== undefined ? { body: outcome.body } : {}),
    };
    return { result, outcome: kind, cancelled: this.stopped && !result.available };
  }

  /** Aborts every run in flight and makes later runs return at once as unavailable. */
  stop(): void {
    this.stopped = true;
    for (const controller of this.inFlight) controller.abort();
  }

  /** Resolves the target unless given, then probes it with what is left of the check's timeout. */
  private async probeOnce(probe: Probe, check: CheckDoc, entity: EntityDoc, given: ProbeTarget | undefined, signal: AbortSignal, startMs: number): Promise<ProbeOutcome> {
    const timeoutMs = check.timeout * 1000;
    const target = given ?? (await this.resolveTarget(check, entity, { timeoutMs, signal }));
    if ('error' in target) return unavailable(target.error);
    const leftMs = Math.max(1, timeoutMs - (this.deps.clock.now() - startMs));
    return probe({ check, target, timeoutMs: leftMs, signal, guard: this.deps.guard });
  }

  /** A timeout's words, or (for a thrown error: a bug) a log line and generic words; as a target error. */
  private failure(error: Error, where: Record<string, string>): TargetError {
    if (error.name === RUNNER_TIMEOUT) return { error: error.message };
    this.deps.logger.error({ ...where, ...loggableError(error.cause) }, 'check probe failed; the run counts as unavailable');
    return { error: 'internal error: the probe failed' };
  }

  /**
   * Calls `work` with a signal that aborts at the check's timeout (or when the runner stops) and
   * waits for it at most CHECK_PROBE_GRACE_MS after the abort. A throw becomes an Error whose cause
   * is the thrown value; a work that does not settle in time a RUNNER_TIMEOUT Error. Timers are cleared.
   */
  private bounded<T>(check: CheckDoc, work: (signal: AbortSignal) => Promise<T>): Promise<T | Error> {
    if (this.stopped) return Promise.resolve(runnerTimeout('the check runner stopped'));
    const timeoutMs = check.timeout * 1000;
    const controller = new AbortController();
    this.inFlight.add(controller);
    let timeout: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const expired = new Promise<Error>((resolve) => {
      controller.signal.addEventListener('abort', () => {
        const words = this.stopped ? 'the check runner stopped' : `timed out after ${timeoutMs} ms`;
        grace = setTimeout(() => resolve(runnerTimeout(words)), CHECK_PROBE_GRACE_MS);
      });
      timeout = setTimeout(() => controller.abort(), timeoutMs);
    });
    let running: Promise<T | Error>;
    try {
      running = work(controller.signal).catch((thrown: unknown) => new Error('probe threw', { cause: thrown }));
    } catch (thrown) {
      running = Promise.resolve(new Error('probe threw', { cause: thrown }));
    }
    return Promise.race([running, expired]).finally(() => {
      clearTimeout(timeout);
      clearTimeout(grace);
      this.inFlight.delete(controller);
    });
  }
}

/** The name of the Error a run that did not settle in time becomes. */
const RUNNER_TIMEOUT = 'RunnerTimeout';

function runnerTimeout(words: string): Error {
  const error = new Error(words);
  error.name = RUNNER_TIMEOUT;
  return error;
}

/** An unavailable outcome with no metrics. */
function unavailable(status: string): ProbeOutcome {
  return { available: false, status, metrics: {} };
}
