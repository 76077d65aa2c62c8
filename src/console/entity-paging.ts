// Owns the entities page's state in the hash (`q`, `marker`, `back`): marker paging forward and back, with the earlier pages' markers kept as a bounded stack (pure, no DOM).

/** Entities per page of the entities list. */
export const ENTITY_PAGE_SIZE = 100;
/** Most earlier-page markers the hash keeps (100 pages of 100 = 10,000 entities, a tenant's most); beyond it Prev ends on the first page sooner. */
export const BACK_STACK_MAX = 100;

/** Where the list is: the search text, the marker of the shown page, and the markers of the pages before it (oldest first; undefined is the first page). */
export interface EntityListState {
  readonly q: string;
  readonly marker: string | undefined;
  readonly back: readonly (string | undefined)[];
}

/** The state of a page with no parameters: the first page, no search. */
export const FIRST_PAGE: EntityListState = { q: '', marker: undefined, back: [] };

function encodeBack(back: readonly (string | undefined)[]): string {
  return back.map((marker) => (marker === undefined ? '' : encodeURIComponent(marker))).join(',');
}

function decodeOne(text: string): string | undefined {
  if (text === '') return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The state the hash parameters name; missing or empty parameters are the first page and no search. */
export function parseListState(params: URLSearchParams): EntityListState {
  const q = params.get('q') ?? '';
  const marker = params.get('marker') ?? '';
  const back = params.get('back');
  return {
    q,
    marker: marker === '' ? undefined : marker,
    back: back === null || marker === '' ? [] : back.split(',').map(decodeOne).slice(-BACK_STACK_MAX),
  };
}

/** The hash parameters of a state (parseListState's inverse); empty ones are left out. */
export function listStateParams(state: EntityListState): Record<string, string> {
  const params: Record<string, string> = {};
  if (state.q !== '') params['q'] = state.q;
  if (state.marker !== undefined) {
    params['marker'] = state.marker;
    if (state.back.length > 0) params['back'] = encodeBack(state.back);
  }
  return params;
}

/** The state after Next: the page starting at `nextMarker`, this page's marker pushed (the oldest dropped past BACK_STACK_MAX). */
export function nextPage(state: EntityListState, nextMarker: string): EntityListState {
  return { q: state.q, marker: nextMarker, back: [...state.back, state.marker].slice(-BACK_STACK_MAX) };
}

/** The state after Prev: the last pushed page, or the first page when none was kept. */
export function previousPage(state: EntityListState): EntityListState {
  if (state.back.length === 0) return { q: state.q, marker: undefined, back: [] };
  const marker = state.back[state.back.length - 1];
  return { q: state.q, marker, back: marker === undefined ? [] : state.back.slice(0, -1) };
}

/** Whether there is a page before this one. */
export function hasPrevious(state: EntityListState): boolean {
  return state.marker !== undefined;
}

/** The line under the list: which entities of the list the page shows, e.g. `Entities 101–200`. */
export function pageSummary(state: EntityListState, shown: number, more: boolean): string {
  if (shown === 0) return state.marker === undefined ? 'No entities yet.' : 'No entities on this page.';
  // The back stack may have dropped early pages; the position is then a lower bound.
  const first = state.marker === undefined ? 1 : state.back.length * ENTITY_PAGE_SIZE + 1;
  const position = state.marker !== undefined && state.back.length >= BACK_STACK_MAX ? 'at least ' : '';
  return `Entities ${position}${first}–${first + shown - 1}${more ? ' (more on the next pages)' : ''}`;
}
