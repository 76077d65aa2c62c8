// Owns the domain-listing paging rules of spec 8: limit and offset, and the next and previous links.
import { StrataError } from '../core/errors.js';
import { DNS_PAGE_DEFAULT, DNS_PAGE_MAX } from './dns-limits.js';
import type { Page, PageWindow } from './dns-types.js';

/** A link of a collection: `{rel, href, content}` with an empty content, as spec 8 rule 3 has it. */
export interface DnsLink {
  readonly rel: 'next' | 'previous';
  readonly href: string;
  readonly content: '';
}

const DIGITS = /^\d+$/;

/** A listing's query string: each parameter given at most once (the route's schema makes sure); '' counts as absent. */
export type DnsQuery = Readonly<Record<string, string | undefined>>;

function given(query: DnsQuery, name: string): string | undefined {
  const value = query[name];
  return value === '' ? undefined : value;
}

/**
 * The window of a request. Spec 8 makes limit lenient: absent or above DNS_PAGE_MAX means
 * DNS_PAGE_DEFAULT (the reference clamps, and its clients rely on it), so this is the one place a
 * limit is clamped rather than refused; a limit that is not a positive integer is DNS_LIMIT_INVALID.
 * Offset defaults to 0 and must be 0 or a multiple of the limit, else DNS_OFFSET_INVALID (spec 7 rule 4).
 */
export function parseWindow(query: DnsQuery): PageWindow {
  const limitText = given(query, 'limit');
  let limit = DNS_PAGE_DEFAULT;
  if (limitText !== undefined) {
    const value = Number(limitText);
    if (!DIGITS.test(limitText) || value < 1) throw new StrataError('DNS_LIMIT_INVALID', `limit must be a positive integer, not ${limitText}.`, { limit: limitText });
    limit = value > DNS_PAGE_MAX ? DNS_PAGE_DEFAULT : value;
  }
  const offsetText = given(query, 'offset');
  const offset = offsetText === undefined ? 0 : Number(offsetText);
  if (offsetText !== undefined && (!DIGITS.test(offsetText) || !Number.isSafeInteger(offset) || offset % limit !== 0)) {
    throw new StrataError('DNS_OFFSET_INVALID', `offset must be 0 or a multiple of the limit ${limit}, not ${offsetText}.`, { offset: offsetText, limit });
  }
  return { limit, offset };
}

/**
 * The links of a page: `previous` only when earlier items exist, `next` only when more follow.
 * `hrefOf` builds a URL for a window (carrying limit and offset and any filter). A previous link
 * from beyond the end points at the last page that has items, so it never leads to another empty page.
 */
export function pageLinks(page: Page<unknown>, hrefOf: (window: PageWindow) => string): DnsLink[] {
  const { limit, offset } = page.window;
  const links: DnsLink[] = [];
  if (offset > 0 && page.totalEntries > 0) {
    const lastPageOffset = Math.floor((page.totalEntries - 1) / limit) * limit;
    links.push({ rel: 'previous', href: hrefOf({ limit, offset: Math.min(offset - limit, lastPageOffset) }), content: '' });
  }
  if (offset + limit < page.totalEntries) links.push({ rel: 'next', href: hrefOf({ limit, offset: offset + limit }), content: '' });
  return links;
}
