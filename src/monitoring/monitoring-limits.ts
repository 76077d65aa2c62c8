// Owns every limit of the monitoring API as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { DAY_MS, MINUTE_MS } from '../core/time.js';
import { INGEST_BATCH_POINTS_MAX, STRING_VALUE_LENGTH_MAX } from '../core/limits.js';

/** Items per list page when no limit is given (reference: "defaults to 100 items per page"). */
export const LIST_LIMIT_DEFAULT = 100;
/** Largest page a monitoring list serves (reference: "the maximum value is 1000"); more is invalidLimit. */
export const LIST_LIMIT_MAX = 1000;
/** Largest monitoring request body: a check or alarm with full metadata fits with room to spare. */
export const MONITORING_BODY_BYTES_MAX = 256 * 1024;
/** Longest label of any monitoring object. */
export const LABEL_LENGTH_MAX = 255;
/** Most metadata entries on one object. */
export const METADATA_ENTRIES_MAX = 256;
/** Longest metadata key or value. */
export const METADATA_TEXT_LENGTH_MAX = 255;
/** Most ip_addresses entries on one entity. */
export const IP_ADDRESSES_MAX = 64;
/** Longest id of a monitoring object a body names (a check, plan or notification id). */
export const OBJECT_ID_LENGTH_MAX = 64;
/** Longest entity URI. */
export const URI_LENGTH_MAX = 1024;
/** Longest agent id (spec 2.1 and section 8). */
export const AGENT_ID_LENGTH_MAX = 255;
/** Shortest check period, in seconds. */
export const CHECK_PERIOD_S_MIN = 30;
/** Longest check period, in seconds. */
export const CHECK_PERIOD_S_MAX = 1800;
/** Period of a check created without one, in seconds. */
export const CHECK_PERIOD_S_DEFAULT = 60;
/** Shortest check timeout, in seconds. */
export const CHECK_TIMEOUT_S_MIN = 2;
/** Longest check timeout, in seconds: a timeout stays below the longest period. */
export const CHECK_TIMEOUT_S_MAX = CHECK_PERIOD_S_MAX - 1;
/** Timeout of a check created without one, in seconds (kept below the default period). */
export const CHECK_TIMEOUT_S_DEFAULT = 30;
/** Longest target_hostname of a remote check (a DNS name's limit). */
export const HOSTNAME_LENGTH_MAX = 255;
/** Most keys in a check's details object. */
export const CHECK_DETAILS_KEYS_MAX = 64;
/** Longest string inside check details (a remote.http URL may be 8096 characters). */
export const CHECK_DETAIL_TEXT_LENGTH_MAX = 8096;
/** Most headers a remote.http check sends. */
export const HTTP_CHECK_HEADERS_MAX = 10;
/** Most body_matches of a remote.http check. */
export const HTTP_CHECK_BODY_MATCHES_MAX = 4;
/** Longest remote.http payload. */
export const HTTP_CHECK_PAYLOAD_LENGTH_MAX = 1024;
/** Longest alarm criteria, in characters. */
export const CRITERIA_LENGTH_MAX = 16_384;
/** Most notifications one plan state lists. */
export const PLAN_STATE_NOTIFICATIONS_MAX = 64;
/** Longest notification detail value (an address, URL or key). */
export const NOTIFICATION_DETAIL_LENGTH_MAX = 1024;
/** Longest email address (RFC 5321's path limit less the brackets). */
export const EMAIL_LENGTH_MAX = 254;
/** Longest incidentA service_key (spec 2.5 and section 8: 1 to 32 characters). */
export const SERVICE_KEY_LENGTH_MAX = 32;
/** Most entities a tenant may hold. */
export const ENTITIES_PER_TENANT_MAX = 10_000;
/** Most checks one entity may hold. */
export const CHECKS_PER_ENTITY_MAX = 100;
/** Most alarms one entity may hold. */
export const ALARMS_PER_ENTITY_MAX = 200;
/** Most notifications a tenant may hold. */
export const NOTIFICATIONS_PER_TENANT_MAX = 1_000;
/** Most notification plans a tenant may hold. */
export const PLANS_PER_TENANT_MAX = 1_000;
/** Most agent tokens a tenant may hold. */
/** An agent result's timestamp must be this much newer than the oldest the engine takes: its points reach the engine a little after the post is acknowledged. */
export const AGENT_RESULT_RETENTION_MARGIN_MS = 5 * MINUTE_MS;
export const AGENT_TOKENS_PER_TENANT_MAX = 1_000;
/** Most agents a tenant may have (connected within AGENT_RETENTION_MS); a new agent id beyond it is refused, known ones still connect. An agent is of use only with an entity. */
export const AGENTS_PER_TENANT_MAX = ENTITIES_PER_TENANT_MAX;
/** An agent that has not connected for this long drops out of the agent list (spec 2.1). */
export const AGENT_RETENTION_MS = 30 * DAY_MS;
/** Most live agent connections the process holds in memory (the agent endpoint's AGENT_CONNECTIONS_MAX is the same number). */
export const MONITORING_AGENT_CONNECTIONS_MAX = 16_384;
/** Window of every monitoring time series read without from and to (changelogs, notification history, suppression logs, audits): the reference's 7 days. */
export const TIME_SERIES_WINDOW_MS_DEFAULT = 7 * DAY_MS;
/** Window of a changelog query without from and to (spec section 8): the time series default. */
export const CHANGELOG_WINDOW_MS_DEFAULT = TIME_SERIES_WINDOW_MS_DEFAULT;
/** Window over which a check metric's type is inferred from its values when none was declared. */
export const METRIC_TYPE_INFERENCE_WINDOW_MS = 2 * DAY_MS;

