// Tests collecting listMetrics pages: short pages are followed to the count, and the event loop runs between pages.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRICS_PAGE_MAX } from '../src/core/limits.js';
import { compileGlob } from '../src/model/glob.js';
import { scanMetricNames } from '../src/query/metric-scan.js';
import { SortedNames } from '../src/storage/sorted-names.js';
import { collectMetrics } from '../src/store-metric-pages.js';
import type { ListMetricsOptions, MetricPage, Store } from '../src/store-types.js';

/** A store whose listMetrics scans `names` with a tiny budget, recording each call's options. */
function scanningStore(names: readonly string[], scanNamesMax: number): { store: Store; calls: ListMetricsOptions[] } {
  const set = SortedNames.of(names);
  const calls: ListMetricsOptions[] = [];
  const listMetrics = async (_tenant: string, options: ListMetricsOptions = {}): Promise<MetricPage> => {
    calls.push(options);
    const limit = options.limit ?? 100;
    expect(limit).toBeGreaterThanOrEqual(1);
    expect(limit).toBeLessThanOrEqual(METRICS_PAGE_MAX);
    const page = scanMetricNames(set, { matcher: options.glob === undefined ? undefined : compileGlob(options.glob), after: options.after, limit, scanNamesMax });
    return { metrics: page.names.map((name) => ({ name, unit: null })), nextAfter: page.nextAfter };
  };
  const unused = (): never => {
    throw new Error('not used');
  };
  return { store: { listMetrics, write: unused, writeColumns: unused, query: unused, plan: unused, flush: unused, stats: unused, timestampBounds: unused, close: unused }, calls };
}

describe('collectMetrics', () => {
  it('collects the first `count` matches after the marker across budget-cut pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', '.'), minLength: 1, maxLength: 4 }), { maxLength: 40 }),
        fc.constantFrom(undefined, '*', 'a*', '*b', '?.*'),
        fc.option(fc.constantFrom('a', 'b', 'a.b'), { nil: undefined }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (names, glob, after, count, budget) => {
          const matcher = glob === undefined ? undefined : compileGlob(glob);
          const expected = [...names].sort().filter((n) => (after === undefined || n > after) && (matcher === undefined || matcher.matches(n)));
          const { store } = scanningStore(names, budget);
          const found = await collectMetrics(store, 'acme', { glob, after }, count);
          expect(found.map((m) => m.name)).toEqual(expected.slice(0, count));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('asks for no more than a page, and no more than it still needs', async () => {
    const names = Array.from({ length: 2500 }, (_, i) => `m${String(i).padStart(4, '0')}`);
    const { store, calls } = scanningStore(names, 5000);
    const found = await collectMetrics(store, 'acme', {}, 2100);
    expect(found).toHaveLength(2100);
    expect(calls.map((c) => c.limit)).toEqual([METRICS_PAGE_MAX, METRICS_PAGE_MAX, 100]);
    expect(calls.map((c) => c.after)).toEqual([undefined, 'm0999', 'm1999']);
  });

  it('lets the event loop run between pages', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `m${i}`);
    const { store, calls } = scanningStore(names, 2);
    // Callbacks queued before the collection starts: without a yield between pages they would
    // only run once every page was done.
    const seen: Promise<number>[] = [];
    for (let i = 0; i < 3; i++) seen.push(new Promise((resolve) => setImmediate(() => resolve(calls.length))));
    const found = await collectMetrics(store, 'acme', { glob: 'm*' }, 100);
    expect(found).toHaveLength(10);
    expect(calls).toHaveLength(5);
    expect(await Promise.all(seen)).toEqual([1, 1, 1]);
  });
});
