// Owns the entity page's check plots: per check and per monitoring zone, one chart of the check's metrics over the last 24 h, points chosen by the chart's width up to the planner's pointsMax.
import { isAbortError, type ConsoleSession } from './api-request.js';
import { viewPlan } from './console-api.js';
import { el, replaceChildren } from './dom.js';
import { labelOf } from './entity-sections.js';
import { checkMetricPlot, listCheckMetrics, MONITORING_LIST_LIMIT_MAX, type CheckView, type ListPage, type PlotValueView } from './monitoring-api.js';
import { capCharts, chartsOfCheck, shortMetricName, type CheckMetricInfo, type PlannedCharts, type ZoneMetrics } from './monitoring-format.js';
import { alignSeries, createPlotChart, type PlotChart } from './plot-chart.js';
import { pointsForWidth } from './plot-density.js';
import { DAY_MS } from './time-units.js';

/** The range every check plot covers: the last 24 h. */
export const CHECK_PLOT_RANGE_MS = DAY_MS;
/** Requests (metric listings and plots) in flight at once for one entity page. */
export const CHECK_PLOT_REQUESTS_CONCURRENCY = 4;
/** Most check-zone charts one entity page draws (an entity may hold 100 checks of several zones); the rest are counted as not plotted. */
export const CHECK_PLOTS_MAX = 24;

/** One check-zone chart on the page. */
interface Card {
  readonly element: HTMLElement;
  readonly plot: HTMLElement;
  readonly note: HTMLElement;
  chart: PlotChart | undefined;
}

/** A chart to draw: its check, zone metrics and card. */
interface ChartJob {
  readonly check: CheckView;
  readonly zone: ZoneMetrics;
  readonly card: Card;
}

/** The check plots section. */
export interface CheckPlots {
  readonly element: HTMLElement;
  /**
   * Lists the checks' metrics and redraws every chart; rejects with the first API error (other
   * charts still draw). While a refresh is still running another one does nothing (a slow server
   * is never cut off by the page's refresh ticks).
   */
  refresh(checks: readonly CheckView[]): Promise<void>;
  destroy(): void;
}

/** Runs `tasks` with at most `concurrency` at once; resolves when all settled, with their errors. */
async function runLimited(tasks: readonly (() => Promise<void>)[], concurrency: number): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++] as () => Promise<void>;
      try {
        await task();
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return errors;
}

/** Lists the metrics of each planned check, CHECK_PLOT_REQUESTS_CONCURRENCY at a time; a check whose listing failed is absent from the map. */
async function listPlanned(session: ConsoleSession, entityId: string, planned: readonly PlannedCharts<CheckView>[], signal: AbortSignal): Promise<{ listed: Map<string, ListPage<CheckMetricInfo>>; errors: unknown[] }> {
  const listed = new Map<string, ListPage<CheckMetricInfo>>();
  const tasks = planned.map(({ check }) => async () => {
    listed.set(check.id, await listCheckMetrics(session, entityId, check.id, { limit: MONITORING_LIST_LIMIT_MAX }, signal));
  });
  const errors = await runLimited(tasks, CHECK_PLOT_REQUESTS_CONCURRENCY);
  return { listed, errors };
}

/** The most points a view returns, learned from the metrics plan endpoint (a plan reads no data, and its limit is the same for every metric and range). */
async function learnPointsMax(session: ConsoleSession, metric: string, nowMs: number, signal: AbortSignal): Promise<number> {
  const plan = await viewPlan(session, metric, { from: nowMs - CHECK_PLOT_RANGE_MS, to: nowMs }, { points: 1 }, signal);
  return plan.pointsMax;
}

/** Shows a chart without metrics as empty, saying why. */
function markEmpty(card: Card): void {
  card.plot.dataset.state = 'empty';
  card.note.textContent = 'No metrics yet: the check has not reported from this zone.';
}

