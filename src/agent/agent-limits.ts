// Owns every limit and timer of the agent protocol, the agent endpoint and the agent as named constants; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { METRIC_NAME_LENGTH_MAX } from '../core/limits.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../core/time.js';
import { MONITORING_AGENT_CONNECTIONS_MAX } from '../monitoring/monitoring-limits.js';

/** Longest protocol line (one JSON message) either side reads; a longer line is AGENT_LINE_TOO_LONG and closes the connection. */
export const AGENT_LINE_BYTES_MAX = 1024 * 1024;
/** Longest protocol line the endpoint reads before a connection's handshake.hello succeeded (a hello is a few hundred bytes); it rises to AGENT_LINE_BYTES_MAX after, so unauthenticated connections cannot make the endpoint buffer much. */
export const AGENT_HELLO_LINE_BYTES_MAX = 16 * 1024;
/** Most bytes a peer may leave unread in our write buffer before the connection is closed (AGENT_PEER_TOO_SLOW). */
export const AGENT_WRITE_BUFFER_BYTES_MAX = 4 * 1024 * 1024;
/** Most requests one side may have waiting for responses on one connection. */
export const AGENT_PENDING_REQUESTS_MAX = 64;
/** Invalid messages in a row after which a connection is closed (each one is answered with a 400 first). */
export const AGENT_INVALID_MESSAGES_MAX = 16;
/** How long a request waits for its response (the reference's heartbeat response timeout is 10 s). */
export const AGENT_REQUEST_TIMEOUT_MS = 10 * SECOND_MS;
/** How long a new connection has to finish its TLS handshake. */
export const AGENT_TLS_HANDSHAKE_TIMEOUT_MS = 10 * SECOND_MS;
/** How long a TLS connection has to complete handshake.hello (the reference's handshake timeout is 30 s). */
export const AGENT_HELLO_TIMEOUT_MS = 30 * SECOND_MS;
/** Heartbeat interval the endpoint tells agents (handshake result heartbeat_interval). */
export const AGENT_HEARTBEAT_INTERVAL_MS = 30 * SECOND_MS;
/** Shortest heartbeat interval an endpoint may be configured with (tests use short ones). */
export const AGENT_HEARTBEAT_INTERVAL_MS_MIN = 100;
/** The endpoint closes a connection silent for this many heartbeat intervals. */
export const AGENT_IDLE_HEARTBEATS_MAX = 3;
/** The endpoint refreshes an agent's last_connected at most this often while it stays connected. */
export const AGENT_TOUCH_INTERVAL_MS = HOUR_MS;
/** The endpoint checks a session's agent token again on a heartbeat at most this often: a deleted token disconnects its agents within about this long (plus a heartbeat interval). */
export const AGENT_REAUTH_INTERVAL_MS = MINUTE_MS;
/** Requests per second one agent connection may send on average (a token bucket); beyond it a request is answered 400 AGENT_RATE_LIMITED and not served. An agent with AGENT_SCHEDULE_CHECKS_MAX checks at the shortest period posts about 17 a second. */
export const AGENT_REQUESTS_PER_SECOND_MAX = 50;
/** Requests one agent connection may send at once above the average rate (the token bucket's size). */
export const AGENT_REQUESTS_BURST_MAX = 100;
/** Check result posts the agent sends per second over one connection, below AGENT_REQUESTS_PER_SECOND_MAX so heartbeats and schedule fetches fit beside a backlog being drained. */
export const AGENT_CLIENT_POSTS_PER_SECOND_MAX = 40;
/** How long the agent holds posts on a connection after the endpoint answered AGENT_RATE_LIMITED. */
export const AGENT_RATE_LIMITED_BACKOFF_MS = 1_000;
/** Requests refused with AGENT_RATE_LIMITED on one connection, without a pause long enough to refill the bucket, after which the endpoint closes the connection. */
export const AGENT_RATE_LIMITED_CLOSE_AFTER = 1_000;
/** How long the endpoint reuses the newest published bundle version of a channel before it reads the update directory again: a new bundle is offered within this. */
export const AGENT_UPDATE_VERSION_CACHE_MS = MINUTE_MS;
/** Most update channels whose newest version the endpoint caches (it serves one; the cache is emptied when full). */
export const AGENT_UPDATE_VERSION_CACHE_CHANNELS_MAX = 64;
/** Most connections (handshaken or not) the endpoint holds across all its zones; the process's file descriptors bound it. */
export const AGENT_CONNECTIONS_MAX = 16_384;
/** Most TLS connections still in handshake (TLS or hello) at once. */
export const AGENT_PENDING_HANDSHAKES_MAX = 1_024;
/** Most of those one remote address (an IPv6 /64) may hold; beyond it its new connections are dropped at once, so one address cannot take the whole pool. */
export const AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX = 16;
/** Most update downloads (HTTP connections on the agent ports) at once; they have their own pool, apart from the pending handshakes. */
export const AGENT_UPDATE_DOWNLOADS_MAX = 64;
/** Most update downloads one remote address (an IPv6 /64) may hold at once. */
export const AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX = 4;
/** The endpoint logs failed TLS handshakes (unauthenticated, so cheap to cause) as one summary line at most this often, never one line each. */
export const AGENT_LOG_SUMMARY_INTERVAL_MS = MINUTE_MS;
/** Most distinct failure reasons one summary line counts separately; the rest count as `other`. */
export const AGENT_LOG_SUMMARY_REASONS_MAX = 8;
/** Most handshaken connections one agent token may hold at once. */
export const AGENT_TOKEN_CONNECTIONS_MAX = 10_000;
/** Most agent checks one agent's schedule lists. */
export const AGENT_SCHEDULE_CHECKS_MAX = 500;
/** Longest check period (and so check timeout) in seconds an agent accepts in a check_schedule.get result; keeps every check timer far below setTimeout's 2^31 ms. */
export const AGENT_CHECK_PERIOD_S_MAX = 86_400;
/** Most entities one agent id may be bound to (entities whose agent_id names it) for its schedule. */
export const AGENT_ENTITIES_MAX = 16;
/** Most metrics one check_metrics.post may carry (over all its dimensions). */
export const AGENT_POST_METRICS_MAX = 1_000;
/** Most dimensions one check_metrics.post may carry. */
export const AGENT_POST_DIMENSIONS_MAX = 256;
/** Longest string a protocol field may hold (names, versions, status, values of type string). */
export const AGENT_FIELD_LENGTH_MAX = 1_024;
/** Most features a handshake may list. */
export const AGENT_FEATURES_MAX = 32;
/** Longest string id a protocol message may carry (the Lua agent sends ids as strings). */
export const AGENT_MESSAGE_ID_LENGTH_MAX = 64;
/** Longest bare metric name (`dimension.name`) an agent may post: the engine series adds `<entityId>.<checkId>.` (two 10-character ids and two dots) within METRIC_NAME_LENGTH_MAX. */
export const AGENT_METRIC_NAME_LENGTH_MAX = 200;
/** Longest heartbeat interval an agent accepts from an endpoint's handshake result (timers stay far below setTimeout's 2^31 ms). */
export const AGENT_HEARTBEAT_INTERVAL_MS_MAX = HOUR_MS;
/** How long a closing protocol connection may take to flush what was written before it is destroyed. */
export const AGENT_CLOSE_LINGER_MS = 5 * SECOND_MS;
/** Most bytes the agent's collectors read of one /proc file (/proc/stat, meminfo, diskstats, net/dev, mounts...); lines past it are not read, and a target not found in a file cut short says so. */
export const AGENT_PROC_FILE_BYTES_MAX = 1024 * 1024;

