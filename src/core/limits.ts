// Owns every limit of the engine as a named constant; relations between them are asserted at load.
import { assert } from './assert.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time.js';

/** Most points a single query may return (spec section 8). */
export const QUERY_POINTS_MAX = 1440;
/** Most points in one write batch. */
export const INGEST_BATCH_POINTS_MAX = 100_000;
/** Longest metric name, in characters. */
export const METRIC_NAME_LENGTH_MAX = 255;
/** Longest tenant id, in characters. */
export const TENANT_LENGTH_MAX = 128;
/** Longest unit label, in characters. */
export const UNIT_LENGTH_MAX = 64;
/** Longest string value, in characters. */
export const STRING_VALUE_LENGTH_MAX = 1024;
/** How far ahead of the clock a timestamp may be (Blueflood's AFTER_CURRENT_COLLECTIONTIME_MS). */
export const INGEST_FUTURE_SKEW_MS = 10 * MINUTE_MS;
/** Most points the in-memory head holds before writes are refused until sealing catches up. */
export const HEAD_POINTS_MAX = 16_000_000;
/** Head size at which the oldest windows are sealed early, whatever the clock says. */
export const HEAD_POINTS_SEAL_EARLY = 8_000_000;
/**
 * Most head points one synchronous turn of a seal merges, encodes and writes before the event loop
 * gets a turn (a series is never split, so one very long series makes a longer turn). Measured on
 * a 2-core machine (bench/seal-stall.ts, 2 M points over 10 k series): about 8 ms a turn, where
 * sealing the window in one go stalled the loop for 300 ms.
 */
export const SEAL_STEP_POINTS = 100_000;
/**
 * Most series one turn of a seal covers: each costs a chunk lookup and an upsert (about 10 µs)
 * whatever its length, so a window of many short series is cut by this rather than by points.
 * Measured (2 M points over 100 k series): 8 to 20 ms a turn, where one go stalled for 1.3 s.
 */
export const SEAL_STEP_SERIES_MAX = 1_000;
/** Most rollup tasks waiting for a worker (piscina maxQueue). */
export const ROLLUP_QUEUE_MAX = 64;
/** Most rollup workers. */
export const ROLLUP_WORKERS_MAX = 16;
/** Most items in one page of a list (spec section 8). */
export const LIST_ITEMS_MAX = 100;
/** Most metrics one listMetrics page returns. */
export const METRICS_PAGE_MAX = 1_000;
/** Metrics per listMetrics page when no limit is given. */
export const METRICS_PAGE_DEFAULT = 100;
/**
 * Most metric names one listMetrics call tests against its glob. The call then returns what it
 * found so far and a marker to continue from, so a search over a big tenant runs as many short
 * steps instead of one that stalls the event loop. Sized for the worst glob: long runs of `?`
 * against 255-character names cost about 5 µs a name on a 2-core machine, so about 5 ms a call;
 * ordinary globs and names cost well under 1 µs a name.
 */
export const METRIC_SEARCH_SCAN_NAMES_MAX = 1_024;
/** Most series one rollup task covers, so one task's message stays small. */
export const ROLLUP_TASK_SERIES_MAX = 2_000;
/** Default grace after a window closes before it is sealed and rolled up. */
export const DEFAULT_GRACE_MS = 5 * MINUTE_MS;
/** Longest grace accepted. */
export const GRACE_MS_MAX = DAY_MS;
/** How often the background loop looks for work to seal, roll up and sweep. */
export const MAINTENANCE_INTERVAL_MS = 1_000;
/** How long a window must go without writes before it is sealed early when it is already due. */
export const SEAL_QUIET_MS = 2_000;
/** How often a healthy store checks that its write-ahead log directory still takes writes. */
export const WAL_PROBE_INTERVAL_MS = 30_000;
/** How often a store whose WAL appends fail checks whether the directory takes writes again. */
export const WAL_PROBE_RETRY_MS = MAINTENANCE_INTERVAL_MS;
/** Most health reasons one /healthz answer lists; the last one then says how many more there are. */
export const HEALTH_REASONS_MAX = 100;
/**
 * Most rounds an opener of a data directory makes (create, read, take over a stale lock) before
 * it gives up with STORE_LOCKED. Rounds only repeat while another process is taking over the
 * same stale lock (a few system calls) or the lock changes under it.
 */
export const DIR_LOCK_ATTEMPTS_MAX = 1_000;
/** How long an opener sleeps before looking again while another process takes over a stale lock. */
export const DIR_LOCK_RETRY_WAIT_MS = 1;
/**
 * How many crashed takeovers in a row an opener clears: each crash leaves a claim file naming a
 * dead process, which the next opener takes over like a stale lock (one level deeper).
 */
export const DIR_LOCK_CLAIM_DEPTH_MAX = 4;

assert(HEAD_POINTS_SEAL_EARLY < HEAD_POINTS_MAX, 'early seal threshold must be below the head cap');
assert(INGEST_BATCH_POINTS_MAX <= HEAD_POINTS_MAX - HEAD_POINTS_SEAL_EARLY, 'a full batch must fit above the early-seal line');
assert(SEAL_STEP_POINTS < HEAD_POINTS_SEAL_EARLY / 10, 'an early seal must run as many steps, not one long one');
assert(SEAL_STEP_SERIES_MAX >= 1 && SEAL_STEP_POINTS >= INGEST_BATCH_POINTS_MAX, 'a step must make progress at least as fast as one batch arrives');
assert(METRIC_SEARCH_SCAN_NAMES_MAX > METRICS_PAGE_MAX, 'a scan without a glob must fill the largest page and see the name after it');
assert(GRACE_MS_MAX <= DAY_MS && DEFAULT_GRACE_MS < HOUR_MS, 'grace must stay well under the retention of FULL');
assert(WAL_PROBE_RETRY_MS <= WAL_PROBE_INTERVAL_MS, 'a failing log directory is probed at least as often as a healthy one');
assert(DIR_LOCK_ATTEMPTS_MAX * DIR_LOCK_RETRY_WAIT_MS <= 5_000, 'an opener waiting on a takeover gives up within seconds');