assert(LIST_LIMIT_DEFAULT <= LIST_LIMIT_MAX, 'the default page fits the largest page');
assert(CHECK_TIMEOUT_S_DEFAULT < CHECK_PERIOD_S_DEFAULT && CHECK_TIMEOUT_S_MIN < CHECK_PERIOD_S_MIN, 'a timeout stays below its period');
assert(CHECK_TIMEOUT_S_MIN <= CHECK_TIMEOUT_S_DEFAULT && CHECK_TIMEOUT_S_DEFAULT <= CHECK_TIMEOUT_S_MAX, 'the default timeout is a valid timeout');
assert(CHECK_PERIOD_S_MIN <= CHECK_PERIOD_S_DEFAULT && CHECK_PERIOD_S_DEFAULT <= CHECK_PERIOD_S_MAX, 'the default period is a valid period');
assert(EMAIL_LENGTH_MAX <= NOTIFICATION_DETAIL_LENGTH_MAX && SERVICE_KEY_LENGTH_MAX <= NOTIFICATION_DETAIL_LENGTH_MAX, 'every notification detail fits the detail limit');

// --- H3: user-supplied regular expressions and alarm evaluation ---
/** Longest user-supplied regular expression (an alarm's regex/nregex literal, a check's body pattern), in characters. */
export const PATTERN_LENGTH_MAX = 256;
/** Most repetition operators (`*`, `+`, `?`, `{m,n}`) one user-supplied pattern may hold (safe-regex2's count). */
export const PATTERN_REPETITIONS_MAX = 10;
/** Most matcher states a user-supplied pattern may expand to (src/monitoring/pattern-weight.ts): bounds the cost per subject character. */
export const PATTERN_WEIGHT_MAX = 256;
/** Longest text a user-supplied pattern is run against; longer text is cut to this many characters first. */
export const PATTERN_SUBJECT_LENGTH_MAX = 64 * 1024;
/** Most state steps (pattern weight × subject characters) one match may take: a heavier pattern sees a shorter subject. */
export const PATTERN_MATCH_WORK_MAX = 512 * 1024;
assert(PATTERN_WEIGHT_MAX <= PATTERN_MATCH_WORK_MAX && PATTERN_MATCH_WORK_MAX / PATTERN_WEIGHT_MAX >= 1024, 'the heaviest pattern still sees a useful subject');
assert(PATTERN_WEIGHT_MAX >= PATTERN_LENGTH_MAX, 'every plain literal that fits the length limit is accepted');

// --- H5b: alarm runtime, test-check / test-alarm routes and the overview view ---
/** Most alarms whose consensus memory the alarm runtime keeps; beyond it the least recently observed is dropped and reloads from its persisted state. */
export const ALARM_MEMORY_ENTRIES_MAX = 100_000;
/** Most entities whose checks' compiled alarms the alarm runtime caches (the least recently observed entity is dropped and recompiled when next observed). */
export const ALARM_CRITERIA_CACHE_ENTITIES_MAX = 20_000;
/** Most checks whose previous result per zone the alarm runtime keeps for previous() and rate(). */
export const ALARM_PREVIOUS_RESULTS_CHECKS_MAX = 50_000;
/** Most check results a test-alarm body's check_data may hold. */
export const TEST_ALARM_CHECK_DATA_MAX = 100;
/** Most metrics one check result of a test-alarm body may hold. */
export const CHECK_RESULT_METRICS_MAX = 256;
/** Longest metric name, unit or status text inside a test-alarm body's check_data. */
export const CHECK_RESULT_TEXT_LENGTH_MAX = 1024;
/** Most entities one overview page holds (each carries up to CHECKS_PER_ENTITY_MAX checks and ALARMS_PER_ENTITY_MAX alarms). */
export const OVERVIEW_LIMIT_MAX = 100;
/** Entities of an overview page without a limit. */
export const OVERVIEW_LIMIT_DEFAULT = 50;
/** Most entityId filters one overview request may give. */
export const OVERVIEW_ENTITY_FILTER_MAX = 100;

