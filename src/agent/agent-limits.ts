// Owns every limit and timer of the agent protocol, the agent endpoint and the agent as named constants; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../core/time.js';

/** Longest protocol line (one JSON message) either side reads; a longer line is AGENT_LINE_TOO_LONG and closes the connection. */
export const AGENT_LINE_BYTES_MAX = 1024 * 1024;
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
/** Most connections (handshaken or not) the endpoint holds across all its zones; the process's file descriptors bound it. */
export const AGENT_CONNECTIONS_MAX = 16_384;
/** Most TLS connections still in handshake (TLS or hello) at once. */
export const AGENT_PENDING_HANDSHAKES_MAX = 1_024;
/** Most handshaken connections one agent token may hold at once. */
export const AGENT_TOKEN_CONNECTIONS_MAX = 10_000;
/** Most agent checks one agent's schedule lists. */
export const AGENT_SCHEDULE_CHECKS_MAX = 500;
/** Most entities one agent id may be bound to (entities whose agent_id names it) for its schedule. */
export const AGENT_ENTITIES_MAX = 16;
/** Most metrics one check_metrics.post may carry (over all its dimensions). */
export const AGENT_POST_METRICS_MAX = 1_000;
/** Most dimensions one check_metrics.post may carry. */
export const AGENT_POST_DIMENSIONS_MAX = 256;
/** Longest string a protocol field may hold (names, versions, status, values of type string). */
export const AGENT_FIELD_LENGTH_MAX = 1_024;
/** How far a posted metric timestamp may be ahead of the endpoint's clock. */
export const AGENT_FUTURE_SKEW_MS = 5 * MINUTE_MS;
/** Most features a handshake may list. */
export const AGENT_FEATURES_MAX = 32;

/** First reconnect delay of the agent; each failure doubles it up to AGENT_RECONNECT_MAX_MS, with full jitter. */
export const AGENT_RECONNECT_BASE_MS = 1 * SECOND_MS;
/** Longest reconnect delay of the agent. */
export const AGENT_RECONNECT_MAX_MS = 5 * MINUTE_MS;
/** Most check results the agent buffers while it cannot post them; the oldest go first. */
export const AGENT_BUFFER_RESULTS_MAX = 10_000;
/** Most result posts the agent has in flight at once over one connection. */
export const AGENT_POSTS_IN_FLIGHT_MAX = 8;
/** How often the agent asks for a newer bundle while connected. */
export const AGENT_UPDATE_CHECK_INTERVAL_MS = 6 * HOUR_MS;
/** Largest update bundle the agent downloads (and the endpoint serves). */
export const AGENT_UPDATE_BUNDLE_BYTES_MAX = 256 * 1024 * 1024;
/** Longest an update download may take. */
export const AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS = 10 * MINUTE_MS;

/** Validity of the agent root certificate created on first start. */
export const AGENT_CA_VALIDITY_MS = 10 * 365 * DAY_MS;
/** Validity of the endpoint's server certificate (renewed with `strata agent-ca renew`). */
export const AGENT_SERVER_CERT_VALIDITY_MS = 825 * DAY_MS;

assert(AGENT_WRITE_BUFFER_BYTES_MAX >= 2 * AGENT_LINE_BYTES_MAX, 'a full-size line fits the write buffer twice');
assert(AGENT_HEARTBEAT_INTERVAL_MS_MIN < AGENT_HEARTBEAT_INTERVAL_MS, 'the default heartbeat interval is allowed');
assert(AGENT_PENDING_HANDSHAKES_MAX <= AGENT_CONNECTIONS_MAX, 'pending handshakes count among connections');
assert(AGENT_TOKEN_CONNECTIONS_MAX <= AGENT_CONNECTIONS_MAX, 'one token cannot hold more than the endpoint');
assert(AGENT_RECONNECT_BASE_MS < AGENT_RECONNECT_MAX_MS, 'backoff grows');
assert(AGENT_HELLO_TIMEOUT_MS > AGENT_TLS_HANDSHAKE_TIMEOUT_MS, 'hello waits longer than TLS');
