// Owns every limit of the HTTP server as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX, METRICS_PAGE_MAX } from '../core/limits.js';

/** Largest request body: a full 100,000-point JSON batch (~120 bytes a point) fits. */
export const HTTP_BODY_BYTES_MAX = 16 * 1024 * 1024;
/** Smallest body limit an operator may configure: below it not even one metric fits. */
export const HTTP_BODY_BYTES_MIN = 1024;
/** Largest identity request body: credentials are tiny; a big body is an attack or a mistake. */
export const IDENTITY_BODY_BYTES_MAX = 64 * 1024;
/** Largest body of a multi-metric query (a JSON array of at most 100 metric names). */
export const VIEWS_BODY_BYTES_MAX = 128 * 1024;
/** Most metric names in one multi-metric query (Blueflood's MAX_METRICS_PER_BATCH_QUERY). */
export const VIEWS_METRICS_MAX = 100;
/** Most metric names one search returns (one page of listMetrics); more is an error asking for a narrower glob. */
export const SEARCH_RESULTS_MAX = METRICS_PAGE_MAX;
/** Longest search glob, in characters. */
export const SEARCH_GLOB_LENGTH_MAX = 1024;
/** Ingest requests running at once (each awaits a WAL commit; a few overlap the fsync). */
export const INGEST_CONCURRENCY_DEFAULT = 4;
/** Ingest requests waiting for a slot before new ones get 503. */
export const INGEST_QUEUE_MAX_DEFAULT = 64;
/** Query requests running at once. */
export const QUERY_CONCURRENCY_DEFAULT = 8;
/** Query requests waiting for a slot before new ones get 503. */
export const QUERY_QUEUE_MAX_DEFAULT = 256;
/** Largest concurrency or queue size configurable, so a typo cannot unbound a queue. */
export const ADMISSION_SIZE_MAX = 100_000;
/** Longest URL path parameter: a metric name, every character percent-encoded as UTF-8 (up to 3 x 3 bytes). */
export const PATH_PARAM_LENGTH_MAX = METRIC_NAME_LENGTH_MAX * 9;
/** Seconds a client is told to wait (Retry-After) after a 503. */
export const RETRY_AFTER_SECONDS = 1;
/** Spare request-body buffers kept for the next ingest bodies. */
export const SPARE_BODIES_MAX = 8;
/** Bytes of spare body buffers kept at most (a burst of huge bodies is not held on to). */
export const SPARE_BODY_BYTES_MAX = 32 * 1024 * 1024;

assert(HTTP_BODY_BYTES_MAX >= INGEST_BATCH_POINTS_MAX * 100, 'the body limit must fit a full batch of compact JSON points');
assert(IDENTITY_BODY_BYTES_MAX < HTTP_BODY_BYTES_MAX && VIEWS_BODY_BYTES_MAX < HTTP_BODY_BYTES_MAX, 'route body limits stay under the server limit');
assert(SPARE_BODY_BYTES_MAX >= HTTP_BODY_BYTES_MAX, 'a body of the largest allowed size must be reusable');