// --- H2a: the remote.http probe and target resolution ---
/** Most response body bytes a remote.http run reads; the rest is left unread (metric `truncated`) and the connection closed. */
export const HTTP_CHECK_BODY_BYTES_MAX = 512 * 1024;
/** Most redirects one remote.http run follows; a further redirect makes the run unavailable. */
export const HTTP_CHECK_REDIRECTS_MAX = 5;
/** Longest body_match metric value, in characters (a longer match is cut): it must fit a stored string value. */
export const HTTP_CHECK_BODY_MATCH_LENGTH_MAX = 1024;
/** Longest wait for the DNS lookup of a check's target_hostname (or a redirect's host) when the caller gives no shorter bound. */
export const PROBE_RESOLVE_TIMEOUT_MS = 5_000;
assert(HTTP_CHECK_BODY_MATCH_LENGTH_MAX <= STRING_VALUE_LENGTH_MAX, 'a body_match value fits a stored string value');

// --- Accounts (issue 11, H1): account settings and the default notification and plan. ---
/** Most technical contacts (email addresses) an account lists. */
export const ACCOUNT_TECHNICAL_CONTACTS_MAX = 32;
/** Shortest webhook token an account may set (letters and digits). */
export const WEBHOOK_TOKEN_LENGTH_MIN = 16;
/** Longest webhook token an account may set (letters and digits). */
export const WEBHOOK_TOKEN_LENGTH_MAX = 64;
/** Length of a generated webhook token: 32 letters or digits, about 190 bits. */
export const WEBHOOK_TOKEN_LENGTH_GENERATED = 32;
/** Most tenants whose default notification and plan one process remembers as materialized; the memory is emptied when full. */
export const DEFAULTS_ENSURED_TENANTS_MAX = 10_000;
assert(WEBHOOK_TOKEN_LENGTH_MIN <= WEBHOOK_TOKEN_LENGTH_GENERATED && WEBHOOK_TOKEN_LENGTH_GENERATED <= WEBHOOK_TOKEN_LENGTH_MAX, 'a generated webhook token is a valid one');

// --- H5a: check runner (scheduler, per-zone runs, result sink) ---
/** Check runs in flight at once by default: 1,000 runs/s (the target) at up to ~250 ms per run. */
export const CHECK_CONCURRENCY_DEFAULT = 256;
/** Most check runs an operator may allow in flight at once (each holds a socket). */
export const CHECK_CONCURRENCY_MAX = 4_096;
/** Most due check runs waiting for a free run slot; a run due while the queue is full is skipped and counted. */
export const CHECK_QUEUE_MAX = 10_000;
/** Most (check, zone) slots one process schedules; checks beyond it are logged and not run. */
export const CHECK_SLOTS_MAX = 300_000;
/** Longest the scheduler's one timer sleeps, so a wall-clock step is noticed within it. */
export const CHECK_TIMER_SLEEP_MS_MAX = 1_000;
/** How long stop() waits for runs in flight before aborting them. */
export const CHECK_STOP_WAIT_MS = 5_000;
/** Start lags kept for the lag percentiles (the most recent runs). */
export const CHECK_LAG_WINDOW_RUNS = 4_096;
/** The result sink writes its points to the engine at least this often. */
export const CHECK_SINK_FLUSH_MS = 250;
/** The result sink writes at once when this many points are pending. */
export const CHECK_SINK_BATCH_POINTS = 10_000;
/** Most points the sink holds while the engine is slow or failing; a result whose points do not all fit is refused whole (counted as dropped). */
export const CHECK_SINK_PENDING_POINTS_MAX = 200_000;
/** Most (check, metric) type declarations the sink remembers; when full it forgets them all (declaring again is harmless). */
export const CHECK_DECLARED_TYPES_MAX = 1_000_000;
/** Checks the scheduler loads at start between two yields of the event loop. */
export const CHECK_LOAD_CHUNK = 500;
/** How long past its timeout the runner waits for a probe to settle before it reports the run unavailable itself (a probe bug). */
export const CHECK_PROBE_GRACE_MS = 1_000;

