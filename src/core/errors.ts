// Owns the one error type, StrataError, and the catalogue of stable error codes with their meaning.

/** The broad class of a failure; exactly one module (core/error-status.ts) maps kinds to HTTP status (the HTTP APIs and the agent protocol use it). */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'over_limit'
  | 'rate_limited'
  | 'unsupported_media'
  | 'unavailable'
  | 'internal';

interface CodeInfo {
  readonly kind: ErrorKind;
  /** One sentence that says which rule was broken; docs/errors.md repeats it (a test checks). */
  readonly doc: string;
}

/** Every error code Strata raises. Codes are stable: clients may match on them. */
export const ERROR_CODES = {
  INGEST_BATCH_TOO_LARGE: { kind: 'over_limit', doc: 'A write batch holds more points than INGEST_BATCH_POINTS_MAX.' },
  INGEST_BATCH_EMPTY: { kind: 'invalid', doc: 'A write batch holds no points.' },
  INGEST_POINTS_REJECTED: { kind: 'invalid', doc: "A batch was refused: every point was bad, or the write was atomic and some point was; details list each point and its reason." },
  INGEST_POINT_MALFORMED: { kind: 'invalid', doc: 'A point is not an object with tenant, metric, timestamp and value.' },
  INGEST_TENANT_INVALID: { kind: 'invalid', doc: 'A tenant id is empty, too long or holds characters other than letters, digits, dash, dot and underscore.' },
  INGEST_METRIC_NAME_EMPTY: { kind: 'invalid', doc: 'A metric name is empty.' },
  INGEST_METRIC_NAME_INVALID: { kind: 'invalid', doc: 'A metric name is not a string, or holds control characters or a lone UTF-16 surrogate.' },
  INGEST_METRIC_NAME_TOO_LONG: { kind: 'invalid', doc: 'A metric name is longer than METRIC_NAME_LENGTH_MAX characters.' },
  INGEST_UNIT_INVALID: { kind: 'invalid', doc: 'A unit is not a string of at most UNIT_LENGTH_MAX characters.' },
  INGEST_VALUE_NOT_FINITE: { kind: 'invalid', doc: 'A numeric value is NaN or infinite.' },
  INGEST_VALUE_INVALID: { kind: 'invalid', doc: 'A value is neither a finite number nor a string of at most STRING_VALUE_LENGTH_MAX characters.' },
  INGEST_TIMESTAMP_INVALID: { kind: 'invalid', doc: 'A timestamp is not a safe integer number of milliseconds.' },
  INGEST_TIMESTAMP_TOO_OLD: { kind: 'invalid', doc: 'A timestamp is older than the FULL retention allows.' },
  INGEST_TIMESTAMP_IN_FUTURE: { kind: 'invalid', doc: 'A timestamp is more than INGEST_FUTURE_SKEW_MS ahead of the clock.' },
  INGEST_HEAD_FULL: { kind: 'unavailable', doc: 'The in-memory head holds HEAD_POINTS_MAX points and sealing has not caught up; retry later.' },
  QUERY_INVALID: { kind: 'invalid', doc: 'A query field is missing or malformed (tenant, metric, from, to, points, resolution or select).' },
  QUERY_RANGE_INVALID: { kind: 'invalid', doc: 'A query range has from >= to or a bound that is not a safe integer.' },
  QUERY_POINTS_OR_RESOLUTION_REQUIRED: { kind: 'invalid', doc: 'A query gives neither points nor resolution.' },
  QUERY_RESOLUTION_INVALID: { kind: 'invalid', doc: 'A resolution is not one of FULL, MIN5, MIN20, MIN60, MIN240, MIN1440.' },
  QUERY_SELECT_INVALID: { kind: 'invalid', doc: 'A select entry is not one of average, variance, min, max.' },
  QUERY_POINTS_OVER_LIMIT: { kind: 'over_limit', doc: 'The chosen resolution would return more than QUERY_POINTS_MAX points; split the range.' },
  LIST_LIMIT_INVALID: { kind: 'invalid', doc: "A list limit is not an integer between 1 and that list's maximum (LIST_LIMIT_MAX for monitoring lists, METRICS_PAGE_MAX for metric name pages)." },
  MONITORING_FIELD_INVALID: { kind: 'invalid', doc: 'A monitoring request field is missing, of the wrong type or outside its allowed values; details name the key.' },
  MONITORING_OBJECT_NOT_FOUND: { kind: 'not_found', doc: 'A monitoring object (entity, check, alarm, notification, plan, agent token, agent, connection, zone or notification type) does not exist for this tenant.' },
  MONITORING_PARENT_NOT_FOUND: { kind: 'not_found', doc: 'The entity a check or alarm belongs to does not exist for this tenant.' },
  MONITORING_CHILDREN_EXIST: { kind: 'invalid', doc: 'A monitoring object cannot be deleted while checks, alarms or plans still belong to it or name it.' },
  MONITORING_ALARM_PARSE_FAILED: { kind: 'invalid', doc: 'Alarm criteria do not follow the alarm language; details give the line, column and token of the first error.' },
  MONITORING_LIMIT_REACHED: { kind: 'invalid', doc: 'A tenant or entity already holds the most monitoring objects of this kind that its limit allows (see src/monitoring/monitoring-limits.ts).' },
  MONITORING_PATTERN_UNSAFE: { kind: 'invalid', doc: "A user-supplied regular expression (a regex or nregex literal in alarm criteria, or a check's body pattern) is longer than PATTERN_LENGTH_MAX, does not compile, or could backtrack catastrophically (nested or too many repetitions); details give the pattern and the reason." },
  MONITORING_DEFAULT_OBJECT_PROTECTED: { kind: 'forbidden', doc: "The tenant's default notification (ntTechnicalContactsEmail) and default plan (npTechnicalContactsEmail) cannot be deleted, and the default notification cannot be changed; the default plan may be updated." },
  MONITORING_DELIVERY_NOT_DEAD: { kind: 'invalid', doc: 'A notification delivery that is pending or delivered was asked to be retried; only a dead delivery (a dead letter) can be retried.' },
  MONITORING_SECRET_UNREADABLE: { kind: 'internal', doc: 'A check secret stored sealed in monitoring.sqlite cannot be decrypted: monitoring.key is not the key it was sealed with, or the stored value was altered.' },
  MONITORING_RATE_LIMITED: { kind: 'rate_limited', doc: "A tenant made more monitoring API requests of one kind (all requests, test-check, test-alarm or test notifications) than its rate limit allows in the limit's window; details name the limit, its window and when it resets; retry after the Retry-After seconds." },
  MONITORING_AGENT_NOT_CONNECTED: { kind: 'invalid', doc: 'Host information was asked of an agent that has no live connection to this server (or the agent endpoint is not running); it is read live from a connected agent.' },
  MONITORING_BACKTEST_TOO_LARGE: { kind: 'invalid', doc: 'An alarm backtest asks for a range longer than BACKTEST_RANGE_MS_MAX or would replay more than BACKTEST_OBSERVATIONS_MAX observations; details give the limit; narrow the range.' },
  MONITORING_TEST_RUNS_BUSY: { kind: 'unavailable', doc: 'A test run was refused on arrival: a check test (test-check, the test of a saved check, or test-alarm with check_id) over TEST_RUNS_CONCURRENCY_MAX in the server or TEST_RUNS_PER_TENANT_MAX for this tenant, a test notification over its own in-flight limits, or an alarm backtest over BACKTEST_PER_TENANT_MAX for this tenant or BACKTEST_CONCURRENCY_MAX in the server; details name the scope and limit; retry after the Retry-After seconds.' },
  // Agent protocol (src/agent): the endpoint answers these in the protocol's error object, code from the kind's status; any code but 400 closes the connection.
  AGENT_MESSAGE_INVALID: { kind: 'invalid', doc: 'An agent protocol line is not JSON, or not an envelope with v "1", an id, source, target and either method and params or result and error.' },
  AGENT_LINE_TOO_LONG: { kind: 'over_limit', doc: 'An agent protocol line is longer than AGENT_LINE_BYTES_MAX bytes (AGENT_HELLO_LINE_BYTES_MAX until the handshake succeeded); the connection is closed.' },
  AGENT_METHOD_UNKNOWN: { kind: 'invalid', doc: 'An agent protocol request names a method the receiver does not implement.' },
  AGENT_PARAMS_INVALID: { kind: 'invalid', doc: "An agent protocol request's params do not have the shape its method takes; details name the field." },
  AGENT_HANDSHAKE_REQUIRED: { kind: 'unauthenticated', doc: 'An agent sent a request other than handshake.hello before its handshake succeeded; the connection is closed.' },
  AGENT_TOKEN_INVALID: { kind: 'unauthenticated', doc: 'An agent handshake presented an agent token that is unknown or deleted, or an invalid agent id; the connection is closed.' },
  AGENT_CONNECTIONS_OVER_LIMIT: { kind: 'over_limit', doc: 'An agent connection was refused: the endpoint holds AGENT_CONNECTIONS_MAX connections, the agent token AGENT_TOKEN_CONNECTIONS_MAX, or the tenant AGENTS_PER_TENANT_MAX agents and this agent id is a new one; the connection is closed.' },
  AGENT_CHECK_UNKNOWN: { kind: 'invalid', doc: "check_metrics.post names a check that is not an enabled agent check of an entity bound to this agent (or gives another type than the check's)." },
  AGENT_REQUEST_REFUSED: { kind: 'invalid', doc: 'The peer answered an agent protocol request with an error object; details hold its code, message and type.' },
  AGENT_REQUEST_TIMEOUT: { kind: 'unavailable', doc: 'An agent protocol request got no response within its timeout.' },
  AGENT_CONNECTION_CLOSED: { kind: 'unavailable', doc: 'An agent protocol connection closed while a request was in flight, or a request was sent on a closed connection.' },
  AGENT_PEER_TOO_SLOW: { kind: 'over_limit', doc: 'An agent protocol peer did not read what was sent to it: more than AGENT_WRITE_BUFFER_BYTES_MAX bytes wait unsent, or more than AGENT_PENDING_REQUESTS_MAX requests wait for responses; the connection is closed.' },
  AGENT_HOST_INFO_BUSY: { kind: 'unavailable', doc: 'Host information was asked of an agent while HOST_INFO_IN_FLIGHT_PER_AGENT_MAX requests to that agent, or HOST_INFO_IN_FLIGHT_MAX on the endpoint, were already waiting for answers; details name the scope and limit; retry after the Retry-After seconds.' },
  AGENT_BUSY: { kind: 'unavailable', doc: 'The endpoint cannot take check results now (the metrics queue to the engine is full); the agent keeps the result and retries after reconnecting.' },
  AGENT_RATE_LIMITED: { kind: 'invalid', doc: 'An agent connection sent more than AGENT_REQUESTS_PER_SECOND_MAX requests per second; the request was not served.' },
  AGENT_UPDATE_SIGNATURE_INVALID: { kind: 'invalid', doc: 'An agent update bundle was refused: its signature is missing, malformed or does not verify over its SHA-256 digest with the pinned public key.' },
  AGENT_UPDATE_UNAVAILABLE: { kind: 'not_found', doc: "An agent update could not be had: no bundle of the asked channel and version is published in the data directory, or the agent's download failed (not found, another HTTP status, larger than AGENT_UPDATE_BUNDLE_BYTES_MAX, truncated, past AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, or a network or TLS failure); details.reason says which." },
  AGENT_CA_INVALID: { kind: 'internal', doc: "The agent endpoint's certificate files in the data directory are unreadable, incomplete or do not belong together (a key not matching its certificate, a root that is not a self-signed CA or has expired, a server pair without its root); a server certificate not issued by the root is replaced, never the root." },
  // Recordings and replay (src/recording, src/replay, the record/replay/workload commands).
  RECORDING_NOT_A_RECORDING: { kind: 'invalid', doc: 'A file given as a recording does not start with the recording magic bytes (it is not a Strata recording).' },
  RECORDING_VERSION_UNSUPPORTED: { kind: 'invalid', doc: "A recording's header names a format version this build does not read; details give the version." },
  RECORDING_TRUNCATED: { kind: 'invalid', doc: 'A recording ends inside a frame (the file was cut short, for example by a crash while recording); details give the byte offset and the frames read before it.' },
  RECORDING_CORRUPT: { kind: 'invalid', doc: "A recording frame fails its CRC-32, is longer than RECORDING_FRAME_BYTES_MAX, or does not decode to a header, exchange or gap frame, or breaks the order rules (the header first and only first, atMs never decreasing); details give the byte offset and frame number." },
  REPLAY_AUTH_FAILED: { kind: 'unauthenticated', doc: "Replay could not get a token from the target's identity API with the given username and API key (refused, or no identity API at that URL); details give the status and the token URL." },
  REPLAY_TARGET_UNREACHABLE: { kind: 'unavailable', doc: 'Replay could not connect to the target URL; details give the address and the system error.' },
  CONFIG_INVALID: { kind: 'invalid', doc: 'A server, service or CLI option is outside what it accepts; details name the option and the accepted values.' },
  STORE_LOCKED: { kind: 'conflict', doc: 'Another live process has the data directory open; one process owns a data directory at a time.' },
  STORE_CLOSED: { kind: 'unavailable', doc: 'The store was closed; no further calls are accepted.' },
  STORE_OPTIONS_INVALID: { kind: 'invalid', doc: 'openStore was given an invalid option (directory, retention table, grace or worker count).' },
  STORE_SCHEMA_UNSUPPORTED: { kind: 'internal', doc: 'A data file was written by a newer schema version than this build understands.' },
  ROLLUP_QUEUE_FULL: { kind: 'unavailable', doc: 'The rollup worker queue is full; the work stays recorded on disk and is retried.' },
  STORE_PARTITION_DAMAGED: { kind: 'unavailable', doc: 'A partition file the request needs is missing, damaged or recorded as lost; details name the resolution, the range and the reason, and strata check --repair fixes what can be fixed.' },
  STORE_WAL_DAMAGED: { kind: 'internal', doc: 'The write-ahead log held corrupt spans that replay stepped over (records in them are lost); a health reason, listed while copies of the damaged segments stay in wal/damaged/.' },
  STORE_SHARD_UNAVAILABLE: { kind: 'unavailable', doc: 'A ClickHouse shard the operation needs did not answer (down, unreachable or timed out); nothing was written or served in part; details name the shard; retry once it is back.' },
  STORE_BACKEND_FAILED: { kind: 'internal', doc: 'The ClickHouse backend answered a statement with an error Strata did not expect; details carry its code and message.' },
  STORE_SERIES_ID_COLLISION: { kind: 'conflict', doc: 'Two series of the ClickHouse backend hash to the same 64-bit series id; the newer name is refused rather than merged into the other series.' },
  STORE_NOT_DURABLE: { kind: 'unavailable', doc: 'The write-ahead log cannot be written (permissions, read-only or full file system, I/O error), so nothing was accepted; retry once the log directory is writable.' },
  // Identity service.
  IDENTITY_BODY_INVALID: { kind: 'invalid', doc: 'An authentication request body cannot be parsed as API key credentials.' },
  IDENTITY_CREDENTIALS_INVALID: { kind: 'unauthenticated', doc: 'A username and API key (or tenant) do not authenticate.' },
  IDENTITY_TOKEN_NOT_FOUND: { kind: 'not_found', doc: 'A token to validate or revoke is unknown, expired, revoked or belongs to another tenant.' },
  IDENTITY_TOKEN_FORBIDDEN: { kind: 'forbidden', doc: 'A caller that is not an admin validates or revokes a token other than its own.' },
  IDENTITY_USER_INVALID: { kind: 'invalid', doc: 'A username, tenant, role or API key given for a new user is malformed.' },
  IDENTITY_USERNAME_TAKEN: { kind: 'conflict', doc: 'A user with this username already exists.' },
  // HTTP layer.
  AUTH_TOKEN_MISSING: { kind: 'unauthenticated', doc: 'A request to a protected API carries no X-Auth-Token header.' },
  AUTH_TOKEN_INVALID: { kind: 'unauthenticated', doc: 'An X-Auth-Token is unknown, expired or revoked; authenticate again.' },
  AUTH_TENANT_FORBIDDEN: { kind: 'forbidden', doc: "A token is used on another tenant's URL or data." },
  AUTH_ROLE_FORBIDDEN: { kind: 'forbidden', doc: "A token's role does not allow the request (an observer writing, a non-admin using multi-tenant ingest or the monitoring account settings)." },
  HTTP_REQUEST_INVALID: { kind: 'invalid', doc: 'A request is malformed at the HTTP level (URL, headers or framing).' },
  HTTP_ROUTE_NOT_FOUND: { kind: 'not_found', doc: 'No resource exists at the requested URL.' },
  HTTP_METHOD_NOT_ALLOWED: { kind: 'method_not_allowed', doc: 'The resource does not support the method; the Allow header lists those it does.' },
  HTTP_CONTENT_TYPE_UNSUPPORTED: { kind: 'unsupported_media', doc: 'A request body has no Content-Type or one the resource does not accept.' },
  HTTP_CONTENT_ENCODING_UNSUPPORTED: { kind: 'unsupported_media', doc: 'A request body has a Content-Encoding the resource does not read (Prometheus routes read snappy only, OTLP gzip or none); nothing was decoded.' },
  HTTP_ACCEPT_UNSUPPORTED: { kind: 'unsupported_media', doc: 'The Accept header names no media type the resource can produce.' },
  HTTP_BODY_TOO_LARGE: { kind: 'over_limit', doc: "A request body is larger than the resource's byte limit (HTTP_BODY_BYTES_MAX for ingest)." },
  HTTP_BODY_INVALID: { kind: 'invalid', doc: 'A request body cannot be decoded (bad JSON or msgpack) or has the wrong shape.' },
  HTTP_OVERLOADED: { kind: 'unavailable', doc: 'Admission refused the request on arrival, before its body was read: an in-flight limit of its kind of work (requests or body bytes, server-wide or per tenant) or its queue is full; details name the scope and limit; retry after the Retry-After seconds.' },
  QUERY_METRICS_TOO_MANY: { kind: 'invalid', doc: 'A multi-metric query names more than VIEWS_METRICS_MAX metrics.' },
  SEARCH_RESULTS_TOO_MANY: { kind: 'over_limit', doc: 'A metric search matches more than SEARCH_RESULTS_MAX names; narrow the glob.' },
  INGEST_TTL_INVALID: { kind: 'invalid', doc: 'A ttlInSeconds is present but not an integer between 1 and 2147483647.' },
  AUTH_BASIC_INVALID: { kind: 'unauthenticated', doc: 'HTTP basic credentials are malformed, or their username and API key do not authenticate.' },
  FEED_QUERY_INVALID: { kind: 'invalid', doc: 'A feed page parameter is malformed: limit not an integer from 1 to FEED_PAGE_MAX, direction not forward or backward, marker not an entry id or last, or a search or startingAt this service does not support.' },
  FEED_MARKER_NOT_FOUND: { kind: 'invalid', doc: "A feed page marker names no entry of this tenant's feed." },
  FEED_ENTRY_INVALID: { kind: 'invalid', doc: 'A published feed entry cannot be parsed, or its title, categories or content break the entry rules (see docs/feeds-api.md).' },
  DNS_LIMIT_INVALID: { kind: 'invalid', doc: 'A domain-listing limit is not a positive integer.' },
  DNS_OFFSET_INVALID: { kind: 'invalid', doc: 'A domain-listing offset is not 0 or a positive multiple of the limit.' },
  DNS_DOMAIN_NOT_FOUND: { kind: 'not_found', doc: "No domain with this id exists in the tenant's account." },
  DNS_IMPORT_INVALID: { kind: 'invalid', doc: 'A domain import file is not valid JSON in the create-domains shape or breaks a domain or record rule; nothing was imported.' },
  PROTOCOL_BODY_MALFORMED: { kind: 'invalid', doc: 'A Prometheus or OTLP body cannot be decoded: bad snappy framing, protobuf or JSON, or a message of the wrong shape; nothing was written.' },
  PROTOCOL_BODY_TOO_LARGE: { kind: 'over_limit', doc: 'A compressed body declares a decompressed length above PROTOCOL_DECODED_BYTES_MAX; it was not decompressed.' },
  PROTOCOL_SERIES_INVALID: { kind: 'invalid', doc: 'A series cannot be named: no metric name, an empty, duplicate or reserved label name, a brace in the metric name, or more than SERIES_LABELS_MAX labels (see docs/protocols.md).' },
  PROTOCOL_POINT_INVALID: { kind: 'invalid', doc: 'A data point has no value, a time that is not a whole number of milliseconds in range, or a kind Strata does not store (see docs/protocols.md).' },
  PROMETHEUS_MATCHER_INVALID: { kind: 'invalid', doc: 'A remote read matcher has an unknown type or a regular expression that does not compile or could run in exponential time.' },
  PROMETHEUS_READ_TOO_LARGE: { kind: 'over_limit', doc: 'A remote read would hold more than PROM_READ_QUERIES_MAX queries, PROM_READ_SERIES_MAX series or PROM_READ_SAMPLES_MAX samples, or test more than PROM_READ_SCAN_NAMES_MAX names; narrow the selector or the range.' },
  GRAPHITE_LINE_MALFORMED: { kind: 'invalid', doc: 'A Graphite plaintext line is not `path value timestamp` with a finite value and a timestamp in seconds; the line is dropped and counted.' },
  GRAPHITE_LINE_TOO_LONG: { kind: 'over_limit', doc: 'A Graphite plaintext line is longer than GRAPHITE_LINE_BYTES_MAX bytes; it is dropped up to its newline and counted.' },
  CONSOLE_NOT_BUILT: { kind: 'unavailable', doc: 'The web console was asked for but its built files (index.html in dist/console, or in the configured console directory) are missing; run `npm run build`.' },
  INTERNAL: { kind: 'internal', doc: 'An unexpected condition; the log line with the same transaction id says more.' },
} as const satisfies Record<string, CodeInfo>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The one error type of Strata: a stable code, its kind, a message for people and details for programs. */
export class StrataError extends Error {
  override readonly name = 'StrataError';
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.kind = ERROR_CODES[code].kind;
    this.details = details;
  }
}

/** Text of any input value for an error message; never throws (null-prototype objects cannot be stringified). */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}

/** True when `error` is a StrataError (an instance of this realm's class). */
export function isStrataError(error: unknown): error is StrataError {
  return error instanceof StrataError;
}
