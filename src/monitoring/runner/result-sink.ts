// Owns what happens to a scheduled check result: its metrics and (when needed) its run point batched into the engine, their types declared once, the alarms told.
import type { Point } from '../../model/sample.js';
import type { Store } from '../../store-types.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import { remoteRunPointNeeded, runSeries, runValue } from '../backtest/run-series.js';
import { checkMetricSeries, isRunMetricName, remoteMetricName } from '../check-metrics.js';
import { isRemoteType } from '../check-types.js';
import type { StoredDoc } from '../doc-store.js';
import { CHECK_DECLARED_TYPES_MAX, CHECK_SINK_BATCH_POINTS, CHECK_SINK_FLUSH_MS, CHECK_SINK_PENDING_POINTS_MAX, CHECK_SLOTS_MAX } from '../monitoring-limits.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { RuntimeLogger } from './check-runner.js';

/** Whoever evaluates alarms on each new result (the AlarmRuntime); must not throw, and a throw is caught and logged. */
export interface ResultObserver {
  observe(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void;
}

/** Takes the results of scheduled runs. */
export interface ResultConsumer {
  accept(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void;
}

/** What the sink needs; the limits default to the named constants. */
export interface ResultSinkDeps {
  readonly engine: Store;
  readonly monitoring: Pick<MonitoringService, 'declareMetricTypes' | 'store'>;
  readonly alarms: ResultObserver | undefined;
  readonly logger: RuntimeLogger;
  readonly flushMs?: number;
  readonly batchPoints?: number;
  readonly pendingPointsMax?: number;
}

/** The sink's counters since it was created. */
export interface SinkStats {
  /** Points the engine accepted. */
  readonly pointsWritten: number;
  /** Points the engine refused one by one (a value it does not take). */
  readonly pointsRejected: number;
  /** Points lost: a failed engine write, or the points of a result refused because they did not all fit CHECK_SINK_PENDING_POINTS_MAX. */
  readonly pointsDropped: number;
  /** Engine writes that failed (logged). */
  readonly writeFailures: number;
  /** Points waiting for the next write. */
  readonly pending: number;
}

/**
 * Stores results: the metrics of each become points of the series
 * `<entityId>.<checkId>.<zone>.<metric>` (`<entityId>.<checkId>.<metric>` for agent checks) at the
 * run's start time, and a string point of `<entityId>.<checkId>.<zone>.@run`
 * (`<entityId>.<checkId>.@run`) says whether the run was available and why not (run-series.ts),
 * so a backtest can replay the alarms over what was stored. An agent check's result always writes
 * its run point; a remote check's only when unavailable or without metrics (remoteRunPointNeeded): its metric points say the rest. Two results of one zone at the
 * same ms keep the engine's rule, the later write of each series wins: the later result's run
 * point is written even when its metrics would imply it, so it overwrites the earlier one's (the
 * sink remembers the last run point of each zone whose last result wrote one, at most
 * CHECK_SLOTS_MAX, forgotten all at once when full). A metric named like a run series is
 * not stored (it still reaches the alarms). Points are written to the engine in batches
 * (every CHECK_SINK_FLUSH_MS, or at once when CHECK_SINK_BATCH_POINTS are pending), one write in
 * flight at a time. Availability and the status are not metrics (spec 2.3 lists the metrics of each
 * check type): operation 5 hides the run series. Work per result is O(its metrics).
 * A failing engine is logged and counted, never thrown into the scheduler. A result is taken whole
 * or not at all: when its points do not all fit the pending bound, accept() returns false and
 * neither queues a point nor tells the alarms, so a caller that can keep it (the agent endpoint)
 * refuses it and it comes again.
 */
export class ResultSink implements ResultConsumer {
  private pending: Point[] = [];
  /** Types to declare at the next flush, by check. */
  private undeclared = new Map<string, { tenant: string; entityId: string; checkId: string; types: Record<string, string> }>();
  private readonly declared = new Set<string>();
  /** The timestamp of the run point queued last, by remote check zone whose last result wrote one. */
  private readonly runPointAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private counters = { pointsWritten: 0, pointsRejected: 0, pointsDropped: 0, writeFailures: 0 };
  private readonly flushMs: number;
  private readonly batchPoints: number;
  private readonly pendingPointsMax: number;

  constructor(private readonly deps: ResultSinkDeps) {
    this.flushMs = deps.flushMs ?? CHECK_SINK_FLUSH_MS;
    this.batchPoints = deps.batchPoints ?? CHECK_SINK_BATCH_POINTS;
    this.pendingPointsMax = deps.pendingPointsMax ?? CHECK_SINK_PENDING_POINTS_MAX;
  }