/** The tasks drawing one chart that has metrics: one plot request per metric; the chart renders when the last arrives, and shows the error state when one fails. */
function chartTasks(session: ConsoleSession, entityId: string, job: ChartJob, range: { readonly fromMs: number; readonly toMs: number; readonly pointsMax: number }, signal: AbortSignal): (() => Promise<void>)[] {
  const { check, zone, card } = job;
  const chart = (card.chart ??= createPlotChart(card.plot, card.plot.dataset.plotId ?? '', undefined));
  const ask = { fromMs: range.fromMs, toMs: range.toMs, points: pointsForWidth(chart.width(), range.pointsMax) };
  const answers: { metric: string; unit: string; values: readonly PlotValueView[] }[] = [];
  let left = zone.metrics.length;
  let failed = false;
  return zone.metrics.map((metric, i) => async () => {
    if (failed || signal.aborted) return;
    try {
      const plot = await checkMetricPlot(session, { entityId, checkId: check.id, metric: metric.name }, ask, signal);
      answers[i] = { metric: shortMetricName(metric.name, zone.zoneId), unit: metric.unit, values: plot.values };
    } catch (error) {
      failed = true;
      if (!isAbortError(error)) card.plot.dataset.state = 'error';
      throw error;
    }
    left -= 1;
    if (left > 0 || signal.aborted) return;
    chart.render(alignSeries(answers));
    card.plot.dataset.state = 'ready';
    card.note.textContent = zone.omitted > 0 ? `${zone.omitted} more metrics not plotted (at most ${zone.metrics.length} per chart).` : '';
  });
}

/** The section's heading and, when some charts did not fit, the note saying how many. */
function sectionHead(omitted: number): HTMLElement[] {
  const head = [el('h2', {}, 'Check metrics, last 24 h')];
  if (omitted > 0) head.push(el('p', { class: 'mon-muted mon-small' }, `${omitted} more ${omitted === 1 ? 'chart' : 'charts'} not plotted: a page draws at most ${CHECK_PLOTS_MAX}.`));
  return head;
}

/** The page's cards by plot id (`<checkId>:<zone or agent>`), kept across refreshes so their charts are reused. */
interface Cards {
  cardFor(key: string, title: string): Card;
  /** Destroys the cards whose key is not in `keys`. */
  keepOnly(keys: ReadonlySet<string>): void;
  destroy(): void;
}

function createCards(): Cards {
  const cards = new Map<string, Card>();
  return {
    cardFor(key, title) {
      const known = cards.get(key);
      if (known !== undefined) return known;
      const plot = el('div', { class: 'mon-plot', 'data-plot-id': key, 'data-state': 'loading' });
      const note = el('p', { class: 'mon-muted mon-small' });
      const card: Card = { element: el('div', { class: 'mon-plot-card' }, el('h3', {}, title), plot, note), plot, note, chart: undefined };
      cards.set(key, card);
      return card;
    },
    keepOnly(keys) {
      for (const [key, card] of cards) {
        if (keys.has(key)) continue;
        card.chart?.destroy();
        cards.delete(key);
      }
    },
    destroy() {
      this.keepOnly(new Set());
    },
  };
}

/** One check's group of cards (its zones that fit), adding its charts to `jobs`. */
function checkGroup(cards: Cards, planned: PlannedCharts<CheckView>, page: ListPage<CheckMetricInfo> | undefined, jobs: ChartJob[]): HTMLElement {
  const { check } = planned;
  const group = el('div', { class: 'mon-plots', 'data-check-id': check.id });
  const charts = page === undefined ? [] : chartsOfCheck(page.values, check.monitoring_zones_poll).slice(0, planned.zones.length);
  for (const zone of charts) {
    const card = cards.cardFor(`${check.id}:${zone.zoneId ?? 'agent'}`, `${labelOf(check)} · ${zone.zoneId ?? 'agent'}`);
    group.append(card.element);
    jobs.push({ check, zone, card });
  }
  const note =
    page === undefined ? 'The metrics of this check could not be listed.' : page.metadata.next_marker !== null ? `Only the first ${page.values.length} metrics of this check were listed.` : null;
  return el('div', {}, el('h3', {}, `${labelOf(check)} (${check.type})`), group, note === null ? null : el('p', { class: 'mon-muted mon-small' }, note));
}

