// Owns reading a check's stored observations back from the engine: its series per zone, FULL points in bounded time slices, grouped by (timestamp, zone) over metric and run points alike into CheckResults in that order.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MINUTE_MS } from '../../core/time.js';
import { collectMetrics } from '../../store-metric-pages.js';
import type { QueryValue, Store } from '../../store-types.js';
import { checkMetricPrefix, RUN_METRIC } from '../check-metrics.js';
import { METRIC_TYPE_CODES, type CheckResult, type MetricTypeCode, type ResultMetric } from '../check-result.js';
import { BACKTEST_SERIES_MAX, BACKTEST_SLICE_MS, BACKTEST_SLICE_POINTS_MAX } from '../monitoring-limits.js';
import { backtestTooLarge } from './backtest-window.js';
import { parseRunValue, type RunFacts } from './run-series.js';

/** Runs one engine query; the server passes its query admission, so a backtest's reads queue with everyone's. */
export type QueryRunner = <T>(work: () => Promise<T>) => Promise<T>;

/** Where a check's observations are stored and how to read them. */
export interface ObservationSource {
  readonly engine: Store;
  readonly tenant: string;
  readonly entityId: string;
  readonly checkId: string;
  /** A remote check's zones to read (series `<zone>.<metric>`); null for an agent check (bare names, the zone in the run point). */
  readonly zones: readonly string[] | null;
  /** Declared one-letter types by check metric name (`<zone>.<metric>` or bare). */
  readonly types: ReadonlyMap<string, string>;
  /** The check's period: with the series count it sizes the slices. */
  readonly periodMs: number;
  readonly runQuery?: QueryRunner;
}

/** One series of the check: its engine name, zone (null: an agent check's) and metric name (RUN_METRIC for the run point). */
export interface StoredSeries {
  readonly name: string;
  readonly zoneId: string | null;
  readonly metric: string;
}

/** One observation being rebuilt from its points. */
interface Gathered {
  readonly timestampMs: number;
  readonly zoneId: string | null;
  readonly metrics: [string, ResultMetric][];
  run: RunFacts | null;
}

const atOnce: QueryRunner = (work) => work();

/**
 * The check's series: per zone for a remote check (`<entity>.<check>.<zone>.*`), every series for
 * an agent check. MONITORING_BACKTEST_TOO_LARGE beyond BACKTEST_SERIES_MAX in all.
 */
export async function listSeries(source: ObservationSource): Promise<StoredSeries[]> {
  const prefix = checkMetricPrefix(source.entityId, source.checkId);
  const series: StoredSeries[] = [];
  const groups: (string | null)[] = source.zones === null ? [null] : [...source.zones];
  for (const zoneId of groups) {
    const head = zoneId === null ? prefix : `${prefix}${zoneId}.`;
    const found = await collectMetrics(source.engine, source.tenant, { glob: `${head}*` }, BACKTEST_SERIES_MAX + 1 - series.length);
    for (const metric of found) series.push({ name: metric.name, zoneId, metric: metric.name.slice(head.length) });
    if (series.length > BACKTEST_SERIES_MAX) throw backtestTooLarge('series', BACKTEST_SERIES_MAX);
  }
  return series;
}

/**
 * How long one slice is: what the engine takes in one FULL query (BACKTEST_SLICE_MS, halved while
 * the planner finds it over its point limit), shorter when the series, at one point per period,
 * would hold more than BACKTEST_SLICE_POINTS_MAX points; at least a minute.
 */
export function sliceMsFor(source: ObservationSource, seriesCount: number, fromMs: number): number {
  const byPoints = Math.floor((BACKTEST_SLICE_POINTS_MAX * Math.max(source.periodMs, 1)) / Math.max(seriesCount, 1));
  let sliceMs = Math.max(MINUTE_MS, Math.min(BACKTEST_SLICE_MS, byPoints));
  const probe = (ms: number) => source.engine.plan({ tenant: source.tenant, metric: checkMetricPrefix(source.entityId, source.checkId), from: fromMs, to: fromMs + ms, resolution: 'FULL' });
  while (sliceMs > MINUTE_MS && probe(sliceMs).overLimit) sliceMs = Math.max(MINUTE_MS, Math.floor(sliceMs / 2));
  return sliceMs;
}

