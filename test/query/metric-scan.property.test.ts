// Properties of listMetrics paging: following nextAfter yields every matching name once, in order, whatever the page size and scan budget.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, type GlobMatcher } from '../../src/model/glob.js';
import { scanMetricNames, type MetricScanPage } from '../../src/query/metric-scan.js';
import { SortedNames } from '../../src/storage/sorted-names.js';

const name = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '?', '\uffff'), minLength: 1, maxLength: 5 });
const glob = fc.option(fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '?'), maxLength: 5 }), { nil: undefined });

/** A matcher that counts the names it is asked about, to check the scan budget. */
function counting(matcher: GlobMatcher): GlobMatcher & { calls: number } {
  const counted = {
    glob: matcher.glob,
    literalPrefix: matcher.literalPrefix,
    calls: 0,
    matches(n: string): boolean {
      counted.calls++;
      return matcher.matches(n);
    },
  };
  return counted;
}

describe('scanMetricNames', () => {
  it('yields every match after the marker exactly once and in order, each call within its limit and budget', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 40 }),
        glob,
        fc.option(name, { nil: undefined }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        (names, pattern, start, limit, scanNamesMax) => {
          const set = SortedNames.of(names);
          const compiled = pattern === undefined ? undefined : compileGlob(pattern);
          const expected = [...names].sort().filter((n) => (start === undefined || n > start) && (compiled === undefined || compiled.matches(n)));
          const seen: string[] = [];
          let after = start;
          for (let calls = 0; ; calls++) {
            // Every call moves past at least one name, so there are never more calls than names.
            expect(calls).toBeLessThanOrEqual(names.length);
            const matcher = compiled === undefined ? undefined : counting(compiled);
            const page: MetricScanPage = scanMetricNames(set, { matcher, after, limit, scanNamesMax });
            expect(page.names.length).toBeLessThanOrEqual(limit);
            if (matcher !== undefined) expect(matcher.calls).toBeLessThanOrEqual(scanNamesMax);
            // Without a glob every tested name matches: the page or the budget is full.
            if (matcher === undefined && page.nextAfter !== null) expect(page.names.length).toBe(Math.min(limit, scanNamesMax));
            // A short page before the end means the budget ran out.
            if (matcher !== undefined && page.nextAfter !== null && page.names.length < limit) expect(matcher.calls).toBe(scanNamesMax);
            if (page.nextAfter !== null && after !== undefined) expect(page.nextAfter > after).toBe(true);
            seen.push(...page.names);
            if (page.nextAfter === null) break;
            after = page.nextAfter;
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('with a budget above the names, returns the first `limit` matches and the page end only when more follow', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 40 }), glob, fc.integer({ min: 1, max: 6 }), (names, pattern, limit) => {
        const compiled = pattern === undefined ? undefined : compileGlob(pattern);
        const matching = [...names].sort().filter((n) => compiled === undefined || compiled.matches(n));
        const page = scanMetricNames(SortedNames.of(names), { matcher: compiled, after: undefined, limit, scanNamesMax: names.length + 1 });
        expect(page.names).toEqual(matching.slice(0, limit));
        expect(page.nextAfter).toBe(matching.length > limit ? matching[limit - 1] : null);
      }),
      { numRuns: 1000 },
    );
  });

  it('tests only the names in the glob literal prefix range', () => {
    const names = SortedNames.of(['a.1', 'b.1', 'b.2', 'b.3', 'c.1', ...Array.from({ length: 100 }, (_, i) => `z${i}`)]);
    const matcher = counting(compileGlob('b.*'));
    expect(scanMetricNames(names, { matcher, after: undefined, limit: 10, scanNamesMax: 1000 })).toEqual({ names: ['b.1', 'b.2', 'b.3'], nextAfter: null });
    expect(matcher.calls).toBe(3);
    expect(scanMetricNames(names, { matcher, after: 'b.1', limit: 10, scanNamesMax: 1000 }).names).toEqual(['b.2', 'b.3']);
    expect(scanMetricNames(names, { matcher, after: 'a', limit: 1, scanNamesMax: 1000 })).toEqual({ names: ['b.1'], nextAfter: 'b.1' });
  });

  it('stops at the budget with the last tested name, even on an empty page', () => {
    const names = SortedNames.of(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(scanMetricNames(names, { matcher: compileGlob('*b*'), after: undefined, limit: 5, scanNamesMax: 2 })).toEqual({ names: [], nextAfter: 'a2' });
    expect(scanMetricNames(names, { matcher: compileGlob('*b*'), after: 'a2', limit: 5, scanNamesMax: 2 })).toEqual({ names: [], nextAfter: 'a4' });
    // The budget is spent on the last name: the scan still knows the listing ended.
    expect(scanMetricNames(names, { matcher: compileGlob('*b*'), after: 'a3', limit: 5, scanNamesMax: 2 })).toEqual({ names: ['b1'], nextAfter: null });
  });
});
