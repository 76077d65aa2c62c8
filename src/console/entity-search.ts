// Owns the bounded entity search: the API has no entity search, so it scans pages through a page fetcher, up to a page bound, and stops on abort (pure, no DOM).

/** Entities the search reads per request: the entity list's largest page (GET /entities, limit 1000; light, no checks or alarms). */
export const ENTITY_SEARCH_PAGE_SIZE = 1000;
/** Most pages one search reads: 10 pages of 1,000 entities = 10,000 entities, a tenant's most. */
export const ENTITY_SEARCH_PAGES_MAX = 10;
/** Most matches one search collects: the overview's entity filter takes at most 100 ids, one overview call then shows them all; the user narrows the text to see others. */
export const ENTITY_SEARCH_MATCHES_MAX = 100;

/** One page as a fetcher returns it: its items and the marker of the next page (null on the last). */
export interface ScanPage<T> {
  readonly values: readonly T[];
  readonly nextMarker: string | null;
}

/** Reads the page starting at `marker` (undefined: the first page); it should stop when `signal` aborts. */
export type PageFetcher<T> = (marker: string | undefined, signal: AbortSignal) => Promise<ScanPage<T>>;

/** Why a scan stopped: it read every page, reached the page or match bound, or was aborted. */
export type ScanEnd = 'complete' | 'page-limit' | 'match-limit' | 'aborted';

/** Progress after each page read. */
export interface ScanStep<T> {
  /** Matches found on this page (all matches so far are the concatenation of the steps). */
  readonly matches: readonly T[];
  /** Items read so far. */
  readonly scanned: number;
  /** Pages read so far. */
  readonly pages: number;
}

/** The bounds of one scan. */
export interface ScanOptions {
  readonly signal: AbortSignal;
  readonly pagesMax?: number;
  readonly matchesMax?: number;
}

/** The texts a person may search an entity by. */
export interface Searchable {
  readonly id: string;
  readonly label: string | null;
}

/** The search text as compared: trimmed and lower-cased. */
export function normalizeQuery(text: string): string {
  return text.trim().toLowerCase();
}

/** Whether an entity's label or id contains the (normalized) query, ignoring case; the empty query matches every entity. */
export function entityMatches(query: string, entity: Searchable): boolean {
  if (query === '') return true;
  return entity.id.toLowerCase().includes(query) || (entity.label ?? '').toLowerCase().includes(query);
}

/**
 * Scans pages from the first on, yielding each page's matches, and returns why it stopped: the
 * last page read ('complete'), `pagesMax` pages read with more left ('page-limit'),
 * `matchesMax` matches collected ('match-limit'; the page that reached it is yielded up to that
 * many), or `signal` aborted ('aborted': nothing is yielded and no request starts after it,
 * and a fetch that fails because of the abort ends the scan quietly). Other fetch errors reject.
 */
export async function* scanPages<T>(fetchPage: PageFetcher<T>, isMatch: (item: T) => boolean, options: ScanOptions): AsyncGenerator<ScanStep<T>, ScanEnd> {
  const pagesMax = options.pagesMax ?? ENTITY_SEARCH_PAGES_MAX;
  const matchesMax = options.matchesMax ?? ENTITY_SEARCH_MATCHES_MAX;
  const { signal } = options;
  let marker: string | undefined;
  let scanned = 0;
  let found = 0;
  for (let pages = 1; pages <= pagesMax; pages++) {
    if (signal.aborted) return 'aborted';
    let page: ScanPage<T>;
    try {
      page = await fetchPage(marker, signal);
    } catch (error) {
      if (signal.aborted) return 'aborted';
      throw error;
    }
    if (signal.aborted) return 'aborted';
    scanned += page.values.length;
    const matches = page.values.filter(isMatch).slice(0, matchesMax - found);
    found += matches.length;
    yield { matches, scanned, pages };
    if (signal.aborted) return 'aborted';
    if (found >= matchesMax) return 'match-limit';
    if (page.nextMarker === null) return 'complete';
    marker = page.nextMarker;
  }
  return 'page-limit';
}

/** What a scan found in all: its matches, how many items it read, and why it stopped. */
export interface ScanResult<T> {
  readonly matches: readonly T[];
  readonly scanned: number;
  readonly pages: number;
  readonly end: ScanEnd;
}

/** Runs scanPages to its end, calling `onStep` after each page; resolves with everything found. */
export async function scanAll<T>(
  fetchPage: PageFetcher<T>,
  isMatch: (item: T) => boolean,
  options: ScanOptions,
  onStep?: (step: ScanStep<T>, soFar: readonly T[]) => void,
): Promise<ScanResult<T>> {
  const matches: T[] = [];
  let scanned = 0;
  let pages = 0;
  const scan = scanPages(fetchPage, isMatch, options);
  for (;;) {
    const next = await scan.next();
    if (next.done === true) return { matches, scanned, pages, end: next.value };
    matches.push(...next.value.matches);
    ({ scanned, pages } = next.value);
    onStep?.(next.value, matches);
  }
}

/** The line shown under a search: how many entities were searched and, when it stopped early, why. */
export function searchSummary(result: Pick<ScanResult<unknown>, 'scanned' | 'end'> & { readonly found: number }): string {
  const entities = `${result.scanned} ${result.scanned === 1 ? 'entity' : 'entities'}`;
  switch (result.end) {
    case 'complete':
      return `${result.found} found; searched all ${entities}`;
    case 'page-limit':
      return `${result.found} found; searched ${entities}, stopped at the limit (${ENTITY_SEARCH_PAGES_MAX * ENTITY_SEARCH_PAGE_SIZE}); type more to narrow the search`;
    case 'match-limit':
      return `showing the first ${result.found} matches (searched ${entities}); type more to narrow the search`;
    case 'aborted':
      return `searched ${entities} before the search changed`;
  }
}
