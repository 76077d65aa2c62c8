// Owns the check-metric naming scheme in the engine (<entityId>.<checkId>.<metric>, the `@run` names among them) and listing a check's metrics.
import { METRIC_NAME_LENGTH_MAX } from '../core/limits.js';
import { collectMetrics } from '../store-metric-pages.js';
import type { MetricInfo, Store } from '../store-types.js';
import type { ChangelogStore } from './changelog-store.js';
import { METRIC_TYPE_INFERENCE_WINDOW_MS } from './monitoring-limits.js';
import type { Page, PageRequest } from './paging.js';

/** One metric of a check as operation 5 lists it. */
export interface CheckMetric {
  /** `<zone>.<metric>` for remote checks, the bare metric name for agent checks. */
  readonly name: string;
  readonly unit: string;
  /** One-letter type code: i int32, I uint32, l int64, L uint64, n double, s string. */
  readonly type: string;
}

/** The metric name of a check's run points (`<zone>.@run` for remote checks, `@run` for agent checks; backtest/run-series.ts). */
export const RUN_METRIC = '@run';
/** A remote check's run name: a zone id (monitoring-zones.ts ZONE_ID_PATTERN), then `.@run`. */
const ZONE_RUN_NAME = /^mz[A-Za-z0-9]{1,30}\.@run$/;

/**
 * True for a check metric name (what follows `<entityId>.<checkId>.`) that is a run series:
 * `@run` or `<zone>.@run`. Operation 5 hides them, and the sink stores no metric of such a name
 * (an agent may post a metric named `@run`: it reaches the alarms but is not stored).
 */
export function isRunMetricName(name: string): boolean {
  return name === RUN_METRIC || ZONE_RUN_NAME.test(name);
}

/** Unit shown for a metric written without one. */
const UNKNOWN_UNIT = 'unknown';
/** The highest UTF-16 code unit: padding with it builds the largest name below a marker. */
const MAX_CODE_UNIT = '\uffff';

/** The engine series prefix of one check's metrics. */
export function checkMetricPrefix(entityId: string, checkId: string): string {
  return `${entityId}.${checkId}.`;
}

/**
 * The engine series name of a check metric. Entity and check ids are letters and digits only, so
 * the first two dots always split the name back into (entity, check, metric) and an external
 * poller can write the same series through the ingest API.
 */
export function checkMetricSeries(entityId: string, checkId: string, metricName: string): string {
  return `${checkMetricPrefix(entityId, checkId)}${metricName}`;
}

/** A remote check metric's name: `<zoneId>.<metric>` (spec 2.3). */
export function remoteMetricName(zoneId: string, metric: string): string {
  return `${zoneId}.${metric}`;
}

/**
 * The largest series name that sorts before `name`: listMetrics pages start *after* a name, while
 * a marker names the first item of a page. Names are at most METRIC_NAME_LENGTH_MAX long, so
 * padding with the highest code unit to that length leaves no real name in between.
 */
export function nameBefore(name: string): string | undefined {
  if (name === '') return undefined;
  const last = name.charCodeAt(name.length - 1);
  const head = name.slice(0, -1);
  if (last === 0) return head;
  return head + String.fromCharCode(last - 1) + MAX_CODE_UNIT.repeat(METRIC_NAME_LENGTH_MAX);
}

/** The type of a metric from its recent values: strings 's', integers 'l', other numbers 'n'. */
async function inferType(engine: Store, tenant: string, series: string, nowMs: number): Promise<string> {
  const result = await engine.query({ tenant, metric: series, from: nowMs - METRIC_TYPE_INFERENCE_WINDOW_MS, to: nowMs, resolution: 'MIN60', select: ['min', 'max'] });
  const filled = result.values.filter((value) => value.numPoints > 0);
  if (filled.length === 0) return 'n';
  if (filled.every((value) => value.min === null || value.min === undefined)) return 's';
  const integral = filled.every((value) => Number.isInteger(value.min ?? 0) && Number.isInteger(value.max ?? 0));
  return integral ? 'l' : 'n';
}

/**
 * The first `count` metrics of a check after `after`, run series left out. One name past the page
 * is asked for: the engine pages after a name, while the API's next marker is the next page's first
 * name. Collecting across engine pages also fills a page the engine's scan budget cut short, or
 * the run names left short (at most one per zone, so each round makes progress).
 */
async function collectShown(engine: Store, tenant: string, prefix: string, after: string | undefined, count: number): Promise<MetricInfo[]> {
  const shown: MetricInfo[] = [];
  let from = after;
  for (;;) {
    const want = count - shown.length;
    const batch = await collectMetrics(engine, tenant, { glob: `${prefix}*`, after: from }, want);
    shown.push(...batch.filter((metric) => !isRunMetricName(metric.name.slice(prefix.length))));
    const last = batch.at(-1);
    if (batch.length < want || shown.length >= count || last === undefined) return shown;
    from = last.name;
  }
}

/** One page of a check's metrics from the engine, with declared types or types inferred from values. */
export async function listCheckMetrics(
  engine: Store,
  types: ChangelogStore,
  scope: { tenant: string; entityId: string; checkId: string; nowMs: number },
  page: PageRequest,
): Promise<Page<CheckMetric>> {
  const prefix = checkMetricPrefix(scope.entityId, scope.checkId);
  const after = page.marker === undefined ? undefined : nameBefore(prefix + page.marker);
  const found = await collectShown(engine, scope.tenant, prefix, after, page.limit + 1);
  const declared = types.metricTypes(scope.tenant, scope.entityId, scope.checkId);
  // One inference query at a time: the request holds one query admission slot, so it must not
  // fan out into a page's worth (up to LIST_LIMIT_MAX) of engine queries at once.
  const values: CheckMetric[] = [];
  for (const metric of found.slice(0, page.limit)) {
    const name = metric.name.slice(prefix.length);
    const type = declared.get(name) ?? (await inferType(engine, scope.tenant, metric.name, scope.nowMs));
    values.push({ name, unit: metric.unit ?? UNKNOWN_UNIT, type });
  }
  const next = found[page.limit];
  return { values, nextMarker: next === undefined ? null : next.name.slice(prefix.length) };
}
