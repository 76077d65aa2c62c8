// Owns the entities page `#/entities?marker=<id>&q=<text>`: a paged list of entities with their worst alarm state, and the bounded label/id search.
import './monitoring.css';
import { stateBadge } from './alarm-badge.js';
import { currentStates, worstState } from './alarm-state.js';
import { isAbortError, messageOf, type ConsoleSession } from './api-request.js';
import { debounce, el, INPUT_DEBOUNCE_MS, replaceChildren } from './dom.js';
import { entityFacts, labelOf } from './entity-sections.js';
import { ENTITY_PAGE_SIZE, FIRST_PAGE, hasPrevious, listStateParams, nextPage, pageSummary, parseListState, previousPage, type EntityListState } from './entity-paging.js';
import { ENTITY_SEARCH_PAGE_SIZE, entityMatches, normalizeQuery, scanAll, searchSummary, type ScanPage } from './entity-search.js';
import { listEntities, overviewPage, type EntityView, type OverviewValue } from './monitoring-api.js';
import type { Page, PageContext, Route } from './page.js';
import { hashOf, replaceHash } from './router.js';

/** Columns of the entity table: heading and cell class. */
const COLUMNS: readonly { readonly heading: string; readonly cell?: string }[] = [
  { heading: 'State' },
  { heading: 'Entity' },
  { heading: 'Addresses and agent', cell: 'mon-wide' },
  { heading: 'Checks', cell: 'mon-num' },
  { heading: 'Alarms', cell: 'mon-num' },
];

/** One entity row: worst-state badge, label (a link to its page) and id, addresses and agent, check and alarm counts. */
function entityRow(value: OverviewValue): HTMLTableRowElement {
  const { entity } = value;
  const states = currentStates(
    value.alarms.map((alarm) => alarm.id),
    value.latest_alarm_states,
  );
  const worst = worstState([...states.values()].map((current) => current.state));
  const badge = stateBadge(worst);
  if (value.alarms.length === 0) {
    // Still data-state UNKNOWN (grey): nothing is known, but the words say why.
    badge.textContent = 'no alarms';
    badge.title = 'This entity has no alarms.';
  } else {
    badge.title = `Worst of ${value.alarms.length} ${value.alarms.length === 1 ? 'alarm' : 'alarms'}: ${worst}`;
  }
  const link = el('a', { href: hashOf(['entities', entity.id]) }, labelOf(entity));
  return el(
    'tr',
    { 'data-entity-id': entity.id },
    el('td', {}, badge),
    el('td', {}, el('div', {}, link), el('div', { class: 'mon-id' }, entity.id)),
    el('td', { class: 'mon-wide' }, entityFacts(entity)),
    el('td', { class: 'mon-num' }, String(value.checks.length)),
    el('td', { class: 'mon-num' }, String(value.alarms.length)),
  );
}

/** The page's elements. */
interface EntitiesView {
  readonly search: HTMLInputElement;
  readonly count: HTMLElement;
  readonly body: HTMLTableSectionElement;
  readonly prev: HTMLButtonElement;
  readonly next: HTMLButtonElement;
  readonly pager: HTMLElement;
}

/** Builds the page into `root`: the search box and count, the entity table and the pager. */
function renderEntitiesView(root: HTMLElement, query: string): EntitiesView {
  const search = el('input', { type: 'search', 'data-testid': 'entity-search', id: 'entity-search', placeholder: 'label or id contains…', autocomplete: 'off', value: query });
  const count = el('span', { 'data-testid': 'entity-count', class: 'mon-status', role: 'status' });
  const body = el('tbody');
  const head = el('thead', {}, el('tr', {}, ...COLUMNS.map((column) => el('th', { scope: 'col', class: column.cell }, column.heading))));
  const list = el('table', { class: 'mon-table', 'data-testid': 'entity-list', 'aria-label': 'Entities' }, head, body);
  const prev = el('button', { type: 'button', 'data-testid': 'prev-page', disabled: true }, '← Prev');
  const next = el('button', { type: 'button', 'data-testid': 'next-page', disabled: true }, 'Next →');
  const pager = el('div', { class: 'mon-pager' }, prev, next);
  replaceChildren(root, el('h1', {}, 'Entities'), el('div', { class: 'mon-toolbar' }, el('label', { for: 'entity-search' }, 'Search', search), count), list, pager);
  return { search, count, body, prev, next, pager };
}

/** Shows `values` as the table's rows, or one row saying `empty`. */
function fillRows(body: HTMLTableSectionElement, values: readonly OverviewValue[], empty: string): void {
  if (values.length === 0) replaceChildren(body, el('tr', {}, el('td', { colspan: COLUMNS.length, class: 'mon-muted' }, empty)));
  else replaceChildren(body, ...values.map(entityRow));
}

