// Properties of the entities page's hash state: it survives the hash, Next then Prev comes back, and the page summary counts right.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACK_STACK_MAX, ENTITY_PAGE_SIZE, FIRST_PAGE, hasPrevious, listStateParams, nextPage, pageSummary, parseListState, previousPage, type EntityListState } from '../../src/console/entity-paging.js';

const marker = fc.string({ minLength: 1, maxLength: 12 });
const query = fc.string({ maxLength: 10 });

/** A state reached by walking Next from the first page. */
const walked = fc.tuple(query, fc.array(marker, { maxLength: 130 })).map(([q, markers]) => markers.reduce<EntityListState>((state, next) => nextPage(state, next), { ...FIRST_PAGE, q }));

describe('entity list state', () => {
  it('round-trips through the hash parameters', () => {
    fc.assert(
      fc.property(walked, (state) => {
        const params = new URLSearchParams(new URLSearchParams(listStateParams(state)).toString());
        expect(parseListState(params)).toEqual(state);
      }),
    );
  });

  it('Prev after Next returns to the same page, and walking back from k pages reaches the first page in k steps (within the bound)', () => {
    fc.assert(
      fc.property(query, fc.array(marker, { maxLength: BACK_STACK_MAX }), (q, markers) => {
        const states: EntityListState[] = [{ ...FIRST_PAGE, q }];
        for (const next of markers) states.push(nextPage(states[states.length - 1] as EntityListState, next));
        let state = states[states.length - 1] as EntityListState;
        for (let i = states.length - 2; i >= 0; i--) {
          expect(hasPrevious(state)).toBe(true);
          state = previousPage(state);
          expect(state).toEqual(states[i]);
        }
        expect(hasPrevious(state)).toBe(false);
      }),
    );
  });

  it('keeps at most BACK_STACK_MAX earlier pages, and Prev always ends on the first page', () => {
    fc.assert(
      fc.property(walked, (start) => {
        expect(start.back.length).toBeLessThanOrEqual(BACK_STACK_MAX);
        let state = start;
        let steps = 0;
        while (hasPrevious(state)) {
          state = previousPage(state);
          steps++;
          expect(steps).toBeLessThanOrEqual(BACK_STACK_MAX + 1);
        }
        expect(state).toEqual({ ...FIRST_PAGE, q: start.q });
      }),
    );
  });

  it('reads missing or empty parameters as the first page', () => {
    expect(parseListState(new URLSearchParams(''))).toEqual(FIRST_PAGE);
    expect(parseListState(new URLSearchParams('marker=&back=a,b'))).toEqual(FIRST_PAGE);
    expect(parseListState(new URLSearchParams('marker=en5'))).toEqual({ q: '', marker: 'en5', back: [] });
  });

  it('summarises the entities a page shows', () => {
    fc.assert(
      fc.property(fc.array(marker, { maxLength: BACK_STACK_MAX - 1 }), fc.integer({ min: 1, max: ENTITY_PAGE_SIZE }), fc.boolean(), (markers, shown, more) => {
        const state = markers.reduce<EntityListState>((s, m) => nextPage(s, m), FIRST_PAGE);
        const first = markers.length * ENTITY_PAGE_SIZE + 1;
        expect(pageSummary(state, shown, more)).toBe(`Entities ${first}–${first + shown - 1}${more ? ' (more on the next pages)' : ''}`);
      }),
    );
    expect(pageSummary(FIRST_PAGE, 0, false)).toBe('No entities yet.');
  });
});