// --- remote.tcp, remote.ping and remote.dns checks (issue 11, helper H2b) ---
/** Highest TCP or UDP port number a check may name (ports run 1 to 65535). */
export const NETWORK_PORT_MAX = 65_535;
/** Longest remote.tcp send_body, in characters (the reference's limit). */
export const TCP_CHECK_SEND_BODY_LENGTH_MAX = 1024;
/** Longest remote.tcp banner_match or body_match regular expression, in characters (the reference's limit). */
export const TCP_CHECK_PATTERN_LENGTH_MAX = 255;
/** Most bytes a remote.tcp check reads for its banner line, and again for the body after it (the reference reads at most 1024). */
export const TCP_CHECK_READ_BYTES_MAX = 1024;
/** Fewest pings one remote.ping run sends. */
export const PING_CHECK_COUNT_MIN = 1;
/** Most pings one remote.ping run sends (the reference's limit). */
export const PING_CHECK_COUNT_MAX = 15;
/** Pings a remote.ping run sends when its details leave count out (the reference's default). */
export const PING_CHECK_COUNT_DEFAULT = 5;
/** Gap between two ICMP echo requests of one run: the shortest interval iputils ping grants every user. */
export const PING_INTERVAL_MS = 200;
/** Most bytes of output read from the ping program (15 reply lines and the summary take about 1.5 KiB); more kills it. */
export const PING_OUTPUT_BYTES_MAX = 16 * 1024;
/** Time kept back from the check timeout for the ping program to print its summary and exit before it is killed. */
export const PING_EXIT_MARGIN_MS = 500;
/** Longest wait for one TCP ping attempt (all its ports together), like ping's own one-second wait per port. */
export const PING_TCP_ATTEMPT_WAIT_MS_MAX = 2000;
/** Port a remote.dns check asks when its details leave port out. */
export const DNS_CHECK_PORT_DEFAULT = 53;
/** Longest remote.dns query name (a DNS name is at most 253 characters without its final dot). */
export const DNS_QUERY_LENGTH_MAX = 254;
/** Longest `answer` metric of a remote.dns check, in characters; longer answers are cut. */
export const DNS_CHECK_ANSWER_LENGTH_MAX = 1024;
assert(PING_CHECK_COUNT_MIN <= PING_CHECK_COUNT_DEFAULT && PING_CHECK_COUNT_DEFAULT <= PING_CHECK_COUNT_MAX, 'the default ping count is a valid count');
assert(PING_EXIT_MARGIN_MS < CHECK_TIMEOUT_S_MIN * 1000, 'the ping exit margin leaves the program part of the shortest timeout');
assert(DNS_CHECK_PORT_DEFAULT <= NETWORK_PORT_MAX, 'the default DNS port is a port');
assert(TCP_CHECK_PATTERN_LENGTH_MAX <= CHECK_DETAIL_TEXT_LENGTH_MAX && TCP_CHECK_SEND_BODY_LENGTH_MAX <= CHECK_DETAIL_TEXT_LENGTH_MAX, 'remote.tcp details fit the detail limit');
assert(CHECK_CONCURRENCY_DEFAULT <= CHECK_CONCURRENCY_MAX, 'the default check concurrency is an allowed one');
assert(CHECK_SINK_BATCH_POINTS <= INGEST_BATCH_POINTS_MAX && CHECK_SINK_BATCH_POINTS <= CHECK_SINK_PENDING_POINTS_MAX, 'a sink batch is one engine write and fits the pending bound');

// --- H4a: notification delivery (outbox, deliverer, webhook) ---
/** Attempts a delivery gets before it is a dead letter, by default (the reference documents a delivery failed after 10 attempts). */
export const DELIVERY_ATTEMPTS_DEFAULT = 10;
/** Most attempts a configuration may give a delivery before it is a dead letter. */
export const DELIVERY_ATTEMPTS_CEILING = 50;
/** First retry delay of a failed delivery, by default; it doubles with each failure. */
export const DELIVERY_RETRY_BASE_MS_DEFAULT = 1_000;
/** Longest retry delay of a failed delivery, by default. */
export const DELIVERY_RETRY_MAX_MS_DEFAULT = 5 * 60_000;
/** Longest retry delay a configuration may set. */
export const DELIVERY_RETRY_MAX_MS_CEILING = DAY_MS / 24;
/** Time one delivery attempt may take, by default, before it is aborted and counted as a retryable failure. */
export const DELIVERY_ATTEMPT_TIMEOUT_MS_DEFAULT = 10_000;
/** Longest attempt timeout a configuration may set. */
export const DELIVERY_ATTEMPT_TIMEOUT_MS_MAX = 60_000;
/** Time a channel has to settle once its attempt's signal aborted; past it the attempt is counted as timed out regardless. */
export const DELIVERY_SETTLE_GRACE_MS = 1_000;
/** Attempts running at once, by default (the deliverer's p-queue concurrency). */
export const DELIVERY_CONCURRENCY_DEFAULT = 16;
/** Most attempts a configuration may run at once. */
export const DELIVERY_CONCURRENCY_MAX = 256;
/** Most claimed deliveries in the deliverer at once, running or queued: its p-queue's bound. */
export const DELIVERY_QUEUE_MAX = 1_000;
/** Most due deliveries one turn of the delivery loop claims. */
export const DELIVERY_CLAIM_BATCH_MAX = 100;
/** Longest the delivery loop sleeps with nothing due: rows enqueued or retried without wake() are picked up this late at most. */
export const DELIVERY_POLL_INTERVAL_MS = 1_000;
/** Longest Deliverer.stop() waits for running attempts before it aborts them. */
export const DELIVERY_STOP_WAIT_MS_MAX = 10_000;
/** Longest last_error or attempt detail kept, in characters (longer text is cut). */
export const DELIVERY_ERROR_LENGTH_MAX = 512;
/** Most attempts GET /deliveries/{id} lists (the latest ones). */
export const DELIVERY_ATTEMPTS_SHOWN_MAX = 100;
/** Pending deliveries past which the outbox is over its depth: an enqueue is still recorded, but counted and logged; the age limit below drains it. */
export const OUTBOX_PENDING_MAX = 100_000;
/** The outbox measures its depth once every this many enqueues (a bounded count), not on each one. */
export const OUTBOX_DEPTH_CHECK_EVERY = 64;
/** A delivery still pending this long after it was enqueued becomes a dead letter ('expired') without further attempts. */
export const OUTBOX_PENDING_AGE_MAX_MS = DAY_MS;
/** Delivered and dead deliveries (with their attempts) are kept this long after their last change (the reference keeps notification history 30 days). */
export const OUTBOX_FINISHED_RETENTION_MS = 30 * DAY_MS;
/** Most deliveries one maintenance step prunes or expires. */
export const OUTBOX_PRUNE_BATCH_MAX = 500;
/** Time between two maintenance steps of the delivery loop (pruning and expiry); a full step is followed by another at once. */
export const OUTBOX_PRUNE_INTERVAL_MS = 60_000;
/** Most bytes of a webhook receiver's answer read (then discarded); the rest is not read. */
export const WEBHOOK_RESPONSE_BYTES_MAX = 64 * 1024;
assert(DELIVERY_ATTEMPTS_DEFAULT <= DELIVERY_ATTEMPTS_CEILING, 'the default attempt count is an allowed one');
assert(DELIVERY_RETRY_BASE_MS_DEFAULT <= DELIVERY_RETRY_MAX_MS_DEFAULT && DELIVERY_RETRY_MAX_MS_DEFAULT <= DELIVERY_RETRY_MAX_MS_CEILING, 'the default retry delays are allowed ones');
assert(DELIVERY_ATTEMPT_TIMEOUT_MS_DEFAULT <= DELIVERY_ATTEMPT_TIMEOUT_MS_MAX, 'the default attempt timeout is an allowed one');
assert(DELIVERY_CONCURRENCY_DEFAULT <= DELIVERY_CONCURRENCY_MAX && DELIVERY_CONCURRENCY_MAX <= DELIVERY_QUEUE_MAX, 'every allowed concurrency fits the claimed bound');
assert(DELIVERY_CLAIM_BATCH_MAX <= DELIVERY_QUEUE_MAX, 'one claimed batch fits the claimed bound');
assert(DELIVERY_ATTEMPTS_CEILING <= DELIVERY_ATTEMPTS_SHOWN_MAX, "one retry round's attempts are all shown");