/** Lays `section` out for the listed checks (dropping cards no longer shown) and returns the charts to draw. */
function layoutSection(section: HTMLElement, cards: Cards, planned: readonly PlannedCharts<CheckView>[], listed: ReadonlyMap<string, ListPage<CheckMetricInfo>>, omitted: number): ChartJob[] {
  const jobs: ChartJob[] = [];
  const groups = planned.map((one) => checkGroup(cards, one, listed.get(one.check.id), jobs));
  cards.keepOnly(new Set(jobs.map((job) => job.card.plot.dataset.plotId ?? '')));
  if (groups.length === 0) replaceChildren(section, ...sectionHead(omitted), el('p', { class: 'mon-muted' }, 'This entity has no checks.'));
  else replaceChildren(section, ...sectionHead(omitted), ...groups);
  return jobs;
}

/** The views' pointsMax, asked once per page (asked again after a failure). */
function pointsMaxOnce(session: ConsoleSession, now: () => number): (metric: string, signal: AbortSignal) => Promise<number> {
  let known: Promise<number> | undefined;
  return (metric, signal) => {
    known ??= learnPointsMax(session, metric, now(), signal).catch((error: unknown) => {
      known = undefined;
      throw error;
    });
    return known;
  };
}

/** Draws the charts with metrics, CHECK_PLOT_REQUESTS_CONCURRENCY requests at a time; resolves with their errors. */
async function drawCharts(session: ConsoleSession, entityId: string, jobs: readonly ChartJob[], pointsMaxOf: (metric: string, signal: AbortSignal) => Promise<number>, now: () => number, signal: AbortSignal): Promise<unknown[]> {
  const first = jobs[0]?.zone.metrics[0];
  if (first === undefined) return [];
  for (const job of jobs) job.card.plot.dataset.state = 'loading';
  let pointsMax: number;
  try {
    pointsMax = await pointsMaxOf(first.name, signal);
  } catch (error) {
    if (!isAbortError(error)) for (const job of jobs) job.card.plot.dataset.state = 'error';
    return [error];
  }
  const toMs = now();
  const range = { fromMs: toMs - CHECK_PLOT_RANGE_MS, toMs, pointsMax };
  const tasks = jobs.flatMap((job) => chartTasks(session, entityId, job, range, signal));
  return runLimited(tasks, CHECK_PLOT_REQUESTS_CONCURRENCY);
}

/** The plots of an entity's checks; `now` gives the end of the range. */
export function createCheckPlots(session: ConsoleSession, entityId: string, now: () => number = Date.now): CheckPlots {
  const element = el('section', { 'data-testid': 'check-plots', class: 'mon-section', 'aria-label': 'Check metrics' });
  const cards = createCards();
  const pointsMaxOf = pointsMaxOnce(session, now);
  const controller = new AbortController();
  let running = false;

  const draw = async (checks: readonly CheckView[], signal: AbortSignal): Promise<void> => {
    const { plotted, omitted } = capCharts(checks, CHECK_PLOTS_MAX);
    const { listed, errors } = await listPlanned(session, entityId, plotted, signal);
    if (signal.aborted) return;
    const jobs = layoutSection(element, cards, plotted, listed, omitted);
    for (const job of jobs) if (job.zone.metrics.length === 0) markEmpty(job.card);
    const withMetrics = jobs.filter((job) => job.zone.metrics.length > 0);
    errors.push(...(await drawCharts(session, entityId, withMetrics, pointsMaxOf, now, signal)));
    const shown = errors.filter((error) => !isAbortError(error));
    if (shown.length > 0) throw shown[0];
  };

  return {
    element,
    async refresh(checks: readonly CheckView[]): Promise<void> {
      if (running) return;
      running = true;
      try {
        await draw(checks, controller.signal);
      } finally {
        running = false;
      }
    },
    destroy(): void {
      controller.abort();
      cards.destroy();
    },
  };
}