/** Loads and shows the page of the list `state` names (marker paging through the overview). */
async function showListPage(view: EntitiesView, session: ConsoleSession, state: EntityListState, signal: AbortSignal): Promise<void> {
  view.pager.hidden = false;
  view.prev.disabled = true;
  view.next.disabled = true;
  view.count.textContent = 'Loading…';
  const page = await overviewPage(session, { limit: ENTITY_PAGE_SIZE, ...(state.marker !== undefined ? { marker: state.marker } : {}) }, signal);
  if (signal.aborted) return;
  fillRows(view.body, page.values, state.marker === undefined ? 'No entities yet.' : 'No entities on this page.');
  const nextMarker = page.metadata.next_marker;
  view.count.textContent = pageSummary(state, page.values.length, nextMarker !== null);
  view.prev.disabled = !hasPrevious(state);
  view.next.disabled = nextMarker === null;
  view.next.dataset.marker = nextMarker ?? '';
}

/** The overviews of the matched entities, in the matches' order (one call: the matches are at most the overview's filter size); entities deleted since the scan drop out. */
async function overviewsOf(session: ConsoleSession, matches: readonly EntityView[], signal: AbortSignal): Promise<OverviewValue[]> {
  if (matches.length === 0) return [];
  const ids = matches.map((entity) => entity.id);
  const page = await overviewPage(session, { entityIds: ids, limit: ids.length }, signal);
  const byId = new Map(page.values.map((value) => [value.entity.id, value] as const));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Scans the entity list (light pages of ENTITY_SEARCH_PAGE_SIZE) for `query`, then shows the matches with their states. */
async function showSearch(view: EntitiesView, session: ConsoleSession, query: string, signal: AbortSignal): Promise<void> {
  // A search shows its matches on one list: marker paging does not apply.
  view.pager.hidden = true;
  const wanted = normalizeQuery(query);
  view.count.textContent = 'Searching…';
  const fetchPage = async (marker: string | undefined, pageSignal: AbortSignal): Promise<ScanPage<EntityView>> => {
    const page = await listEntities(session, { limit: ENTITY_SEARCH_PAGE_SIZE, ...(marker !== undefined ? { marker } : {}) }, pageSignal);
    return { values: page.values, nextMarker: page.metadata.next_marker };
  };
  const result = await scanAll(fetchPage, (entity) => entityMatches(wanted, entity), { signal }, (step, soFar) => {
    view.count.textContent = `Searching… ${soFar.length} found in ${step.scanned} entities`;
  });
  if (signal.aborted || result.end === 'aborted') return;
  const values = await overviewsOf(session, result.matches, signal);
  if (signal.aborted) return;
  fillRows(view.body, values, `No entity's label or id contains “${query.trim()}”.`);
  view.count.textContent = searchSummary({ scanned: result.scanned, end: result.end, found: values.length });
}

/** Wires the search box and the pager to `load`, which shows the state it is given. */
function wireControls(view: EntitiesView, getState: () => EntityListState, load: (state: EntityListState) => void, stopRunning: () => void): () => void {
  const typed = debounce(() => load({ ...FIRST_PAGE, q: view.search.value }), INPUT_DEBOUNCE_MS);
  view.search.addEventListener('input', () => {
    // Typing stops the running search at once, not only after the pause.
    stopRunning();
    typed.call();
  });
  view.next.addEventListener('click', () => {
    const marker = view.next.dataset.marker ?? '';
    if (marker !== '') load(nextPage(getState(), marker));
  });
  view.prev.addEventListener('click', () => load(previousPage(getState())));
  return () => typed.cancel();
}

function mountEntities(root: HTMLElement, route: Route, context: PageContext): () => void {
  const { session } = context;
  let state: EntityListState = parseListState(route.params);
  let controller = new AbortController();
  let stopped = false;
  root.dataset.loading = 'true';
  const view = renderEntitiesView(root, state.q);

  const fail = (error: unknown): void => {
    if (stopped || isAbortError(error)) return;
    root.dataset.loading = 'false';
    view.count.textContent = 'Could not load entities.';
    context.showMessage(messageOf(error), 'error');
  };

  /** Shows `next`: earlier requests and searches stop; the state goes into the hash (replaceState: no hashchange, which would remount the page). */
  const load = (next: EntityListState): void => {
    state = next;
    replaceHash('/entities', listStateParams(state));
    controller.abort();
    controller = new AbortController();
    const { signal } = controller;
    const work = normalizeQuery(state.q) === '' ? showListPage(view, session, state, signal) : showSearch(view, session, state.q, signal);
    work.then(() => {
      if (!signal.aborted) root.dataset.loading = 'false';
    }, fail);
  };

  const unwire = wireControls(view, () => state, load, () => controller.abort());
  load(state);
  return () => {
    stopped = true;
    unwire();
    controller.abort();
  };
}

/** The entities page: the shell picks it for `#/entities` (one segment). */
export const entitiesPage: Page = {
  segment: 'entities',
  title: 'Entities',
  mount: mountEntities,
};
