// Owns the metrics page: search, plotted list, range and density, the plot, and the plan beside it; its state lives in the hash.
import { messageOf, type ConsoleSession } from './api-request.js';
import { viewPlan, viewValues, type MetricValues } from './console-api.js';
import { debounce, el, replaceChildren } from './dom.js';
import { createSearchPanel, type SearchPanel } from './metric-search-panel.js';
import { paramsFromState, PLOTTED_METRICS_MAX, stateFromParams, withMetric, withoutMetric, type MetricsState, type RangeChoice } from './metrics-state.js';
import type { Page, PageContext, Route } from './page.js';
import { createPlanPanel, type PlanPanel } from './plan-panel.js';
import { planTexts } from './plan-text.js';
import { alignSeries, createPlotChart, seriesColor, type PlotChart } from './plot-chart.js';
import { pointsForWidth } from './plot-density.js';
import { createRangeControls, type RangeControls } from './range-controls.js';
import { askFor, nextStep, POINTS_MAX_ASSUMED, presetRange, RESOLUTION_NAMES, type TimeRange, type ViewAsk } from './range.js';
import { replaceHash } from './router.js';
import { formatTime } from './time-format.js';

/** Wait after the last resize before re-planning for the new width. */
export const RESIZE_DEBOUNCE_MS = 250;
/** The plot's id in the inspection hook. */
export const METRICS_PLOT_ID = 'metrics';

type PlotState = 'empty' | 'loading' | 'ready' | 'error';

/** The range a choice covers now. */
function resolveRange(range: RangeChoice, nowMs: number): TimeRange {
  return 'preset' in range ? presetRange(range.preset, nowMs) : range.fixed;
}

/** The plan for the first plotted metric, stepped coarser while points land over the limit; returns the plan, the ask to fetch and the notes. */
async function planView(session: ConsoleSession, state: MetricsState, range: TimeRange, widthPx: number, pointsMax: number, signal: AbortSignal) {
  const metric = state.metrics[0] as string;
  let asked = askFor(state.choice, widthPx, pointsMax);
  let plan = await viewPlan(session, metric, range, asked.ask, signal);
  if (plan.pointsMax !== pointsMax && state.choice.mode !== 'resolution') {
    // The server's limit differs from the one assumed: ask again within it.
    asked = askFor(state.choice, widthPx, plan.pointsMax);
    plan = await viewPlan(session, metric, range, asked.ask, signal);
  }
  const notes = asked.limitNote === null ? [] : [asked.limitNote];
  let ask: ViewAsk = asked.ask;
  for (let tries = 0; tries < RESOLUTION_NAMES.length; tries++) {
    const step = nextStep(state.choice.mode, plan);
    if (step.kind === 'fetch') return { plan, ask, notes, requested: asked.requested, blocked: false };
    notes.push(step.note);
    if (step.kind === 'blocked') return { plan, ask, notes, requested: asked.requested, blocked: true };
    ask = step.ask;
    plan = await viewPlan(session, metric, range, ask, signal);
  }
  return { plan, ask, notes, requested: asked.requested, blocked: true };
}

/** The plotted metrics' values as the chart aligns them, in plotted order; units learnt from the answer are kept in `units`. */
function valuesOf(metrics: readonly string[], results: readonly MetricValues[], units: Map<string, string>) {
  const byName = new Map(results.map((result) => [result.metric, result]));
  return metrics.map((metric) => {
    const result = byName.get(metric);
    const unit = result?.unit ?? units.get(metric) ?? '';
    if (result !== undefined) units.set(metric, result.unit);
    return { metric, unit, values: result?.data ?? [] };
  });
}

