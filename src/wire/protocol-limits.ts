// Owns every limit of the protocol decoders (Prometheus remote write and read, OTLP, Graphite plaintext) as a named constant.
import { assert } from '../core/assert.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX } from '../core/limits.js';

/** Largest decompressed body (snappy's declared length is checked before any byte is decompressed). */
export const PROTOCOL_DECODED_BYTES_MAX = 64 * 1024 * 1024;
/** Most labels (or attributes) one series may carry, its metric name not counted. */
export const SERIES_LABELS_MAX = 64;
/** Rejection reasons a response spells out; the rest are only counted. */
export const PROTOCOL_REJECTION_MESSAGES_MAX = 10;
/** Deepest nesting of messages (or OTLP AnyValue arrays and key-value lists) a decoder follows. */
export const PROTOBUF_DEPTH_MAX = 16;

/** Series one protocol decoder remembers the naming of across requests (remote write label sets, OTLP data point attributes); past it its cache starts over. */
export const SERIES_CACHE_ENTRIES_MAX = 100_000;
/** Estimated bytes one decoder's series cache may hold (keys, names, bookkeeping); past it the cache starts over. */
export const SERIES_CACHE_BYTES_MAX = 32 * 1024 * 1024;
/** Longest key (a series' label bytes, a data point's attribute bytes) the series cache keeps; a longer one is named without it. */
export const SERIES_CACHE_KEY_BYTES_MAX = 4_096;
/** Bucket (`le`) or quantile series names one cached OTLP series keeps; others are formed per point. */
export const SERIES_CACHE_EXTRA_NAMES_MAX = 64;
/** Bits of the filter that marks keys seen once (a key is cached when seen again); a power of two. */
export const SERIES_CACHE_SEEN_BITS = 2 ** 20;

/** Most queries one Prometheus remote read request may hold. */
export const PROM_READ_QUERIES_MAX = 64;
/** Most series one remote read request may answer with. */
export const PROM_READ_SERIES_MAX = 10_000;
/** Most samples one remote read request may answer with (Prometheus' own remote_read_sample_limit is 5e7). */
export const PROM_READ_SAMPLES_MAX = 5_000_000;
/** Most metric names one remote read request may test against its matchers. */
export const PROM_READ_SCAN_NAMES_MAX = 1_000_000;

/** Longest Graphite plaintext line in bytes, newline excluded. */
export const GRAPHITE_LINE_BYTES_MAX = 4_096;
/** Most open connections one Graphite listener serves; more are closed on arrival. */
export const GRAPHITE_CONNECTIONS_MAX = 256;
/** Most points a Graphite connection gathers before it writes them (and stops reading until they are durable). */
export const GRAPHITE_BATCH_POINTS_MAX = 10_000;
/** A Graphite connection silent this long is closed. */
export const GRAPHITE_IDLE_MS = 5 * 60_000;
/** Wait before a Graphite connection retries a batch the store refused for now (STORE_NOT_DURABLE, INGEST_HEAD_FULL); it reads nothing meanwhile. */
export const GRAPHITE_RETRY_DELAY_MS = 1_000;
/** Shortest interval between two warn lines about one Graphite connection's dropped lines (the protocol has no answer channel, so they are counted and logged). */
export const GRAPHITE_WARN_INTERVAL_MS = 10_000;

assert(PROTOCOL_DECODED_BYTES_MAX >= 16 * 1024 * 1024, 'a decompressed body fits at least the largest plain ingest body');
assert(SERIES_LABELS_MAX * 4 <= METRIC_NAME_LENGTH_MAX * 2, 'the label count limit is reachable within the metric name length');
assert(SERIES_CACHE_ENTRIES_MAX >= INGEST_BATCH_POINTS_MAX, 'the series cache holds every distinct series of one full batch');
assert(SERIES_CACHE_BYTES_MAX >= SERIES_CACHE_ENTRIES_MAX * 256, 'the byte budget holds a full cache of typical series (256 bytes of key and names each)');
assert(SERIES_CACHE_KEY_BYTES_MAX >= 4 * METRIC_NAME_LENGTH_MAX, 'a key fits the labels of any series whose name the store accepts, with their protobuf framing');
assert(Number.isInteger(Math.log2(SERIES_CACHE_SEEN_BITS)) && SERIES_CACHE_SEEN_BITS / 4 >= SERIES_CACHE_ENTRIES_MAX, 'the seen filter is a power of two that marks a full cache of keys before it starts over (at a quarter full)');
assert(SERIES_CACHE_EXTRA_NAMES_MAX >= 16, "a cached histogram keeps every bucket name of OpenTelemetry's default layout (15 bounds and +Inf)");
assert(SERIES_CACHE_EXTRA_NAMES_MAX * METRIC_NAME_LENGTH_MAX * 64 <= SERIES_CACHE_BYTES_MAX, 'one series with every extra name held takes a small share of the byte budget');
assert(PROM_READ_SAMPLES_MAX >= INGEST_BATCH_POINTS_MAX, 'a read answers at least what one write may send');
assert(PROM_READ_SCAN_NAMES_MAX >= PROM_READ_SERIES_MAX, 'a read scans at least as many names as it may answer');
assert(GRAPHITE_BATCH_POINTS_MAX <= INGEST_BATCH_POINTS_MAX, 'a Graphite batch is one store write');
assert(GRAPHITE_LINE_BYTES_MAX > METRIC_NAME_LENGTH_MAX, 'a line holds the longest metric name, a value and a time');
assert(GRAPHITE_RETRY_DELAY_MS > 0 && GRAPHITE_RETRY_DELAY_MS < GRAPHITE_IDLE_MS, 'a Graphite retry comes before the connection would count as idle');
assert(GRAPHITE_WARN_INTERVAL_MS > 0 && GRAPHITE_WARN_INTERVAL_MS < GRAPHITE_IDLE_MS, 'a connection reports its dropped lines before it could be closed as idle');
