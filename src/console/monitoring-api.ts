// Owns the console's typed calls to the monitoring API under /monitoring/v1.0/{tenant}: entities, the overview, check metrics and plots, and the alarm changelog; every page is bounded in size (and every call in time, by apiRequest).
import { apiRequest, type ConsoleSession, type QueryParams } from './api-request.js';
import type { ViewValue } from './console-api.js';
import type { CheckMetricInfo } from './monitoring-format.js';

/** Where the monitoring API lives; the tenant follows. */
export const MONITORING_BASE = '/monitoring/v1.0';
/** The largest page the monitoring lists (entities, check metrics, changelog) serve. */
export const MONITORING_LIST_LIMIT_MAX = 1000;
/** Most entities one overview page holds, and most ids its `entityId` filter takes. */
export const OVERVIEW_LIMIT_MAX = 100;

/** A list's paging metadata. */
export interface ListMetadata {
  readonly count: number;
  readonly limit: number | null;
  readonly marker: string | null;
  readonly next_marker: string | null;
  readonly next_href: string | null;
}

/** One page of a monitoring list. */
export interface ListPage<T> {
  readonly values: readonly T[];
  readonly metadata: ListMetadata;
}

/** An entity as the API renders it (times in ms). */
export interface EntityView {
  readonly id: string;
  readonly label: string | null;
  readonly ip_addresses: Readonly<Record<string, string>> | null;
  readonly agent_id: string | null;
  readonly managed?: boolean;
  readonly uri?: string | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
  readonly created_at: number;
  readonly updated_at: number;
}

/** A check (period and timeout in seconds). */
export interface CheckView {
  readonly id: string;
  readonly entity_id: string;
  readonly label: string | null;
  readonly type: string;
  readonly monitoring_zones_poll: readonly string[] | null;
  readonly target_alias?: string | null;
  readonly target_hostname?: string | null;
  readonly period: number;
  readonly timeout: number;
  readonly disabled?: boolean;
}

/** An alarm. */
export interface AlarmView {
  readonly id: string;
  readonly entity_id: string;
  readonly check_id: string;
  readonly label: string | null;
  readonly criteria?: string | null;
  readonly disabled?: boolean;
}

/** The fields an alarm state change carries, in the changelog and in the overview's latest states. */
interface AlarmStateChange {
  readonly timestamp: number;
  readonly entity_id: string;
  readonly alarm_id: string;
  readonly check_id: string;
  readonly state: string;
  readonly previous_state: string | null;
  readonly analyzed_by_monitoring_zone_id: string | null;
}

/** An alarm's committed state (a changelog entry plus the criteria's message). */
export interface LatestAlarmStateView extends AlarmStateChange {
  readonly status: string;
}

/** One overview value: an entity with its checks, alarms and their latest states. */
export interface OverviewValue {
  readonly entity: EntityView;
  readonly checks: readonly CheckView[];
  readonly alarms: readonly AlarmView[];
  readonly latest_alarm_states: readonly LatestAlarmStateView[];
}

/** One alarm state change. */
export interface ChangelogEntryView extends AlarmStateChange {
  readonly id: string;
}

/** One value of a check metric's plot: the same shape as a metrics view's value. */
export type PlotValueView = ViewValue;

/** A page request: where it starts and how many items (at most the list's largest page, which is also the default). */
export interface PageAsk {
  readonly marker?: string;
  readonly limit?: number;
}

/** A page size within [1, max]; `max` when the caller names none. */
function pageLimit(limit: number | undefined, max: number): number {
  return Math.max(1, Math.min(max, Math.floor(limit ?? max)));
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

/** A GET under the tenant's monitoring base (apiRequest gives up after its default timeout); aborting `signal` rejects with the AbortError. */
function monitoringGet<T>(session: ConsoleSession, path: string, query: QueryParams | undefined, signal: AbortSignal | undefined): Promise<T> {
  return apiRequest<T>(`${MONITORING_BASE}/${segment(session.tenantId)}${path}`, { session, ...(signal !== undefined ? { signal } : {}), ...(query !== undefined ? { query } : {}) });
}

function pageQuery(page: PageAsk | undefined): QueryParams {
  return { limit: pageLimit(page?.limit, MONITORING_LIST_LIMIT_MAX), marker: page?.marker };
}

/** GET /entities: a page of entities in id order. */
export function listEntities(session: ConsoleSession, page?: PageAsk, signal?: AbortSignal): Promise<ListPage<EntityView>> {
  return monitoringGet(session, '/entities', pageQuery(page), signal);
}

/** GET /entities/{id}: one entity (a 404 names the missing id). */
export function getEntity(session: ConsoleSession, entityId: string, signal?: AbortSignal): Promise<EntityView> {
  return monitoringGet(session, `/entities/${segment(entityId)}`, undefined, signal);
}

/** GET /views/overview: a page of entities with checks, alarms and latest states; `entityIds` (at most OVERVIEW_LIMIT_MAX) narrows it to those entities. */
export function overviewPage(session: ConsoleSession, page: PageAsk & { readonly entityIds?: readonly string[] }, signal?: AbortSignal): Promise<ListPage<OverviewValue>> {
  const entityIds = page.entityIds?.slice(0, OVERVIEW_LIMIT_MAX);
  return monitoringGet(session, '/views/overview', { limit: pageLimit(page.limit, OVERVIEW_LIMIT_MAX), marker: page.marker, entityId: entityIds }, signal);
}

/** GET .../checks/{c}/metrics: a page of a check's metrics (`<zone>.<metric>` for remote checks). */
export function listCheckMetrics(session: ConsoleSession, entityId: string, checkId: string, page?: PageAsk, signal?: AbortSignal): Promise<ListPage<CheckMetricInfo>> {
  return monitoringGet(session, `/entities/${segment(entityId)}/checks/${segment(checkId)}/metrics`, pageQuery(page), signal);
}

/** GET .../metrics/{name}/plot: a check metric's average, min and max over [fromMs, toMs) in about `points` points. */
export function checkMetricPlot(
  session: ConsoleSession,
  target: { readonly entityId: string; readonly checkId: string; readonly metric: string },
  range: { readonly fromMs: number; readonly toMs: number; readonly points: number },
  signal?: AbortSignal,
): Promise<{ readonly values: readonly PlotValueView[] }> {
  const path = `/entities/${segment(target.entityId)}/checks/${segment(target.checkId)}/metrics/${segment(target.metric)}/plot`;
  return monitoringGet(session, path, { from: range.fromMs, to: range.toMs, points: range.points, select: ['average', 'min', 'max'] }, signal);
}

/** GET /changelogs/alarms: the oldest entries of [fromMs, toMs) for one entity, `limit` at most. */
export function alarmChangelog(
  session: ConsoleSession,
  ask: { readonly entityId: string; readonly fromMs: number; readonly toMs: number; readonly limit?: number; readonly marker?: string },
  signal?: AbortSignal,
): Promise<ListPage<ChangelogEntryView>> {
  return monitoringGet(session, '/changelogs/alarms', { entityId: ask.entityId, from: ask.fromMs, to: ask.toMs, limit: pageLimit(ask.limit, MONITORING_LIST_LIMIT_MAX), marker: ask.marker }, signal);
}