/** The plotted list: each metric with its colour, unit and Remove button, and the note when the plot is full. */
function createPlottedList(onRemove: (metric: string) => void): { readonly element: HTMLElement; show(metrics: readonly string[], units: ReadonlyMap<string, string>): void } {
  const list = el('ul', { class: 'plotted', 'data-testid': 'plotted', 'aria-label': 'Plotted metrics' });
  const note = el('p', { class: 'hint' });
  const element = el('section', { class: 'plotted-panel', 'aria-label': 'Plotted metrics' }, el('h2', {}, 'Plotted'), list, note);
  const show = (metrics: readonly string[], units: ReadonlyMap<string, string>): void => {
    const items = metrics.map((metric, n) => {
      const remove = el('button', { type: 'button', class: 'secondary', 'data-testid': 'remove-metric', 'aria-label': `Remove ${metric} from the plot` }, 'Remove');
      remove.addEventListener('click', () => onRemove(metric));
      const swatch = el('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.backgroundColor = seriesColor(n);
      const unit = units.get(metric);
      return el('li', { 'data-metric': metric }, swatch, el('span', { class: 'metric-name' }, metric), unit !== undefined ? el('span', { class: 'unit' }, unit) : null, remove);
    });
    if (items.length === 0) replaceChildren(list, el('li', { class: 'empty' }, 'Nothing plotted yet: search for a metric and add it.'));
    else replaceChildren(list, ...items);
    note.textContent = metrics.length >= PLOTTED_METRICS_MAX ? `The plot is full: at most ${PLOTTED_METRICS_MAX} metrics (the views API's limit).` : '';
  };
  return { element, show };
}

/** The plot's figure with its chart and its status note (data-state tells the tests and the CSS what it shows). */
function createPlotArea(): { readonly element: HTMLElement; readonly chart: PlotChart; set(state: PlotState, note: string): void } {
  const note = el('p', { class: 'plot-note', role: 'status' });
  const element = el('figure', { class: 'plot', 'data-testid': 'plot', 'data-state': 'empty', 'aria-label': 'Plot of the plotted metrics' }, note);
  const chart = createPlotChart(element, METRICS_PLOT_ID);
  const set = (state: PlotState, text: string): void => {
    element.dataset.state = state;
    note.textContent = text;
    note.hidden = text === '';
  };
  return { element, chart, set };
}

/** The page's parts, built once per mount. */
interface MetricsParts {
  readonly plotted: ReturnType<typeof createPlottedList>;
  readonly plot: ReturnType<typeof createPlotArea>;
  readonly plan: PlanPanel;
  readonly search: SearchPanel;
  readonly controls: RangeControls;
}

/** What one load of the plot needs: the page's parts, its mutable state and where to report. */
interface PlotLoad {
  readonly session: ConsoleSession;
  readonly parts: MetricsParts;
  readonly units: Map<string, string>;
  readonly showError: (text: string) => void;
  /** Told the server's pointsMax as soon as a plan answered. */
  readonly onPointsMax: (pointsMax: number) => void;
}

/**
 * Plans and fetches the plot of `state` over `range` at `widthPx` and draws it, or explains why
 * not; never rejects. Does nothing visible once `signal` aborted (a newer load owns the page).
 */
async function loadPlot(load: PlotLoad, state: MetricsState, range: TimeRange, widthPx: number, pointsMax: number, signal: AbortSignal): Promise<void> {
  const { parts, units } = load;
  const empty = (): void => parts.plot.chart.render(alignSeries(valuesOf(state.metrics, [], units)));
  parts.plot.set('loading', 'Loading…');
  parts.plan.loading();
  let planned: Awaited<ReturnType<typeof planView>> | undefined;
  try {
    planned = await planView(load.session, state, range, widthPx, pointsMax, signal);
    if (signal.aborted) return;
    load.onPointsMax(planned.plan.pointsMax);
    parts.plan.show(planTexts(planned.plan, planned, formatTime));
    if (planned.blocked) {
      empty();
      parts.plot.set('empty', 'Not requested: the resolution chosen would return more points than a view may. See the plan.');
      return;
    }
    const results = await viewValues(load.session, state.metrics, range, planned.ask, signal);
    if (signal.aborted) return;
    const data = { ...alignSeries(valuesOf(state.metrics, results, units)), range };
    parts.plot.chart.render(data);
    parts.plotted.show(state.metrics, units);
    parts.plot.set(data.timestamps.length === 0 ? 'empty' : 'ready', data.timestamps.length === 0 ? 'No values in this range.' : '');
  } catch (error) {
    if (signal.aborted) return;
    // Nothing stale stays drawn (or in the inspection hook) under an error.
    empty();
    parts.plot.set('error', 'The plot could not be loaded.');
    if (planned === undefined) parts.plan.empty('The plan could not be made.');
    load.showError(messageOf(error));
  }
}

/** Builds the page's parts into `root`; the callbacks change the page's state. */
function buildMetricsPage(root: HTMLElement, session: ConsoleSession, on: { add(metric: string, unit: string | undefined): void; remove(metric: string): void; usePoints(): void; update(change: Partial<MetricsState>): void; showError(text: string): void }): MetricsParts {
  const plotted = createPlottedList(on.remove);
  const plot = createPlotArea();
  const plan = createPlanPanel(on.usePoints);
  const search = createSearchPanel(session, { onAdd: (match) => on.add(match.metric, match.unit), showError: on.showError });
  const controls = createRangeControls({ onRange: (range) => on.update({ range }), onChoice: (choice) => on.update({ choice }), onInvalid: on.showError });
  replaceChildren(
    root,
    el(
      'div',
      { class: 'metrics-page' },
      el('div', { class: 'metrics-side' }, search.element, plotted.element),
      el('div', { class: 'metrics-main' }, controls.element, el('div', { class: 'plot-row' }, plot.element, plan.element)),
    ),
  );
  return { plotted, plot, plan, search, controls };
}

function mountMetrics(root: HTMLElement, route: Route, context: PageContext): () => void {
  const { session } = context;
  const showError = (text: string): void => context.showMessage(text, 'error');
  let state = stateFromParams(route.params);
  let pointsMax = POINTS_MAX_ASSUMED;
  /** The auto points of the last load (asked, whatever its outcome): a resize reloads only when they change. */
  let lastAuto: number | undefined;
  let controller: AbortController | undefined;
  const units = new Map<string, string>();

  const parts = buildMetricsPage(root, session, {
    add(metric, unit) {
      if (unit !== undefined) units.set(metric, unit);
      const added = withMetric(state, metric);
      if (added.refused) showError(`A plot holds at most ${PLOTTED_METRICS_MAX} metrics (the views API's limit); remove one first.`);
      else update(added.state);
    },
    remove: (metric) => update(withoutMetric(state, metric)),
    usePoints: () => update({ ...state, choice: { mode: 'points', points: pointsMax } }),
    update: (change) => update({ ...state, ...change }),
    showError,
  });
  const { plot, plotted, plan, controls, search } = parts;

  async function refresh(): Promise<void> {
    controller?.abort();
    const own = new AbortController();
    controller = own;
    const range = resolveRange(state.range, Date.now());
    const widthPx = plot.chart.width();
    lastAuto = pointsForWidth(widthPx, pointsMax);
    controls.set(state.range, state.choice, range, lastAuto);
    plotted.show(state.metrics, units);
    search.setPlotted(state.metrics);
    if (state.metrics.length === 0) {
      plot.set('empty', 'Add a metric to plot it.');
      plan.empty('The plan appears once a metric is plotted.');
      root.dataset.loading = 'false';
      return;
    }
    const onPointsMax = (served: number): void => {
      pointsMax = served;
      lastAuto = pointsForWidth(widthPx, served);
    };
    await loadPlot({ session, parts, units, showError, onPointsMax }, state, range, widthPx, pointsMax, own.signal);
    if (!own.signal.aborted) root.dataset.loading = 'false';
  }

  function update(next: MetricsState): void {
    state = next;
    // replaceHash, not a hash assignment: the link stays current without remounting the page.
    replaceHash('/metrics', paramsFromState(state));
    void refresh();
  }

  const resized = debounce(() => {
    if (state.choice.mode !== 'auto' || state.metrics.length === 0) return;
    if (pointsForWidth(plot.chart.width(), pointsMax) !== lastAuto) void refresh();
  }, RESIZE_DEBOUNCE_MS);
  const observer = new ResizeObserver(() => resized.call());
  observer.observe(plot.element);
  void refresh();

  return () => {
    controller?.abort();
    resized.cancel();
    observer.disconnect();
    search.destroy();
    plot.chart.destroy();
  };
}

/** The metrics page: `#/metrics?m=<name>&range=<preset>|from&to&points|resolution`. */
export const metricsPage: Page = { segment: 'metrics', title: 'Metrics', mount: mountMetrics };
