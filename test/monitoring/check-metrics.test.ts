// Tests listing a check's metrics when the engine's listMetrics pages are cut short by its scan budget.
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/model/glob.js';
import type { ChangelogStore } from '../../src/monitoring/changelog-store.js';
import { checkMetricSeries, listCheckMetrics } from '../../src/monitoring/check-metrics.js';
import { scanMetricNames } from '../../src/query/metric-scan.js';
import { SortedNames } from '../../src/storage/sorted-names.js';
import type { ListMetricsOptions, Store } from '../../src/store-types.js';

/** An engine whose listMetrics tests at most `scanNamesMax` names a call, as the real one does with its budget. */
function engineOf(series: readonly string[], scanNamesMax: number): Store {
  const names = SortedNames.of(series);
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    listMetrics: async (_tenant: string, options: ListMetricsOptions = {}) => {
      const page = scanMetricNames(names, { matcher: options.glob === undefined ? undefined : compileGlob(options.glob), after: options.after, limit: options.limit ?? 100, scanNamesMax });
      return { metrics: page.names.map((name) => ({ name, unit: 'ms' })), nextAfter: page.nextAfter };
    },
    write: unused,
    writeColumns: unused,
    query: unused,
    plan: unused,
    flush: unused,
    stats: unused,
    timestampBounds: unused,
    close: unused,
  };
}

const METRICS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
/** The check's metrics among other checks' and entities' series that sort in between. */
const SERIES = [...METRICS.map((m) => checkMetricSeries('en1', 'ch1', m)), 'en1.ch0.x', 'en1.ch10.y', 'en1.ch1', 'en0.ch1.z', 'en2.ch1.a'];
/** Every metric declared, so listing runs no type-inference queries. */
const TYPES = { metricTypes: () => new Map(METRICS.map((m) => [m, 'l'])) } as unknown as ChangelogStore;
const SCOPE = { tenant: 'acme', entityId: 'en1', checkId: 'ch1', nowMs: 0 };

describe('listCheckMetrics over scan-limited engine pages', () => {
  it.each([1, 2, 3, 100])('fills each page and finds the next marker with a scan budget of %i', async (budget) => {
    const engine = engineOf(SERIES, budget);
    const listed: string[] = [];
    let marker: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listCheckMetrics(engine, TYPES, SCOPE, { limit: 3, ...(marker !== undefined ? { marker } : {}) });
      expect(page.values.length).toBe(page.nextMarker === null ? METRICS.length - listed.length : 3);
      listed.push(...page.values.map((v) => v.name));
      if (page.nextMarker === null) break;
      expect(page.nextMarker).toBe(METRICS[listed.length]);
      marker = page.nextMarker;
    }
    expect(listed).toEqual(METRICS);
  });
});
