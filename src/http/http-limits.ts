// Owns every limit of the HTTP server as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX, METRICS_PAGE_MAX } from '../core/limits.js';
import type { WorkKind } from './route-rules.js';

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
/**
 * In-flight ingest body bytes, all tenants. Bodies are held from arrival to answer, so this bounds
 * their memory: about 30 batches of 20,000 JSON points (2 MB each). Measured with the overload
 * bench (200 clients, 45 s): 32 MiB accepted 1.03 M points/s at 617 MiB peak RSS, 64 MiB 1.22 M at
 * 673 MiB, 128 MiB 1.50 M at 757 MiB (too near the 768 MiB target, with the head's own growth).
 */
export const INGEST_BODY_BYTES_DEFAULT = 64 * 1024 * 1024;
/** In-flight query body bytes, all tenants (multi-metric queries; plots have no body). */
export const QUERY_BODY_BYTES_DEFAULT = 8 * 1024 * 1024;
/**
 * Share of a kind's in-flight budgets one tenant gets when its own budgets are not configured: one
 * tenant alone keeps enough in flight to use the server, and cannot shut the others out.
 */
export const ADMISSION_TENANT_SHARE_DEFAULT = 0.5;
/**
 * Kinds of work that start at most one item per turn of the event loop (see TurnPacer in
 * admission-pacer.ts): an ingest batch costs 5 to 40 ms of decode and WAL append, a plot about 1 ms.
 */
export const PACED_KINDS: readonly WorkKind[] = ['ingest'];
/**
 * Turns of the event loop from one paced start to the next. Each turn accepts one connection, so a
 * free turn between two batches doubles the accept rate under a flood; measured with the overload
 * bench (200 ingest clients): 1 turn answered half the 503s after 2.4 s (waiting to be accepted),
 * 2 turns after 94 ms, at 1.22 M accepted points/s against 0.93; 3 turns gained nothing more.
 */
export const TURNS_PER_PACED_START = 2;
/** Largest concurrency or queue size configurable, so a typo cannot unbound a queue. */
export const ADMISSION_SIZE_MAX = 100_000;
/** Largest in-flight body byte budget configurable (64 GiB), so a typo cannot unbound memory. */
export const ADMISSION_BODY_BYTES_LIMIT_MAX = 64 * 1024 * 1024 * 1024;
/** Longest URL path parameter: a metric name, every character percent-encoded as UTF-8 (up to 3 x 3 bytes). */
export const PATH_PARAM_LENGTH_MAX = METRIC_NAME_LENGTH_MAX * 9;
/** Seconds a client is told to wait (Retry-After) after a 503. */
export const RETRY_AFTER_SECONDS = 1;
/** Spare request-body buffers kept for the next ingest bodies. */
export const SPARE_BODIES_MAX = 8;
/** Bytes of spare body buffers kept at most (a burst of huge bodies is not held on to). */
export const SPARE_BODY_BYTES_MAX = 32 * 1024 * 1024;

/** Most files the console's assets folder may hold (a build writes a script, a style sheet and their maps). */
export const CONSOLE_ASSET_FILES_MAX = 64;
/** Most bytes the whole console build may hold in memory (it is served from memory). */
export const CONSOLE_BYTES_MAX = 32 * 1024 * 1024;

assert(HTTP_BODY_BYTES_MAX >= INGEST_BATCH_POINTS_MAX * 100, 'the body limit must fit a full batch of compact JSON points');
assert(IDENTITY_BODY_BYTES_MAX < HTTP_BODY_BYTES_MAX && VIEWS_BODY_BYTES_MAX < HTTP_BODY_BYTES_MAX, 'route body limits stay under the server limit');
assert(SPARE_BODY_BYTES_MAX >= HTTP_BODY_BYTES_MAX, 'a body of the largest allowed size must be reusable');
assert(INGEST_BODY_BYTES_DEFAULT >= HTTP_BODY_BYTES_MAX && QUERY_BODY_BYTES_DEFAULT >= VIEWS_BODY_BYTES_MAX, 'a largest body fits the default byte budget of its kind');
assert(ADMISSION_TENANT_SHARE_DEFAULT > 0 && ADMISSION_TENANT_SHARE_DEFAULT <= 1, 'a tenant share is a fraction of its kind');
