// Owns the metric search: the search box, its status line, and the result list with an add button per metric.
import { ConsoleApiError, messageOf, type ConsoleSession } from './api-request.js';
import { searchMetrics, type MetricMatch } from './console-api.js';
import { debounce, el, INPUT_DEBOUNCE_MS, replaceChildren } from './dom.js';

/** The status line before anything is searched. */
const SEARCH_HINT = 'Type part of a metric name, or a glob with * and ?.';

/** The search panel and what the page tells it. */
export interface SearchPanel {
  readonly element: HTMLElement;
  /** Marks which results are already plotted. */
  setPlotted(metrics: readonly string[]): void;
  destroy(): void;
}

/** What the panel reports. */
export interface SearchEvents {
  onAdd(match: MetricMatch): void;
  showError(text: string): void;
}

/** The status line for a refused search: the narrow-your-search message for SEARCH_RESULTS_TOO_MANY, else undefined. */
export function tooManyText(error: unknown): string | undefined {
  if (!(error instanceof ConsoleApiError) || error.code !== 'SEARCH_RESULTS_TOO_MANY') return undefined;
  const limit = /\d+/.exec(error.message)?.[0];
  return limit === undefined ? 'Too many metrics match; narrow the search.' : `More than ${limit} metrics match; narrow the search.`;
}

/** The result list: one item per match with its Add button (disabled, "Plotted", for metrics already on the plot). */
function createResultList(onAdd: (match: MetricMatch) => void): { readonly element: HTMLUListElement; show(matches: readonly MetricMatch[]): void; markPlotted(plotted: ReadonlySet<string>): void } {
  const element = el('ul', { class: 'metric-results', 'data-testid': 'metric-results', 'aria-label': 'Matching metrics' });
  const markPlotted = (plotted: ReadonlySet<string>): void => {
    for (const item of element.querySelectorAll<HTMLElement>('li[data-metric]')) {
      const button = item.querySelector('button');
      const added = plotted.has(item.dataset.metric ?? '');
      if (button !== null) {
        button.disabled = added;
        button.textContent = added ? 'Plotted' : 'Add';
      }
    }
  };
  const show = (matches: readonly MetricMatch[]): void => {
    const items = matches.map((match) => {
      const add = el('button', { type: 'button', class: 'secondary', 'data-testid': 'add-metric', 'aria-label': `Add ${match.metric} to the plot` }, 'Add');
      add.addEventListener('click', () => onAdd(match));
      return el('li', { 'data-metric': match.metric }, el('span', { class: 'metric-name' }, match.metric), match.unit !== undefined ? el('span', { class: 'unit' }, match.unit) : null, add);
    });
    if (items.length === 0) replaceChildren(element, el('li', { class: 'empty' }, 'No metric matches.'));
    else replaceChildren(element, ...items);
  };
  return { element, show, markPlotted };
}

/** A search panel for `session`'s tenant. */
export function createSearchPanel(session: ConsoleSession, events: SearchEvents): SearchPanel {
  const input = el('input', { id: 'metric-search', type: 'search', 'data-testid': 'metric-search', placeholder: 'cpu, or a glob like web*.cpu', autocomplete: 'off', spellcheck: 'false' });
  const status = el('p', { class: 'search-status', 'data-testid': 'search-status', role: 'status' }, SEARCH_HINT);
  const results = createResultList(events.onAdd);
  const form = el('form', { class: 'search-form', role: 'search' }, el('label', { for: 'metric-search' }, 'Find metrics'), el('div', { class: 'search-row' }, input, el('button', { type: 'submit' }, 'Search')));
  const element = el('section', { class: 'search-panel', 'aria-label': 'Metric search' }, form, status, results.element);
  let plotted: ReadonlySet<string> = new Set<string>();
  let controller: AbortController | undefined;

  const showMatches = (matches: readonly MetricMatch[]): void => {
    status.textContent = matches.length === 1 ? '1 metric' : `${matches.length} metrics`;
    results.show(matches);
    results.markPlotted(plotted);
  };
  const showFailure = (error: unknown): void => {
    results.element.replaceChildren();
    const tooMany = tooManyText(error);
    if (tooMany !== undefined) status.textContent = tooMany;
    else {
      status.textContent = 'The search failed.';
      events.showError(messageOf(error));
    }
  };
  const run = (): void => {
    controller?.abort();
    const text = input.value.trim();
    if (text === '') {
      results.element.replaceChildren();
      status.textContent = SEARCH_HINT;
      return;
    }
    const own = new AbortController();
    controller = own;
    status.textContent = 'Searching…';
    element.dataset.loading = 'true';
    searchMetrics(session, text, own.signal).then(
      (matches) => {
        if (own.signal.aborted) return;
        element.dataset.loading = 'false';
        showMatches(matches);
      },
      (error: unknown) => {
        if (own.signal.aborted) return;
        element.dataset.loading = 'false';
        showFailure(error);
      },
    );
  };
  const typed = debounce(run, INPUT_DEBOUNCE_MS);
  input.addEventListener('input', () => typed.call());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    typed.cancel();
    run();
  });

  return {
    element,
    setPlotted(metrics) {
      plotted = new Set(metrics);
      results.markPlotted(plotted);
    },
    destroy() {
      typed.cancel();
      controller?.abort();
    },
  };
}