// --- H4b: email, gateway, feed and managed notification channels ---
/** Most open SMTP connections one email channel keeps (nodemailer pool). */
export const SMTP_POOL_CONNECTIONS_MAX = 5;
/** Messages one pooled SMTP connection sends before it is replaced. */
export const SMTP_POOL_MESSAGES_PER_CONNECTION_MAX = 100;
/** An idle pooled SMTP connection is closed after this long. */
export const SMTP_POOL_IDLE_MS = 30_000;
/** Upper bound on connecting, the greeting and socket inactivity of a pooled SMTP connection: the longest attempt, so each attempt's own signal is what ends it. */
export const SMTP_TIMEOUT_MS = DELIVERY_ATTEMPT_TIMEOUT_MS_MAX;
/** Most sends one email channel holds queued or in progress; more fail (retryable) until some settle. */
export const SMTP_SENDS_PENDING_MAX = 256;
/** Longest email subject, in characters. */
export const ALERT_SUBJECT_LENGTH_MAX = 200;
/** Most metric or observation lines an alert body lists; the rest are counted in one line. */
export const ALERT_LIST_LINES_MAX = 50;
/** Longest SMS body, in characters (one GSM message). */
export const SMS_BODY_LENGTH_MAX = 160;
/** Longest incident description or state message sent to an incident gateway, in characters. */
export const INCIDENT_TEXT_LENGTH_MAX = 1024;
/** Upper bound on one gateway request (sms, incidentA, incidentB): the longest attempt, so each attempt's own signal is what ends it. */
export const GATEWAY_TIMEOUT_MS = DELIVERY_ATTEMPT_TIMEOUT_MS_MAX;
/** Longest error text a channel reports for a failed attempt, in characters. */
export const CHANNEL_ERROR_TEXT_LENGTH_MAX = 300;
assert(SMTP_SENDS_PENDING_MAX >= DELIVERY_CONCURRENCY_MAX, 'an email channel holds every attempt the deliverer may run at once');
assert(CHANNEL_ERROR_TEXT_LENGTH_MAX <= DELIVERY_ERROR_LENGTH_MAX, "a channel's error text fits the recorded error");

