// Owns the addresses of a tenant's feed: the feed URL, page hrefs, entry hrefs and the feed's Atom id.
import type { PageRequest } from './feed-paging.js';
import { pageQueryString } from './feed-paging.js';

/** Where a tenant's feed lives: `{publicUrl}/feeds/{tenant}/{feed path}`. */
export interface FeedAddress {
  readonly tenant: string;
  /** The feed's URL, without a query. */
  readonly feedUrl: string;
  readonly feedPath: string;
}

/** The href of a page link: the feed URL alone for `current`, with the page parameters otherwise. */
export function linkHref(address: FeedAddress, request: PageRequest | undefined): string {
  return request === undefined ? address.feedUrl : `${address.feedUrl}?${pageQueryString(request)}`;
}

/** The URL of one entry. */
export function entryHref(address: FeedAddress, id: string): string {
  return `${address.feedUrl}/entries/${id}`;
}

/** The feed's Atom id: stable for a tenant and feed, whatever URL the server is reached at. */
export function feedId(address: FeedAddress): string {
  return `urn:strata:feeds:${address.tenant}:${address.feedPath}`;
}
