// Owns the limits of the remote read executor that are not wire limits: regular expression matchers and the slices reads are cut into.
import { assert } from '../core/assert.js';
import { QUERY_POINTS_MAX } from '../core/limits.js';
import { FULL_ASSUMED_INTERVAL_MS } from '../model/resolution.js';

/** Most repetitions (`*`, `+`, `?`, `{n,m}`) a matcher's regular expression may hold (safe-regex2's own default). */
export const PROM_MATCHER_REPETITIONS_MAX = 25;
/**
 * Longest FULL range read in one store query: the planner counts one FULL point per 30 s and
 * refuses more than QUERY_POINTS_MAX, so 12 h. Every raw point in the slice is returned, however
 * many there are.
 */
export const FULL_SLICE_MS = QUERY_POINTS_MAX * FULL_ASSUMED_INTERVAL_MS;

assert(PROM_MATCHER_REPETITIONS_MAX >= 1, 'a matcher may repeat at least once');
assert(FULL_SLICE_MS > 0 && FULL_SLICE_MS % FULL_ASSUMED_INTERVAL_MS === 0, 'a FULL slice is a whole number of assumed intervals');
