// Owns the feed page parameters (marker, direction, limit) and the links a page carries.
import { StrataError } from '../core/errors.js';
import type { FeedEntry } from './feed-entry.js';
import { FEED_MARKER_LENGTH_MAX, FEED_PAGE_DEFAULT, FEED_PAGE_MAX } from './feeds-limits.js';

/** Which way a marker pages: forward is toward newer entries, backward toward older ones. */
export type Direction = 'forward' | 'backward';

/** A parsed page request: the newest page (no marker), the oldest page (`last`), or a page next to an entry. */
export interface PageRequest {
  readonly limit: number;
  readonly marker: string | undefined;
  readonly direction: Direction;
}

/** One link of a page: its relation and the page parameters of its href (none for `current`). */
export interface PageLink {
  readonly rel: 'current' | 'self' | 'last' | 'next' | 'previous';
  readonly request: PageRequest | undefined;
}

/** The marker that names the page holding the oldest entries. */
export const LAST_MARKER = 'last';

const ENTRY_ID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function invalid(message: string, parameter: string): StrataError {
  return new StrataError('FEED_QUERY_INVALID', message, { parameter });
}

/** A feed page's query string: each parameter given at most once (the route's schema makes sure). */
export type FeedQuery = Readonly<Record<string, string | undefined>>;

function parseLimit(text: string | undefined): number {
  if (text === undefined || text === '') return FEED_PAGE_DEFAULT;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > FEED_PAGE_MAX) throw invalid(`limit must be an integer from 1 to ${FEED_PAGE_MAX}.`, 'limit');
  return limit;
}

function parseMarker(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  if (text === LAST_MARKER) return LAST_MARKER;
  if (text.length > FEED_MARKER_LENGTH_MAX || !ENTRY_ID.test(text)) throw invalid('marker must be an entry id (urn:uuid:...) or last.', 'marker');
  return text.toLowerCase();
}

/**
 * Parses marker, direction and limit. Direction defaults to forward when a marker is given (as the
 * reference does); `search` is accepted only empty (links carry `search=`), `startingAt` not at all.
 * Throws FEED_QUERY_INVALID.
 */
export function parsePageRequest(query: FeedQuery): PageRequest {
  const limit = parseLimit(query['limit']);
  const marker = parseMarker(query['marker']);
  const direction = query['direction'] ?? '';
  if (direction !== '' && direction !== 'forward' && direction !== 'backward') throw invalid('direction must be forward or backward.', 'direction');
  if ((query['search'] ?? '') !== '') throw invalid('search (category filters) is not supported by this service.', 'search');
  if (query['startingAt'] !== undefined) throw invalid('startingAt is not supported by this service; page with marker.', 'startingAt');
  // The oldest page is always read toward older entries: "last" has nothing beyond it.
  const resolved: Direction = marker === LAST_MARKER ? 'backward' : direction === '' ? 'forward' : direction;
  return { limit, marker, direction: resolved };
}

/** The query string of a page request, in the reference's order: marker, limit, search, direction. */
export function pageQueryString(request: PageRequest): string {
  const parts = request.marker === undefined ? [] : [`marker=${encodeURIComponent(request.marker)}`];
  parts.push(`limit=${request.limit}`, 'search=');
  if (request.marker !== undefined) parts.push(`direction=${request.direction}`);
  return parts.join('&');
}

/**
 * The links of a page of `entries` (newest first). `next` (older entries) appears only when some
 * exist beyond the page; `previous` (newer entries) appears whenever the page has entries, so a
 * client polling for new entries always has a place to ask, as the reference's feeds do.
 */
export function pageLinks(request: PageRequest, entries: readonly FeedEntry[], olderExist: boolean): PageLink[] {
  const links: PageLink[] = [
    { rel: 'current', request: undefined },
    { rel: 'self', request },
    { rel: 'last', request: { limit: request.limit, marker: LAST_MARKER, direction: 'backward' } },
  ];
  const newest = entries[0];
  const oldest = entries[entries.length - 1];
  if (newest !== undefined) links.push({ rel: 'previous', request: { limit: request.limit, marker: newest.id, direction: 'forward' } });
  if (oldest !== undefined && olderExist) links.push({ rel: 'next', request: { limit: request.limit, marker: oldest.id, direction: 'backward' } });
  return links;
}
