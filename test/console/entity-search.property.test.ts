// Properties of the bounded entity search with a fake page fetcher: every match within the bound, never more requests than the bound, nothing after an abort.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ENTITY_SEARCH_MATCHES_MAX,
  ENTITY_SEARCH_PAGE_SIZE,
  ENTITY_SEARCH_PAGES_MAX,
  entityMatches,
  normalizeQuery,
  scanAll,
  scanPages,
  searchSummary,
  type PageFetcher,
  type Searchable,
} from '../../src/console/entity-search.js';

/** A fake API: entities in id order, paged by marker (the id of a page's first item), counting requests. */
function fakeFetcher(entities: readonly Searchable[], pageSize: number): { fetch: PageFetcher<Searchable>; requests: (string | undefined)[] } {
  const requests: (string | undefined)[] = [];
  const fetch: PageFetcher<Searchable> = async (marker) => {
    requests.push(marker);
    const start = marker === undefined ? 0 : entities.findIndex((entity) => entity.id >= marker);
    const from = start === -1 ? entities.length : start;
    const values = entities.slice(from, from + pageSize);
    const next = entities[from + pageSize];
    return { values, nextMarker: next === undefined ? null : next.id };
  };
  return { fetch, requests };
}

const entitiesArb = fc
  .uniqueArray(fc.stringMatching(/^[a-z0-9]{1,4}$/), { maxLength: 120 })
  .chain((ids) => fc.tuple(fc.constant([...ids].sort()), fc.array(fc.option(fc.stringMatching(/^[a-zA-Z ]{0,6}$/), { nil: null }), { minLength: ids.length, maxLength: ids.length })))
  .map(([ids, labels]) => ids.map((id, i) => ({ id: `en${id}`, label: labels[i] ?? null })));

describe('entityMatches', () => {
  it('matches a substring of the label or id, ignoring case; the empty query matches all', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.option(fc.string({ maxLength: 8 }), { nil: null }), (text, id, label) => {
        const query = normalizeQuery(text);
        const expected = query === '' || id.toLowerCase().includes(query) || (label ?? '').toLowerCase().includes(query);
        expect(entityMatches(query, { id, label })).toBe(expected);
      }),
    );
    expect(entityMatches(normalizeQuery('  WEB '), { id: 'enX', label: 'my-web-1' })).toBe(true);
  });
});

