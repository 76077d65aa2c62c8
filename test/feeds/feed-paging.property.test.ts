// Property: walking a feed's next links from the newest page, or its previous links from the last page, visits every entry once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { BIGDATA_USAGE_FEED } from '../../src/feeds/feed-catalog.js';
import { parsePageRequest, pageQueryString, type PageRequest } from '../../src/feeds/feed-paging.js';
import { openFeeds, type Feeds } from '../../src/feeds/feeds-service.js';

function filled(count: number, otherTenant: number): { feeds: Feeds; titles: string[] } {
  const feeds = openFeeds({ dir: undefined, clock: new ManualClock(1_700_000_000_000), region: 'ORD' });
  const titles: string[] = [];
  // Interleave another tenant's entries: they must never show up or shift pages.
  for (let i = 0; i < Math.max(count, otherTenant); i++) {
    if (i < count) titles.push(feeds.publish('t1', BIGDATA_USAGE_FEED, { title: `e${i}`, categories: [] }).title);
    if (i < otherTenant) feeds.publish('t2', BIGDATA_USAGE_FEED, { title: `x${i}`, categories: [] });
  }
  return { feeds, titles };
}

/** Follows links of one rel, re-parsing each href's query as a client would, until a page has none. */
function walk(feeds: Feeds, start: PageRequest, rel: 'next' | 'previous'): string[][] {
  const pages: string[][] = [];
  let request: PageRequest | undefined = start;
  for (let guard = 0; request !== undefined && guard < 1000; guard++) {
    const page = feeds.page('t1', BIGDATA_USAGE_FEED, request);
    pages.push(page.entries.map((e) => e.title));
    const link = page.links.find((l) => l.rel === rel)?.request;
    request = link === undefined ? undefined : parsePageRequest(Object.fromEntries(new URLSearchParams(pageQueryString(link))));
  }
  return pages;
}

describe('feed paging', () => {
  it('next links from the newest page visit every entry once, newest first', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(10), fc.integer({ min: 1, max: 10 }), (count, other, limit) => {
        const { feeds, titles } = filled(count, other);
        const pages = walk(feeds, { limit, marker: undefined, direction: 'forward' }, 'next');
        expect(pages.flat()).toEqual([...titles].reverse());
        expect(pages.every((p) => p.length <= limit)).toBe(true);
        feeds.close();
      }),
    );
  });

  it('previous links from the last page visit every entry once, oldest page first, then an empty page', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(10), fc.integer({ min: 1, max: 10 }), (count, other, limit) => {
        const { feeds, titles } = filled(count, other);
        const pages = walk(feeds, { limit, marker: 'last', direction: 'backward' }, 'previous');
        // Each page is newest first; pages go from the oldest entries to the newest.
        expect(pages.flatMap((p) => [...p].reverse())).toEqual(titles);
        expect(pages[pages.length - 1]).toEqual([]);
        feeds.close();
      }),
    );
  });
});
