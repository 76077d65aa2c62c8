// Checks parsing feed page parameters and the links of a page.
import { describe, expect, it } from 'vitest';
import type { FeedEntry } from '../../src/feeds/feed-entry.js';
import { pageLinks, pageQueryString, parsePageRequest } from '../../src/feeds/feed-paging.js';
import { FEED_PAGE_DEFAULT, FEED_PAGE_MAX } from '../../src/feeds/feeds-limits.js';

const ID = 'urn:uuid:0b5a1c2e-3f4d-4a5b-8c6d-7e8f9a0b1c2d';

function entry(seq: number, id = ID): FeedEntry {
  return { seq, id, tenant: 't', feed: 'f', title: 't', categories: [], content: undefined, updatedMs: 0 };
}

describe('parsePageRequest', () => {
  it('defaults to the newest page of FEED_PAGE_DEFAULT entries', () => {
    expect(parsePageRequest({})).toEqual({ limit: FEED_PAGE_DEFAULT, marker: undefined, direction: 'forward' });
  });

  it('reads marker, direction and limit; a marker defaults to forward; last is always backward', () => {
    expect(parsePageRequest({ marker: ID.toUpperCase().replace('URN:UUID', 'urn:uuid'), limit: '7' })).toEqual({ limit: 7, marker: ID, direction: 'forward' });
    expect(parsePageRequest({ marker: ID, direction: 'backward', limit: String(FEED_PAGE_MAX) }).direction).toBe('backward');
    expect(parsePageRequest({ marker: 'last', direction: 'forward' })).toEqual({ limit: FEED_PAGE_DEFAULT, marker: 'last', direction: 'backward' });
    expect(parsePageRequest({ search: '', marker: '' }).marker).toBeUndefined();
  });

  it.each([
    [{ limit: '0' }],
    [{ limit: String(FEED_PAGE_MAX + 1) }],
    [{ limit: '2.5' }],
    [{ direction: 'up' }],
    [{ marker: 'urn:uuid:nope' }],
    [{ marker: `${ID}x` }],
    [{ search: '(cat=a)' }],
    [{ startingAt: '2024-01-01T00:00:00Z' }],
  ])('refuses %j with FEED_QUERY_INVALID', (query) => {
    expect(() => parsePageRequest(query)).toThrow(expect.objectContaining({ code: 'FEED_QUERY_INVALID' }));
  });
});

describe('pageQueryString and pageLinks', () => {
  it('writes the reference order marker, limit, search, direction', () => {
    expect(pageQueryString({ limit: 25, marker: 'last', direction: 'backward' })).toBe('marker=last&limit=25&search=&direction=backward');
    expect(pageQueryString({ limit: 5, marker: undefined, direction: 'forward' })).toBe('limit=5&search=');
  });

  it('an empty page has current, self and last only', () => {
    expect(pageLinks({ limit: 3, marker: undefined, direction: 'forward' }, [], false).map((l) => l.rel)).toEqual(['current', 'self', 'last']);
  });

  it('previous starts from the newest entry forward; next from the oldest backward, only when older entries exist', () => {
    const newest = entry(9, ID);
    const oldest = entry(7, ID.replace('0b5a', '1111'));
    const links = pageLinks({ limit: 2, marker: undefined, direction: 'forward' }, [newest, oldest], true);
    expect(links.find((l) => l.rel === 'previous')?.request).toEqual({ limit: 2, marker: newest.id, direction: 'forward' });
    expect(links.find((l) => l.rel === 'next')?.request).toEqual({ limit: 2, marker: oldest.id, direction: 'backward' });
    expect(pageLinks({ limit: 2, marker: undefined, direction: 'forward' }, [newest], false).some((l) => l.rel === 'next')).toBe(false);
  });
});