  /**
   * Takes one result of `check` (its secrets redacted): its points wait for the next write; the
   * alarms see it now. False, with nothing taken (its points counted as dropped), when its points
   * do not all fit the pending bound.
   */
  accept(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): boolean {
    const entityId = check.entityId ?? '';
    // Remote checks name their metrics by zone (spec 2.3); an agent check's are the bare names,
    // whichever zone's endpoint carried them (its run point names that zone in its value).
    const remote = isRemoteType(check.doc.type);
    const named = Object.entries(result.metrics).map(([metric, value]) => [remote ? remoteMetricName(result.monitoringZoneId, metric) : metric, value] as const);
    const metrics = named.filter(([name]) => !isRunMetricName(name));
    let withRun = true;
    let zoneKey: string | undefined;
    if (remote) {
      // A remote result's metrics come from Strata's own probes, whose values, units and names the
      // limits keep within what the engine stores (monitoring-limits.ts asserts it at load), so a
      // metric point is a stored point: the engine's point rules are not repeated here.
      const storesMetric = result.available && metrics.length > 0;
      withRun = remoteRunPointNeeded(result.available, storesMetric);
      if (withRun || this.runPointAt.size > 0) zoneKey = `${tenant}/${entityId}/${check.id}/${result.monitoringZoneId}`;
      // An earlier result of the zone at this ms wrote a run point: this one's must overwrite it.
      if (!withRun && zoneKey !== undefined && this.runPointAt.get(zoneKey) === result.timestampMs) withRun = true;
    }
    const points = metrics.length + (withRun ? 1 : 0);
    if (this.pending.length + points > this.pendingPointsMax) {
      this.counters.pointsDropped += points;
      return false;
    }
    for (const [name, value] of metrics) {
      this.pending.push({ tenant, metric: checkMetricSeries(entityId, check.id, name), timestamp: result.timestampMs, value: value.data, unit: value.unit });
      this.noteType(tenant, entityId, check.id, name, value.type);
    }
    if (withRun) this.pending.push({ tenant, metric: runSeries(entityId, check.id, remote ? result.monitoringZoneId : null), timestamp: result.timestampMs, value: runValue(result, !remote) });
    if (zoneKey !== undefined) this.noteRunPoint(zoneKey, withRun ? result.timestampMs : undefined);
    if (this.pending.length >= this.batchPoints) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
    try {
      this.deps.alarms?.observe(tenant, check, result);
    } catch (error) {
      this.deps.logger.error({ tenant, entityId, checkId: check.id, errName: error instanceof Error ? error.name : typeof error }, 'alarm evaluation failed for a check result');
    }
    return true;
  }

  /** Writes every pending point (and declares pending metric types); resolves when they are written. Never throws. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.declarePending();
    while (this.pending.length > 0 || this.writing !== undefined) {
      if (this.writing === undefined) {
        const write: Promise<void> = this.writeBatch().finally(() => {
          if (this.writing === write) this.writing = undefined;
        });
        this.writing = write;
      }
      await this.writing;
    }
  }

  /** The counters now. */
  stats(): SinkStats {
    return { ...this.counters, pending: this.pending.length };
  }

  /** Remembers the run point a remote check zone's result queued at `timestampMs`, or forgets the zone when its result queued none. */
  private noteRunPoint(zoneKey: string, timestampMs: number | undefined): void {
    if (timestampMs === undefined) {
      this.runPointAt.delete(zoneKey);
      return;
    }
    // Zones of deleted checks stay until the map is full: then it forgets them all.
    if (this.runPointAt.size >= CHECK_SLOTS_MAX && !this.runPointAt.has(zoneKey)) this.runPointAt.clear();
    this.runPointAt.set(zoneKey, timestampMs);
  }

  /** Queues a metric's type for declaration unless it was declared already. */
  private noteType(tenant: string, entityId: string, checkId: string, name: string, type: string): void {
    const key = `${tenant}/${entityId}/${checkId}/${name}=${type}`;
    if (this.declared.has(key)) return;
    if (this.declared.size >= CHECK_DECLARED_TYPES_MAX) this.declared.clear();
    this.declared.add(key);
    const checkKey = `${tenant}/${entityId}/${checkId}`;
    let entry = this.undeclared.get(checkKey);
    if (entry === undefined) this.undeclared.set(checkKey, (entry = { tenant, entityId, checkId, types: {} }));
    entry.types[name] = type;
  }

  /**
   * Declares the queued metric types in one transaction (each check in a savepoint of its own: a
   * check deleted meanwhile is skipped). One commit per flush, not per check: after a start every
   * check declares once, and 10,000 commits in a period cost more than the runs themselves.
   */
  private declarePending(): void {
    if (this.undeclared.size === 0) return;
    const queued = this.undeclared;
    this.undeclared = new Map();
    const { monitoring } = this.deps;
    try {
      monitoring.store.transaction(() => {
        for (const { tenant, entityId, checkId, types } of queued.values()) {
          try {
            monitoring.declareMetricTypes(tenant, entityId, checkId, types);
          } catch {
            // The check is gone (deleted since its run): forget, so a check of the same id declares afresh.
            for (const name of Object.keys(types)) this.declared.delete(`${tenant}/${entityId}/${checkId}/${name}=${types[name]}`);
          }
        }
      });
    } catch (error) {
      // The monitoring file failed (closed, full disk): declare again on the next results.
      this.declared.clear();
      this.deps.logger.error({ checks: queued.size, code: (error as { code?: unknown }).code }, 'declaring check metric types failed');
    }
  }

  /** Writes one batch; failures are counted and logged. */
  private async writeBatch(): Promise<void> {
    const batch = this.pending.length <= this.batchPoints ? this.pending : this.pending.slice(0, this.batchPoints);
    this.pending = batch === this.pending ? [] : this.pending.slice(this.batchPoints);
    try {
      const result = await this.deps.engine.write(batch);
      this.counters.pointsWritten += result.accepted;
      this.counters.pointsRejected += result.rejected.length;
      const first = result.rejected[0];
      if (first !== undefined) this.deps.logger.warn({ rejected: result.rejected.length, code: first.code, field: first.field }, 'the engine refused check metric points');
    } catch (error) {
      this.counters.writeFailures++;
      this.counters.pointsDropped += batch.length;
      this.deps.logger.error({ points: batch.length, code: (error as { code?: unknown }).code }, 'writing check metrics to the engine failed; the points are dropped');
    }
  }
}
