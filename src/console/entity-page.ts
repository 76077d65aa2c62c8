// Owns the entity page `#/entities/<id>?refresh=<ms>`: title, checks, alarms with their current states (refreshed), check plots per zone, and the alarm changelog.
import './monitoring.css';
import { ConsoleApiError, isAbortError, messageOf, type ConsoleSession } from './api-request.js';
import { createChangelogTimeline, type ChangelogTimeline } from './changelog-timeline.js';
import { createCheckPlots, type CheckPlots } from './check-plots.js';
import { el, replaceChildren } from './dom.js';
import { alarmTable, checkTable, entityFacts, fillAlarms, fillChecks, labelOf } from './entity-sections.js';
import { getEntity, overviewPage, type OverviewValue } from './monitoring-api.js';
import { formatSeconds, refreshIntervalMs } from './monitoring-format.js';
import type { Page, PageContext, Route } from './page.js';
import { hashOf } from './router.js';
import { formatTime } from './time-format.js';
import { MINUTE_MS, SECOND_MS } from './time-units.js';

/** How often the check plots are fetched again (ms): their points are minutes apart, the states' refresh is seconds. */
export const CHECK_PLOTS_REFRESH_MS = MINUTE_MS;

/** The page's elements and sections. */
interface EntityView {
  readonly title: HTMLElement;
  readonly facts: HTMLElement;
  /** `[data-testid=updated-at]`: "Updated <time> …", with `data-updated-ms` the integer ms of the last successful refresh. */
  readonly updated: HTMLElement;
  readonly checks: HTMLTableSectionElement;
  readonly alarms: HTMLTableSectionElement;
  readonly plots: CheckPlots;
  readonly timeline: ChangelogTimeline;
}

/** Builds the page into `root`; errors of the timeline's own buttons go to `onError`. */
function renderEntityView(root: HTMLElement, session: ConsoleSession, entityId: string, onError: (error: unknown) => void): EntityView {
  const title = el('h1', { 'data-testid': 'entity-title' }, entityId);
  const facts = el('p', { class: 'mon-muted' });
  const updated = el('span', { 'data-testid': 'updated-at', class: 'mon-status' }, 'Loading…');
  const checks = checkTable();
  const alarms = alarmTable();
  const plots = createCheckPlots(session, entityId);
  const timeline = createChangelogTimeline(session, entityId, onError);
  replaceChildren(
    root,
    el('nav', { class: 'mon-small' }, el('a', { href: hashOf('/entities') }, '← All entities')),
    el('div', { class: 'mon-header' }, el('div', {}, title, facts), updated),
    el('section', { class: 'mon-section' }, el('h2', {}, 'Alarms'), alarms.table),
    el('section', { class: 'mon-section' }, el('h2', {}, 'Checks'), checks.table),
    plots.element,
    timeline.element,
  );
  return { title, facts, updated, checks: checks.body, alarms: alarms.body, plots, timeline };
}

/** Shows an overview: title, facts, checks, alarms, and the time of this refresh. */
function showOverview(view: EntityView, value: OverviewValue, refreshMs: number): void {
  view.title.textContent = labelOf(value.entity);
  view.facts.textContent = `${value.entity.id} · ${entityFacts(value.entity)}`;
  fillChecks(view.checks, value.checks);
  fillAlarms(view.alarms, value);
  const at = Date.now();
  view.updated.textContent = `Updated ${formatTime(at)} (every ${formatSeconds(refreshMs / SECOND_MS)})`;
  view.updated.setAttribute('data-updated-ms', String(at));
}

/** The entity's overview, or the API's own 404 when the overview skips an unknown id. */
async function loadOverview(session: ConsoleSession, entityId: string, signal: AbortSignal): Promise<OverviewValue> {
  const page = await overviewPage(session, { entityIds: [entityId], limit: 1 }, signal);
  const value = page.values.find((candidate) => candidate.entity.id === entityId);
  if (value !== undefined) return value;
  await getEntity(session, entityId, signal);
  throw new ConsoleApiError(404, `No entity ${entityId}.`, undefined);
}

/** Refreshes the changelog with the overview's alarm labels and latest states, and the check plots when `plotsDue`. */
function refreshSections(view: EntityView, value: OverviewValue, plotsDue: boolean, report: (error: unknown) => void): void {
  const alarmLabels = new Map(value.alarms.map((alarm) => [alarm.id, alarm.label] as const));
  view.timeline.refresh({ alarmLabels, latest: value.latest_alarm_states }).catch(report);
  if (plotsDue) view.plots.refresh(value.checks).catch(report);
}

function isNotFound(error: unknown): boolean {
  return error instanceof ConsoleApiError && error.status === 404;
}

/** One entity's page; the refresh interval comes from the hash's `refresh` (default 5000 ms, at least 1000). */
function mountEntity(root: HTMLElement, route: Route, context: PageContext): () => void {
  const entityId = route.segments[1] ?? '';
  const refreshMs = refreshIntervalMs(route.params.get('refresh'));
  const { session } = context;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let plotsLoadedMs = -Infinity;
  let stopped = false;
  /** Whether the message area shows the overview's own error (plots and timeline errors are left alone). */
  let overviewMessage = false;

  const reportOther = (error: unknown): void => {
    if (stopped || isAbortError(error)) return;
    overviewMessage = false;
    context.showMessage(messageOf(error), 'error');
  };
  root.dataset.loading = 'true';
  const view = renderEntityView(root, session, entityId, reportOther);

  const schedule = (): void => {
    if (!stopped) timer = setTimeout(tick, refreshMs);
  };

  /** A failed refresh: the page stops refreshing on a 404 (the entity does not exist, or no longer does), else shows the error and tries again. */
  const failed = (error: unknown): void => {
    const first = root.dataset.loading === 'true';
    root.dataset.loading = 'false';
    if (isAbortError(error)) return;
    const gone = isNotFound(error);
    if (gone) view.updated.textContent = first ? 'Not found' : 'No longer exists';
    else schedule();
    overviewMessage = true;
    context.showMessage(gone && !first ? `The entity ${entityId} no longer exists; the page stopped refreshing.` : messageOf(error), 'error');
  };

  const loaded = (value: OverviewValue): void => {
    // A refresh that works again clears the error an earlier refresh showed (and only that one).
    if (overviewMessage) context.showMessage('', 'info');
    overviewMessage = false;
    showOverview(view, value, refreshMs);
    root.dataset.loading = 'false';
    const nowMs = Date.now();
    const plotsDue = nowMs - plotsLoadedMs >= CHECK_PLOTS_REFRESH_MS;
    if (plotsDue) plotsLoadedMs = nowMs;
    refreshSections(view, value, plotsDue, reportOther);
    schedule();
  };

  const tick = (): void => {
    loadOverview(session, entityId, controller.signal).then(
      (value) => {
        if (!stopped) loaded(value);
      },
      (error: unknown) => {
        // After unmount the next page may already own the root and the message area.
        if (!stopped) failed(error);
      },
    );
  };

  tick();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    controller.abort();
    view.plots.destroy();
    view.timeline.destroy();
  };
}

/** The entity page: the shell picks it for `#/entities/<entityId>` (two segments). */
export const entityPage: Page = {
  segment: 'entities',
  mount: mountEntity,
};