describe('scanPages', () => {
  it('finds exactly the matches among the entities within the bound, in order, with at most pagesMax requests', async () => {
    await fc.assert(
      fc.asyncProperty(entitiesArb, fc.integer({ min: 1, max: 15 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 200 }), fc.string({ maxLength: 2 }), async (entities, pageSize, pagesMax, matchesMax, text) => {
        const { fetch, requests } = fakeFetcher(entities, pageSize);
        const query = normalizeQuery(text);
        const isMatch = (entity: Searchable): boolean => entityMatches(query, entity);
        const result = await scanAll(fetch, isMatch, { signal: new AbortController().signal, pagesMax, matchesMax });
        expect(requests.length).toBeLessThanOrEqual(pagesMax);
        expect(result.pages).toBe(requests.length);
        const within = entities.slice(0, result.scanned);
        expect(result.scanned).toBe(Math.min(entities.length, requests.length * pageSize));
        expect(result.matches).toEqual(within.filter(isMatch).slice(0, matchesMax));
        expect(result.matches.length).toBeLessThanOrEqual(matchesMax);
        const allMatches = entities.filter(isMatch).length;
        if (result.end === 'complete') expect(result.scanned).toBe(entities.length);
        if (result.end === 'page-limit') {
          expect(requests.length).toBe(pagesMax);
          expect(result.scanned).toBeLessThan(entities.length);
        }
        if (result.end === 'match-limit') expect(result.matches.length).toBe(matchesMax);
        // Whenever everything fits the bound, nothing is missed.
        if (entities.length <= pagesMax * pageSize && allMatches < matchesMax) {
          expect(result.end).toBe('complete');
          expect(result.matches.length).toBe(allMatches);
        }
      }),
    );
  });

  it('after an abort yields nothing more and starts no request', async () => {
    await fc.assert(
      fc.asyncProperty(entitiesArb, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 12 }), async (entities, pageSize, abortAfter) => {
        const { fetch, requests } = fakeFetcher(entities, pageSize);
        const controller = new AbortController();
        const steps: number[] = [];
        const scan = scanPages(fetch, () => true, { signal: controller.signal, pagesMax: 50, matchesMax: 10_000 });
        let end: string | undefined;
        for (;;) {
          if (steps.length === abortAfter) controller.abort();
          const next = await scan.next();
          if (next.done === true) {
            end = next.value;
            break;
          }
          steps.push(next.value.pages);
        }
        const pagesAvailable = Math.max(1, Math.ceil(entities.length / pageSize));
        // Aborting after the last page but before the scan resumes still ends it as aborted.
        expect(end).toBe(abortAfter <= pagesAvailable ? 'aborted' : 'complete');
        expect(steps.length).toBe(Math.min(abortAfter, pagesAvailable));
        expect(requests.length).toBe(steps.length);
      }),
    );
  });

  it('ends quietly when a fetch fails because of the abort, and rejects on any other failure', async () => {
    const controller = new AbortController();
    const aborting: PageFetcher<Searchable> = async () => {
      controller.abort();
      throw new DOMException('aborted', 'AbortError');
    };
    await expect(scanAll(aborting, () => true, { signal: controller.signal })).resolves.toMatchObject({ end: 'aborted', matches: [] });
    const failing: PageFetcher<Searchable> = async () => {
      throw new Error('HTTP 500');
    };
    await expect(scanAll(failing, () => true, { signal: new AbortController().signal })).rejects.toThrow('HTTP 500');
  });

  it('with the default bounds reads 10 pages of 1,000 from 12,000 entities and says it stopped at the limit', async () => {
    const entities = Array.from({ length: 12_000 }, (_, i) => ({ id: `en${String(i).padStart(5, '0')}`, label: `host-${i}` }));
    const { fetch, requests } = fakeFetcher(entities, ENTITY_SEARCH_PAGE_SIZE);
    const result = await scanAll(fetch, (entity) => entityMatches('host-999', entity), { signal: new AbortController().signal });
    expect(requests.length).toBe(ENTITY_SEARCH_PAGES_MAX);
    expect(result.end).toBe('page-limit');
    expect(result.scanned).toBe(10_000);
    expect(result.matches.map((entity) => entity.label)).toEqual(['host-999', ...Array.from({ length: 10 }, (_, i) => `host-${9990 + i}`)]);
    expect(searchSummary({ scanned: result.scanned, end: result.end, found: result.matches.length })).toContain('searched 10000 entities, stopped at the limit (10000)');
  });

  it('with the default bounds searches all of 10,000 entities (a tenant\'s most) and stops at the 100th match', async () => {
    const entities = Array.from({ length: 10_000 }, (_, i) => ({ id: `en${String(i).padStart(5, '0')}`, label: `host-${i}` }));
    const all = fakeFetcher(entities, ENTITY_SEARCH_PAGE_SIZE);
    const one = await scanAll(all.fetch, (entity) => entityMatches('host-9999', entity), { signal: new AbortController().signal });
    expect(one.end).toBe('complete');
    expect(one.scanned).toBe(10_000);
    expect(all.requests.length).toBe(10);
    expect(searchSummary({ scanned: one.scanned, end: one.end, found: one.matches.length })).toBe('1 found; searched all 10000 entities');
    const many = await scanAll(fakeFetcher(entities, ENTITY_SEARCH_PAGE_SIZE).fetch, (entity) => entityMatches('host-', entity), { signal: new AbortController().signal });
    expect(many.end).toBe('match-limit');
    expect(many.matches.length).toBe(ENTITY_SEARCH_MATCHES_MAX);
  });
});