/** First reconnect delay of the agent; each failure doubles it up to AGENT_RECONNECT_MAX_MS, with full jitter. */
export const AGENT_RECONNECT_BASE_MS = 1 * SECOND_MS;
/** Longest reconnect delay of the agent. */
export const AGENT_RECONNECT_MAX_MS = 5 * MINUTE_MS;
/** Most check results the agent buffers while it cannot post them; the oldest go first. */
export const AGENT_BUFFER_RESULTS_MAX = 10_000;
/** Most result posts the agent has in flight at once over one connection. */
export const AGENT_POSTS_IN_FLIGHT_MAX = 8;
/** Most times the agent posts one result: a result that fails this often (lost with its connection or refused other than 400) is dropped and counted, so none blocks the buffer. */
export const AGENT_POST_ATTEMPTS_MAX = 5;
/** How often the agent asks for a newer bundle while connected. */
export const AGENT_UPDATE_CHECK_INTERVAL_MS = 6 * HOUR_MS;
/** Largest update bundle the agent downloads (and the endpoint serves). */
export const AGENT_UPDATE_BUNDLE_BYTES_MAX = 256 * 1024 * 1024;
/** Longest an update download may take. */
export const AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS = 10 * MINUTE_MS;
/** Most entries one update channel directory may hold; publishing beyond it is refused, and a channel holding more publishes nothing (latestVersion null). */
export const UPDATE_VERSIONS_MAX = 1_000;
/** Longest update version text (digits and at most three dots); keeps every path under the file system's name limit. */
export const UPDATE_VERSION_LENGTH_MAX = 64;
/** Largest update signature file read or served (an RSA-16384 signature is 2 KiB; Ed25519's is 64 bytes). */
export const UPDATE_SIGNATURE_BYTES_MAX = 4 * 1024;
/** Smallest RSA modulus an update signing key may have. */
export const UPDATE_RSA_KEY_BITS_MIN = 2_048;
/** How long an update HTTP connection has, once handed over, to send its request head. */
export const UPDATE_HTTP_HEADERS_TIMEOUT_MS = 30 * SECOND_MS;
/** How long an update HTTP connection may stay silent (neither side moving bytes) before it is closed. */
export const UPDATE_HTTP_IDLE_TIMEOUT_MS = 60 * SECOND_MS;
/** The agent sends each heartbeat after the endpoint's interval plus or minus this percentage, drawn at random, so fleets do not beat in step. */
export const AGENT_HEARTBEAT_JITTER_PERCENT = 10;
/** Most endpoints (`monitoring_endpoints` entries) one agent connects to; the reference uses three zones. */
export const AGENT_ENDPOINTS_MAX = 16;
/** Largest agent configuration file the agent reads. */
export const AGENT_CONFIG_FILE_BYTES_MAX = 64 * 1024;
/** Most staged update versions the agent looks at in its state directory when it picks its bundle version. */
export const AGENT_STAGED_UPDATES_MAX = 64;
/** How long the agent waits for a connection it closes to finish closing before it destroys the socket (shutdown). */
export const AGENT_CLOSE_WAIT_MS = 2 * SECOND_MS;