// --- Test runs (test-check, test of a saved check, test-alarm with check_id): outside the scheduler's queue, bounded on their own ---
/** Most on-demand test runs in flight in the process, every tenant together; more are refused with MONITORING_TEST_RUNS_BUSY (each run holds a socket or a ping process per zone up to its check's timeout). */
export const TEST_RUNS_CONCURRENCY_MAX = 16;
/** Most on-demand test runs one tenant may have in flight; more are refused with MONITORING_TEST_RUNS_BUSY, so one tenant cannot take every test slot. */
export const TEST_RUNS_PER_TENANT_MAX = 4;
assert(TEST_RUNS_PER_TENANT_MAX <= TEST_RUNS_CONCURRENCY_MAX, 'one tenant fits the test run concurrency');
assert(TEST_RUNS_CONCURRENCY_MAX <= CHECK_CONCURRENCY_DEFAULT, 'test runs are a small share next to the scheduled runs');

// --- Issue 19 (operating the monitoring): each helper adds its constants under its own heading below. ---
// --- suppressions ---
/** Most items in each target list of a suppression (entities, checks, alarms, notification_plans); the reference's older limit. */
export const SUPPRESSION_TARGETS_MAX = 256;
/** Longest `entityId:checkId` or `entityId:alarmId` target: two ids and the colon. */
export const SUPPRESSION_TARGET_LENGTH_MAX = 2 * OBJECT_ID_LENGTH_MAX + 1;
/** A start_time or end_time this little in the past is taken as now (the reference's allowance for clock skew and slow clients). */
export const SUPPRESSION_PAST_GRACE_MS = MINUTE_MS;
/** Latest start_time or end_time: the end of year 9999, the last year a cron schedule can name. */
export const SUPPRESSION_TIME_MS_MAX = 253_402_300_799_999;
/** Shortest occurrence of a recurring suppression. */
export const SUPPRESSION_DURATION_MS_MIN = MINUTE_MS;
/** Longest occurrence of a recurring suppression: bounds how far back activity looks for the occurrence covering a time. */
export const SUPPRESSION_DURATION_MS_MAX = 7 * DAY_MS;
/** Longest cron schedule text of a recurrence. */
export const SUPPRESSION_SCHEDULE_LENGTH_MAX = 128;
/** Longest IANA time zone name of a recurrence. */
export const SUPPRESSION_TIME_ZONE_LENGTH_MAX = 64;
/** Tenants whose suppressions the service keeps compiled in memory (least recently used dropped first). */
export const SUPPRESSION_CACHE_TENANTS_MAX = 1_024;
/** Most target items (the four lists of every suppression, ended ones until pruned or deleted) one tenant stores; bounds the tenant's in-memory index. */
export const SUPPRESSION_TARGET_ENTRIES_MAX = 20_000;
/** Most index entries (one per target item; about 0.25–1 KB of memory each) the in-memory indexes of every cached tenant hold together (least recently used tenants dropped first). */
export const SUPPRESSION_CACHE_KEYS_MAX = 100_000;
assert(4 * SUPPRESSION_TARGETS_MAX <= SUPPRESSION_TARGET_ENTRIES_MAX, 'one suppression with full lists fits a tenant');
assert(SUPPRESSION_TARGET_ENTRIES_MAX <= SUPPRESSION_CACHE_KEYS_MAX, "a tenant at its bound fits the cache's");
/** Window of a suppression log query without from and to (the reference: the last 7 days). */
export const SUPPRESSION_LOG_WINDOW_MS_DEFAULT = TIME_SERIES_WINDOW_MS_DEFAULT;
assert(SUPPRESSION_DURATION_MS_MIN < SUPPRESSION_DURATION_MS_MAX, 'a recurrence duration range is not empty');
// --- notification history and test notifications ---
/** How long notification history records (and the suppression logs and finished outbox rows kept with them) live by default (reference: 30 days). */
export const NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT = 30 * DAY_MS;
/** Shortest history retention `--history-retention` accepts: an hour, so a retried delivery is still shown. */
export const NOTIFICATION_HISTORY_RETENTION_MS_MIN = 60 * MINUTE_MS;
/** Longest history retention accepted: about a year of records per alarm. */
export const NOTIFICATION_HISTORY_RETENTION_MS_MAX = 366 * DAY_MS;
/**
 * Most check ids GET .../notification_history reads. Never reached: an alarm's check_id cannot
 * change (alarm-rules.ts) and ids are never reused, so every record of an alarm names its one
 * check and the list holds at most one id; the bound only keeps a damaged file's read finite.
 */
