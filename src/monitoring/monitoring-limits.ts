// Owns every limit of the monitoring API as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { DAY_MS } from '../core/time.js';

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
export const AGENT_TOKENS_PER_TENANT_MAX = 1_000;
/** An agent that has not connected for this long drops out of the agent list (spec 2.1). */
export const AGENT_RETENTION_MS = 30 * DAY_MS;
/** Window of a changelog query without from and to (spec section 8). */
export const CHANGELOG_WINDOW_MS_DEFAULT = 7 * DAY_MS;
/** Window over which a check metric's type is inferred from its values when none was declared. */
export const METRIC_TYPE_INFERENCE_WINDOW_MS = 2 * DAY_MS;

assert(LIST_LIMIT_DEFAULT <= LIST_LIMIT_MAX, 'the default page fits the largest page');
assert(CHECK_TIMEOUT_S_DEFAULT < CHECK_PERIOD_S_DEFAULT && CHECK_TIMEOUT_S_MIN < CHECK_PERIOD_S_MIN, 'a timeout stays below its period');
assert(CHECK_TIMEOUT_S_MIN <= CHECK_TIMEOUT_S_DEFAULT && CHECK_TIMEOUT_S_DEFAULT <= CHECK_TIMEOUT_S_MAX, 'the default timeout is a valid timeout');
assert(CHECK_PERIOD_S_MIN <= CHECK_PERIOD_S_DEFAULT && CHECK_PERIOD_S_DEFAULT <= CHECK_PERIOD_S_MAX, 'the default period is a valid period');
assert(EMAIL_LENGTH_MAX <= NOTIFICATION_DETAIL_LENGTH_MAX && SERVICE_KEY_LENGTH_MAX <= NOTIFICATION_DETAIL_LENGTH_MAX, 'every notification detail fits the detail limit');