/** Validity of the agent root certificate created on first start. */
export const AGENT_CA_VALIDITY_MS = 10 * 365 * DAY_MS;
/** Validity of the endpoint's server certificate (renewed with `strata agent-ca renew`). */
export const AGENT_SERVER_CERT_VALIDITY_MS = 825 * DAY_MS;
/** A server certificate expiring within this is replaced when the endpoint loads its TLS material. */
export const AGENT_SERVER_CERT_RENEW_BEFORE_MS = 30 * DAY_MS;
/** New agent certificates start this long before they are issued, so agents whose clocks run a little behind accept them. */
export const AGENT_CERT_BACKDATE_MS = HOUR_MS;
/** Largest file of the agent CA directory that is read (a PEM key or certificate is a few KiB). */
export const AGENT_CA_FILE_BYTES_MAX = 64 * 1024;

assert(AGENT_WRITE_BUFFER_BYTES_MAX >= 2 * AGENT_LINE_BYTES_MAX, 'a full-size line fits the write buffer twice');
assert(AGENT_HELLO_LINE_BYTES_MAX <= AGENT_LINE_BYTES_MAX, 'a session reads longer lines after its hello, never shorter');
assert(AGENT_REQUESTS_BURST_MAX >= AGENT_REQUESTS_PER_SECOND_MAX && AGENT_RATE_LIMITED_CLOSE_AFTER > AGENT_REQUESTS_BURST_MAX, 'the request bucket holds a second of requests, and closing takes sustained abuse');
assert(AGENT_HEARTBEAT_INTERVAL_MS_MIN < AGENT_HEARTBEAT_INTERVAL_MS, 'the default heartbeat interval is allowed');
assert(AGENT_PENDING_HANDSHAKES_MAX <= AGENT_CONNECTIONS_MAX, 'pending handshakes count among connections');
assert(AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX < AGENT_PENDING_HANDSHAKES_MAX, 'one address cannot take every pending slot');
assert(AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX < AGENT_UPDATE_DOWNLOADS_MAX, 'one address cannot take every download slot');
assert(AGENT_PENDING_HANDSHAKES_MAX + AGENT_UPDATE_DOWNLOADS_MAX <= AGENT_CONNECTIONS_MAX, 'pending handshakes and downloads count among connections');
assert(AGENT_TOKEN_CONNECTIONS_MAX <= AGENT_CONNECTIONS_MAX, 'one token cannot hold more than the endpoint');
assert(AGENT_CONNECTIONS_MAX === MONITORING_AGENT_CONNECTIONS_MAX, 'the live-connection registry holds every connection the endpoint admits');
assert(AGENT_RECONNECT_BASE_MS < AGENT_RECONNECT_MAX_MS, 'backoff grows');
assert(AGENT_HELLO_TIMEOUT_MS > AGENT_TLS_HANDSHAKE_TIMEOUT_MS, 'hello waits longer than TLS');
assert(AGENT_METRIC_NAME_LENGTH_MAX + 22 <= METRIC_NAME_LENGTH_MAX, 'an agent metric name fits an engine series name after `<entityId>.<checkId>.`');
assert(AGENT_HEARTBEAT_INTERVAL_MS < AGENT_HEARTBEAT_INTERVAL_MS_MAX, 'the default heartbeat interval is accepted by agents');
assert(AGENT_CHECK_PERIOD_S_MAX * SECOND_MS < 2 ** 31 - 1, 'the longest check period is a valid setTimeout delay');
assert(UPDATE_HTTP_IDLE_TIMEOUT_MS < AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, 'a stalled update download ends before its deadline');
assert(AGENT_SERVER_CERT_RENEW_BEFORE_MS < AGENT_SERVER_CERT_VALIDITY_MS, 'a new server certificate is not due for renewal at once');
assert(AGENT_SERVER_CERT_VALIDITY_MS < AGENT_CA_VALIDITY_MS, 'the root outlives the server certificates it issues');
assert(AGENT_CLIENT_POSTS_PER_SECOND_MAX < AGENT_REQUESTS_PER_SECOND_MAX, 'the agent paces its posts below the endpoint\'s rate limit');