// --- ClickHouse backend (src/clickhouse/) ---
/** How long one statement to a ClickHouse shard may take before the shard counts as unavailable. */
export const CLICKHOUSE_REQUEST_TIMEOUT_MS = 30_000;
/** Most shards a ClickHouse backend drives (each is one HTTP client with its own sockets). */
export const CLICKHOUSE_SHARDS_MAX = 64;
/** Rows a day finalization reads from one shard in one page (about 30 bytes each in RowBinary); the event loop gets a turn between pages. */
export const CLICKHOUSE_FINALIZE_STEP_POINTS = 20_000;
/** How often the maintenance loop pings every shard, so health() tells a down shard without waiting for a request. */
export const CLICKHOUSE_PING_INTERVAL_MS = 5_000;
/**
 * Most series rows one listMetrics call reads: twice the scan budget and one, so the budget is met
 * while names still carry a row or two each (one per unit change and process, until ClickHouse merges them).
 */
export const CLICKHOUSE_METRIC_ROWS_MAX = 2 * METRIC_SEARCH_SCAN_NAMES_MAX + 1;
/** Versions one store hands out per clock millisecond before it borrows from the next one (the newest series unit and shard state win by version). */
export const CLICKHOUSE_VERSIONS_PER_MS = 1_024;
/** How often the maintenance loop looks for expired partitions on every shard when no day was finalized meanwhile. */
export const CLICKHOUSE_SWEEP_INTERVAL_MS = 60_000;

// --- ClickHouse plumbing (src/clickhouse/shard-client.ts, sql-text.ts) ---
/**
 * Most bytes one ClickHouse SELECT answer (RowBinary or JSONEachRow) may hold. The whole answer is
 * held in memory before it is decoded, so the store reads in pages that stay well under this (a
 * page of CLICKHOUSE_FINALIZE_STEP_POINTS or CLICKHOUSE_READ_PAGE_POINTS rows fits even when every row holds the longest string); an answer over it fails
 * with STORE_BACKEND_FAILED instead of growing the heap.
 */
export const CLICKHOUSE_RESPONSE_BYTES_MAX = 64 * 1024 * 1024;
/**
 * How long an idle keep-alive socket to a shard is kept. ClickHouse 18.16 closes idle HTTP
 * connections after its keep_alive_timeout of 3 s; a request written to a socket the server is
 * closing fails with ECONNRESET, so the client must drop its idle sockets well before that.
 */
export const CLICKHOUSE_IDLE_SOCKET_TTL_MS = 2_000;
/** The server's keep_alive_timeout (ClickHouse 18.16 default, also what the test cluster sets). */
export const CLICKHOUSE_SERVER_KEEP_ALIVE_MS = 3_000;
/** Most sockets one ShardClient opens to its shard at a time (further requests queue in the agent). */
export const CLICKHOUSE_SOCKETS_PER_SHARD_MAX = 10;
/** Longest ClickHouse error text kept in a StrataError's message and details (18.16 echoes query text into errors). */
export const CLICKHOUSE_ERROR_TEXT_CHARS_MAX = 1_000;
/** Longest ClickHouse database or table name Strata accepts (it becomes a directory name on the server). */
export const CLICKHOUSE_IDENTIFIER_LENGTH_MAX = 128;

assert(CLICKHOUSE_IDLE_SOCKET_TTL_MS <= CLICKHOUSE_SERVER_KEEP_ALIVE_MS - 1_000, 'idle sockets must be dropped at least a second before the server closes them');
/**
 * How long after a UTC day closes to writes (its end older than the FULL retention) the ClickHouse
 * backend waits before finalizing it: longer than a write may be in flight (the request timeout)
 * plus the clock skew tolerated between Strata processes writing one database.
 */
export const CLICKHOUSE_FINALIZE_GRACE_MS = 10 * MINUTE_MS;
assert(CLICKHOUSE_FINALIZE_GRACE_MS > CLICKHOUSE_REQUEST_TIMEOUT_MS, 'a write still in flight must never race the finalization of its day');
/** Rows one raw read of a series asks a shard for at once; a longer range is read in pages from a timestamp keyset. */
export const CLICKHOUSE_READ_PAGE_POINTS = 20_000;
/** The most bytes one raw point takes in a RowBinary answer: series, ts, kind, value, and a string of STRING_VALUE_LENGTH_MAX UTF-16 units (3 UTF-8 bytes each at most) with its length. */
const CLICKHOUSE_POINT_ROW_BYTES_MAX = 8 + 8 + 1 + 8 + 2 + 3 * STRING_VALUE_LENGTH_MAX;
assert(
  Math.max(CLICKHOUSE_FINALIZE_STEP_POINTS, CLICKHOUSE_READ_PAGE_POINTS) * CLICKHOUSE_POINT_ROW_BYTES_MAX <= CLICKHOUSE_RESPONSE_BYTES_MAX,
  'a page of raw points must fit one answer even when every point is the longest string',
);
/** Bytes of rollup rows a day finalization gathers before it inserts them: a few large parts a day, not five small ones a page. */
export const CLICKHOUSE_ROLLUP_INSERT_BYTES = 16 * 1024 * 1024;
