// Owns following listMetrics pages: collecting matches across scan-limited pages, yielding to the event loop between them.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { METRICS_PAGE_MAX } from './core/limits.js';
import type { MetricInfo, Store } from './store-types.js';

/** Where a collection starts. */
export interface CollectMetricsOptions {
  /** As ListMetricsOptions.glob; undefined collects every name. */
  readonly glob?: string;
  /** As ListMetricsOptions.after: the first name collected sorts after it. */
  readonly after?: string;
}

/**
 * The first `count` metrics of `tenant` matching the glob after the marker, in order (fewer when
 * fewer match). A listMetrics page may stop short at its scan budget, so this follows `nextAfter`
 * until it has `count` or the listing ends, and lets the event loop run between pages: a search
 * over a big tenant then delays other requests by one page's work, not by the whole search.
 */
export async function collectMetrics(store: Store, tenant: string, options: CollectMetricsOptions, count: number): Promise<MetricInfo[]> {
  const found: MetricInfo[] = [];
  let after = options.after;
  while (found.length < count) {
    const page = await store.listMetrics(tenant, { glob: options.glob, after, limit: Math.min(METRICS_PAGE_MAX, count - found.length) });
    found.push(...page.metrics);
    if (page.nextAfter === null) break;
    after = page.nextAfter;
    await nextTurn();
  }
  return found;
}