export const NOTIFICATION_HISTORY_CHECK_IDS_MAX = 100;
/** Most records one page of the history time series holds (its own, smaller than LIST_LIMIT_MAX: each record reads its deliveries); more is invalidLimit. */
export const NOTIFICATION_HISTORY_LIST_LIMIT_MAX = 100;
/** Latest attempts a history list page shows per delivery (with `attempt_count`; `attempts_truncated` when more exist); one item shows DELIVERY_ATTEMPTS_SHOWN_MAX. */
export const NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX = 10;
/** Most outbox and attempt rows one history list page may read, counted at their worst (each delivery: its row and NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX attempts); a page stops early, with a next_marker, before a record that would pass it. */
export const NOTIFICATION_HISTORY_PAGE_ROWS_MAX = 5_000;
/** Rows one retention prune step deletes per kind (history, suppression logs, ended suppressions, audits): the outbox's step size, by design. */
export const RETENTION_PRUNE_BATCH_MAX = OUTBOX_PRUNE_BATCH_MAX;
/** Test notifications in flight in the process, every tenant together; more are refused with MONITORING_TEST_RUNS_BUSY. */
export const TEST_NOTIFICATIONS_IN_FLIGHT_MAX = 16;
/** Test notifications one tenant may have in flight; more are refused with MONITORING_TEST_RUNS_BUSY. */
export const TEST_NOTIFICATIONS_PER_TENANT_MAX = 4;
assert(NOTIFICATION_HISTORY_RETENTION_MS_MIN <= NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT && NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT <= NOTIFICATION_HISTORY_RETENTION_MS_MAX, 'the default history retention is accepted');
assert(TIME_SERIES_WINDOW_MS_DEFAULT <= NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT, 'the default window lies within the default retention');
assert(NOTIFICATION_HISTORY_LIST_LIMIT_MAX <= LIST_LIMIT_MAX && NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX <= DELIVERY_ATTEMPTS_SHOWN_MAX, 'a history page is no larger than the general bounds');
assert(PLAN_STATE_NOTIFICATIONS_MAX * (1 + NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX) <= NOTIFICATION_HISTORY_PAGE_ROWS_MAX, 'one record with the most deliveries fits a page');
assert(TEST_NOTIFICATIONS_PER_TENANT_MAX <= TEST_NOTIFICATIONS_IN_FLIGHT_MAX, 'one tenant fits the test notification bound');
// --- alarm backtest ---
/** Longest range one backtest may ask for (7 days); longer is MONITORING_BACKTEST_TOO_LARGE. */
export const BACKTEST_RANGE_MS_MAX = 7 * DAY_MS;
/** Range a backtest replays when `from` is left out: this long before `to`. */
export const BACKTEST_DEFAULT_SPAN_MS = DAY_MS;
/** Most observations (one stored run of the check from one zone) one backtest replays; more is MONITORING_BACKTEST_TOO_LARGE. */
export const BACKTEST_OBSERVATIONS_MAX = 50_000;
/** Observations evaluated between two yields to the event loop. */
export const BACKTEST_STEP_OBSERVATIONS = 500;
/** Longest time slice read from the engine at once: 12 h, the most one FULL query may cover (QUERY_POINTS_MAX points at one per 30 s). */
export const BACKTEST_SLICE_MS = DAY_MS / 2;
/** Most points (estimated from the check's period) one slice may hold in memory; a check with many series reads shorter slices. */
export const BACKTEST_SLICE_POINTS_MAX = 200_000;
/** Most engine series of one check a backtest reads; more is MONITORING_BACKTEST_TOO_LARGE. */
export const BACKTEST_SERIES_MAX = 2_048;
/** Most backtests in flight in the process, every tenant together; more are refused with MONITORING_TEST_RUNS_BUSY. */
export const BACKTEST_CONCURRENCY_MAX = 4;
/** Most backtests one tenant may have in flight; more are refused with MONITORING_TEST_RUNS_BUSY. */
export const BACKTEST_PER_TENANT_MAX = 1;
assert(BACKTEST_STEP_OBSERVATIONS <= BACKTEST_OBSERVATIONS_MAX, 'a step fits the observation bound');
assert(BACKTEST_PER_TENANT_MAX <= BACKTEST_CONCURRENCY_MAX, 'one tenant fits the backtest concurrency');
/** How long a report serves the next pages of its backtest (ms): pages asked within it come from the same replay. */
export const BACKTEST_REPORT_TTL_MS = 5 * 60_000;
/** Reports kept, all tenants together; past it the oldest kept one goes. */
export const BACKTEST_REPORTS_KEPT_MAX = 16;
/** Changes kept in all reports together; a report with more is not kept (each of its pages replays again). */
export const BACKTEST_KEPT_CHANGES_MAX = 20_000;
// --- control surface (check types, alarm examples, views) ---
/** Longest string value an alarm example's field takes, in characters: a string literal of the alarm language holds at most 80 (STRING_LITERAL_LENGTH_MAX). */
export const ALARM_EXAMPLE_TEXT_LENGTH_MAX = 80;
/** Most digits an integer value of an alarm example's field has (zero padding included): 15 digits stay a safe integer. */
export const ALARM_EXAMPLE_INTEGER_DIGITS_MAX = 15;
/** Most keys the `values` of an alarm example fill may hold (no example has nearly as many fields). */
export const ALARM_EXAMPLE_VALUES_MAX = 16;
// --- account limits, rate limits and audits ---
/** Most checks one account may hold by default, every entity together (the reference documents 1,000). */
export const CHECKS_PER_TENANT_DEFAULT = 1_000;
/** Most alarms one account may hold by default, every entity together (the reference documents 10,000). */
export const ALARMS_PER_TENANT_DEFAULT = 10_000;
/** Most suppressions one account may hold by default (the reference documents none; as many as notifications). */
export const SUPPRESSIONS_PER_TENANT_DEFAULT = 1_000;
/** Highest account resource limit a configuration may set: the usage counts stay index ranges a create can afford. */
export const ACCOUNT_RESOURCE_LIMIT_MAX = 10_000_000;
/** The window of the monitoring API's request rate limits (the reference's "24 hours"); windows are aligned to multiples of it since the epoch (UTC midnight). */
export const RATE_LIMIT_WINDOW_MS = DAY_MS;
/** Requests of every kind one account may make to the monitoring API per window, by default (the reference's 50,000). */
export const RATE_LIMIT_GLOBAL_DEFAULT = 50_000;
/** test-check requests (and tests of a saved check) per window, by default (the reference's 500). */
export const RATE_LIMIT_TEST_CHECK_DEFAULT = 500;
/** test-alarm and backtest requests per window, by default (the reference's 500). */
export const RATE_LIMIT_TEST_ALARM_DEFAULT = 500;
/** Test notification requests per window, by default (the reference's 200). */
export const RATE_LIMIT_TEST_NOTIFICATION_DEFAULT = 200;
/** Highest request rate limit a configuration may set. */
export const RATE_LIMIT_MAX = 1_000_000_000;
/** Most accounts whose request counts one process keeps; past it the least recently active account's counts are forgotten (it is under-counted, never refused wrongly). */
export const RATE_LIMIT_TENANTS_MAX = 100_000;
/** How long audit records are kept by default (the reference keeps them 30 days). */
export const AUDIT_RETENTION_MS_DEFAULT = 30 * DAY_MS;
/** Shortest audit retention a configuration may set. */
export const AUDIT_RETENTION_MS_MIN = 60 * MINUTE_MS;
/** Longest audit retention a configuration may set. */
export const AUDIT_RETENTION_MS_MAX = 366 * DAY_MS;
/** Most bytes of a request body an audit record keeps (as redacted JSON); a longer one is cut and marked. */
export const AUDIT_BODY_BYTES_MAX = 16 * 1024;
/** Deepest nesting of a request body the audit redaction walks; anything deeper is recorded as a marker, never as it was sent. */
export const AUDIT_BODY_DEPTH_MAX = 32;
/** Longest header value, query value, _who or _why an audit record keeps, in characters (longer ones are cut). */
export const AUDIT_TEXT_LENGTH_MAX = 1024;
/** Most query parameters an audit record keeps, and most values of one repeated parameter (the rest are dropped). */
export const AUDIT_QUERY_KEYS_MAX = 64;
assert(AUDIT_RETENTION_MS_MIN <= AUDIT_RETENTION_MS_DEFAULT && AUDIT_RETENTION_MS_DEFAULT <= AUDIT_RETENTION_MS_MAX, 'the default audit retention is accepted');
assert(TIME_SERIES_WINDOW_MS_DEFAULT <= AUDIT_RETENTION_MS_DEFAULT, 'the default audit window lies within the default retention');
assert(AUDIT_BODY_BYTES_MAX <= MONITORING_BODY_BYTES_MAX, 'an audited body is cut no larger than a body may be');
assert(
  [CHECKS_PER_TENANT_DEFAULT, ALARMS_PER_TENANT_DEFAULT, SUPPRESSIONS_PER_TENANT_DEFAULT, ENTITIES_PER_TENANT_MAX, NOTIFICATIONS_PER_TENANT_MAX, PLANS_PER_TENANT_MAX].every((n) => n <= ACCOUNT_RESOURCE_LIMIT_MAX),
  'every default account limit is an accepted one',
);
assert(
  RATE_LIMIT_TEST_CHECK_DEFAULT <= RATE_LIMIT_GLOBAL_DEFAULT && RATE_LIMIT_TEST_ALARM_DEFAULT <= RATE_LIMIT_GLOBAL_DEFAULT && RATE_LIMIT_TEST_NOTIFICATION_DEFAULT <= RATE_LIMIT_GLOBAL_DEFAULT && RATE_LIMIT_GLOBAL_DEFAULT <= RATE_LIMIT_MAX,
  'the test buckets are shares of the global one by default',
);
// --- agent host info ---
/** How long a host info request waits for the connected agent's answer; beyond it the API answers 503 AGENT_REQUEST_TIMEOUT. */
export const HOST_INFO_TIMEOUT_MS = 10_000;
/** Most host info requests one agent may have in flight at once; more are refused at once (503 AGENT_HOST_INFO_BUSY), so API clients cannot fill the agent connection's request slots. */
export const HOST_INFO_IN_FLIGHT_PER_AGENT_MAX = 4;
/** Most host info requests in flight across the endpoint, every agent together; more are refused at once (503 AGENT_HOST_INFO_BUSY). */
export const HOST_INFO_IN_FLIGHT_MAX = 256;
assert(HOST_INFO_IN_FLIGHT_PER_AGENT_MAX <= HOST_INFO_IN_FLIGHT_MAX, 'one agent fits the endpoint-wide host info bound');
