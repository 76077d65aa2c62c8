// Owns metric search: one page of the store's listMetrics for a glob, capped at SEARCH_RESULTS_MAX names.
import type { MetricInfo, Store } from '../../../store-types.js';
import { httpError } from '../../http-errors.js';
import { SEARCH_RESULTS_MAX } from '../../http-limits.js';

/**
 * Every metric of `tenant` matching `glob` (`*`, `?`; its length is the route schema's rule), sorted. More than SEARCH_RESULTS_MAX
 * matches is SEARCH_RESULTS_TOO_MANY rather than a silently cut list (Blueflood's unbounded search
 * took 20 s on big accounts, and Blueflood's array answer has no room for a next-page marker).
 */
export function searchMetrics(store: Store, tenant: string, glob: string): readonly MetricInfo[] {
  const page = store.listMetrics(tenant, { glob, limit: SEARCH_RESULTS_MAX });
  if (page.nextAfter !== null) {
    throw httpError('SEARCH_RESULTS_TOO_MANY', `More than ${SEARCH_RESULTS_MAX} metrics match; narrow the glob.`, { limit: SEARCH_RESULTS_MAX });
  }
  return page.metrics;
}
