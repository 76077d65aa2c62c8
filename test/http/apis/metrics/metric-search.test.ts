// Tests metric search over scan-limited store pages: full results, the 413 past SEARCH_RESULTS_MAX, and /healthz answered while a long search runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { METRIC_SEARCH_SCAN_NAMES_MAX } from '../../../../src/core/limits.js';
import { searchMetrics } from '../../../../src/http/apis/metrics/metric-search.js';
import { SEARCH_RESULTS_MAX } from '../../../../src/http/http-limits.js';
import { openStore } from '../../../../src/store.js';
import type { Store } from '../../../../src/store-types.js';
import { call, startHarness, type Harness } from '../../harness.js';

const AT_MS = Date.UTC(2026, 0, 1, 12);
/** Every 4th name ends in `.few`: SEARCH_RESULTS_MAX of them, spread over several scan budgets. */
const NAMES = Array.from({ length: 4 * SEARCH_RESULTS_MAX }, (_, i) => `host.${String(i).padStart(6, '0')}.${i % 4 === 0 ? 'few' : 'cpu'}`);
const FEW = NAMES.filter((n) => n.endsWith('.few'));
/** One more name for `*.f*`, past the rest: that glob matches one more than a search may return. */
const EXTRA = 'host.999999.fun';
/** Names that sort after the rest and match no search here: a search scans through them in many pages. */
const FILLER = Array.from({ length: 16 * METRIC_SEARCH_SCAN_NAMES_MAX }, (_, i) => `zz.${String(i).padStart(6, '0')}`);
/** How long each listMetrics call blocks the event loop, standing in for an expensive page. */
const PAGE_BLOCK_MS = 25;

/** listMetrics calls through slowPages so far. */
let slowCalls = 0;

/** The store with every listMetrics call holding the event loop for PAGE_BLOCK_MS. */
function slowPages(store: Store): Store {
  return {
    write: (points, options) => store.write(points, options),
    writeColumns: (columns, options) => store.writeColumns(columns, options),
    query: (request) => store.query(request),
    plan: (request) => store.plan(request),
    listMetrics: (tenant, options) => {
      slowCalls++;
      const until = performance.now() + PAGE_BLOCK_MS;
      while (performance.now() < until);
      return store.listMetrics(tenant, options);
    },
    flush: () => store.flush(),
    stats: () => store.stats(),
    timestampBounds: () => store.timestampBounds(),
    close: () => store.close(),
  };
}

let h: Harness;
let store: Store;
let token: string;
beforeAll(async () => {
  const clock = new ManualClock(AT_MS);
  h = await startHarness({
    clock,
    makeStore: async (dir) => {
      store = await openStore({ dir, clock, workers: 0, background: false });
      await store.write([...NAMES, EXTRA, ...FILLER].map((metric) => ({ tenant: 't1', metric, timestamp: AT_MS - 60_000, value: 1 })));
      return slowPages(store);
    },
  });
  token = await h.token('alice');
});
afterAll(async () => h.close());

describe('searchMetrics over scan-limited pages', () => {
  it('returns every match, exactly SEARCH_RESULTS_MAX, although store pages are cut short by the scan budget', async () => {
    const first = await store.listMetrics('t1', { glob: '*.few', limit: SEARCH_RESULTS_MAX });
    expect(first.metrics.length).toBe(METRIC_SEARCH_SCAN_NAMES_MAX / 4);
    expect(first.nextAfter).not.toBeNull();
    expect(FEW).toHaveLength(SEARCH_RESULTS_MAX);
    expect((await searchMetrics(store, 't1', '*.few')).map((m) => m.name)).toEqual(FEW);
    expect((await searchMetrics(store, 't1', '*0.few')).map((m) => m.name)).toEqual(FEW.filter((n) => n.endsWith('0.few')));
  });

  it('refuses one match more than SEARCH_RESULTS_MAX, spread over short pages, as SEARCH_RESULTS_TOO_MANY', async () => {
    await expect(searchMetrics(store, 't1', '*.f*')).rejects.toMatchObject({ code: 'SEARCH_RESULTS_TOO_MANY' });
    const response = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*.f*', { token });
    expect(response.status).toBe(413);
  });
});

describe('GET metrics/search while it runs', () => {
  it('answers the full list over HTTP, and /healthz before the search finishes', async () => {
    const done: string[] = [];
    const before = slowCalls;
    const search = call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*.few', { token }).then((r) => (done.push('search'), r));
    // Wait until the search has listed its first page, then ask for health: without a yield
    // between pages the rest of the search would run before /healthz is even read.
    while (slowCalls === before) await new Promise((resolve) => setImmediate(resolve));
    const health = call(h, 'GET', '/healthz').then((r) => (done.push('healthz'), r));
    const [found, healthz] = await Promise.all([search, health]);
    expect(healthz.status).toBe(200);
    expect(found.status).toBe(200);
    expect((found.json as { metric: string }[]).map((m) => m.metric)).toEqual(FEW);
    expect(done).toEqual(['healthz', 'search']);
  });
});
