// Owns metric search: the store's listMetrics pages for a glob, collected up to SEARCH_RESULTS_MAX names.
import { collectMetrics } from '../../../store-metric-pages.js';
import type { MetricInfo, Store } from '../../../store-types.js';
import { httpError } from '../../http-errors.js';
import { SEARCH_RESULTS_MAX } from '../../http-limits.js';

/**
 * Every metric of `tenant` matching `glob` (`*`, `?`; its length is the route schema's rule), sorted. More than SEARCH_RESULTS_MAX
 * matches is SEARCH_RESULTS_TOO_MANY rather than a silently cut list (Blueflood's unbounded search
 * took 20 s on big accounts, and Blueflood's array answer has no room for a next-page marker).
 * The store scans a bounded number of names per page; between pages the event loop serves other
 * requests, so a search over a big tenant takes longer but never stalls the server.
 */
export async function searchMetrics(store: Store, tenant: string, glob: string): Promise<readonly MetricInfo[]> {
  // One more than may be returned: finding it is what tells "too many" from "exactly the cap".
  const found = await collectMetrics(store, tenant, { glob }, SEARCH_RESULTS_MAX + 1);
  if (found.length > SEARCH_RESULTS_MAX) {
    throw httpError('SEARCH_RESULTS_TOO_MANY', `More than ${SEARCH_RESULTS_MAX} metrics match; narrow the glob.`, { limit: SEARCH_RESULTS_MAX });
  }
  return found;
}