/** A stored point as a result metric: strings are type 's'; numbers take the declared type (a numeric one) or 'n'. */
function metricOf(value: QueryValue, declared: string | undefined, unit: string | null): ResultMetric | null {
  const shownUnit = unit ?? 'unknown';
  if (typeof value.value === 'string') return { type: 's', data: value.value, unit: shownUnit };
  if (typeof value.average !== 'number') return null;
  const type = METRIC_TYPE_CODES.find((code) => code === declared && code !== 's') ?? 'n';
  return { type: type as MetricTypeCode, data: value.average, unit: shownUnit };
}

/**
 * The observation a point belongs to: one per (timestamp, zone) for remote checks, one per
 * timestamp for agent checks, whichever of its series (metrics, run) the points come from.
 */
function gatheredFor(groups: Map<string, Gathered>, timestampMs: number, zoneId: string | null): Gathered {
  const key = zoneId === null ? String(timestampMs) : `${timestampMs}\u0000${zoneId}`;
  let found = groups.get(key);
  if (found === undefined) {
    found = { timestampMs, zoneId, metrics: [], run: null };
    groups.set(key, found);
  }
  return found;
}

/**
 * The CheckResult of a gathered observation. A run point says the availability (and the status
 * of an unavailable run); an observation without one counts as available with an empty status:
 * a remote check's available run with metric points (the sink writes no run point for those,
 * remoteRunPointNeeded), or a run stored before run points existed. A run point's value this
 * module did not write counts as none.
 */
function resultOf(gathered: Gathered): CheckResult {
  const run = gathered.run;
  return {
    monitoringZoneId: gathered.zoneId ?? run?.zoneId ?? '',
    timestampMs: gathered.timestampMs,
    available: run?.available ?? true,
    status: run?.status ?? '',
    // fromEntries defines own properties, so a metric named __proto__ stays a metric.
    metrics: Object.fromEntries(gathered.metrics),
  };
}

/** Results in replay order: by timestamp, then zone id. */
export function replayOrder(a: CheckResult, b: CheckResult): number {
  if (a.timestampMs !== b.timestampMs) return a.timestampMs - b.timestampMs;
  return a.monitoringZoneId < b.monitoringZoneId ? -1 : a.monitoringZoneId > b.monitoringZoneId ? 1 : 0;
}

/** Reads one slice [fromMs, toMs) of every series, one FULL query each, yielding to the event loop between them. */
async function readSlice(source: ObservationSource, series: readonly StoredSeries[], fromMs: number, toMs: number, budget: { seen: number; max: number }): Promise<CheckResult[]> {
  const runQuery = source.runQuery ?? atOnce;
  const groups = new Map<string, Gathered>();
  for (const one of series) {
    const result = await runQuery(() => source.engine.query({ tenant: source.tenant, metric: one.name, from: fromMs, to: toMs, resolution: 'FULL', select: ['average'] }));
    const declared = source.types.get(one.zoneId === null ? one.metric : `${one.zoneId}.${one.metric}`);
    for (const value of result.values) {
      const gathered = gatheredFor(groups, value.timestamp, one.zoneId);
      if (one.metric === RUN_METRIC) {
        gathered.run = typeof value.value === 'string' ? parseRunValue(value.value) : null;
        continue;
      }
      const metric = metricOf(value, declared, result.unit);
      if (metric !== null) gathered.metrics.push([one.metric, metric]);
    }
    if (budget.seen + groups.size > budget.max) throw backtestTooLarge('observations', budget.max);
    await nextTurn();
  }
  return [...groups.values()].map(resultOf).sort(replayOrder);
}

/**
 * The stored observations of [fromMs, toMs), slice after slice, each slice's results in replay
 * order (so the whole sequence is in replay order). At most `observationsMax` in all, else
 * MONITORING_BACKTEST_TOO_LARGE. Memory holds one slice's points at a time.
 */
export async function* storedObservations(source: ObservationSource, series: readonly StoredSeries[], fromMs: number, toMs: number, observationsMax: number): AsyncGenerator<CheckResult[]> {
  if (series.length === 0 || fromMs >= toMs) return;
  const sliceMs = sliceMsFor(source, series.length, fromMs);
  let seen = 0;
  for (let start = fromMs; start < toMs; start += sliceMs) {
    const results = await readSlice(source, series, start, Math.min(toMs, start + sliceMs), { seen, max: observationsMax });
    seen += results.length;
    if (results.length > 0) yield results;
  }
}
