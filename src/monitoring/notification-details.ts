// Owns validating a notification's details per type exactly as spec 2.5's table says.
import { fieldError } from './monitoring-errors.js';
import { NOTIFICATION_DETAIL_LENGTH_MAX } from './monitoring-limits.js';
import { isObject, type JsonObject } from './field-rules.js';
import type { NotificationTypeId } from './notification-types.js';
import { isHttpUrl } from './url-rules.js';

/** An email address: one @, a local part and a dotted domain, no spaces, at most 254 characters (RFC 5321). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Longest email address (RFC 5321's path limit less the brackets). */
export const EMAIL_LENGTH_MAX = 254;
/** incidentA service_key: alphanumeric, 1 to 32 characters. */
export const SERVICE_KEY_PATTERN = /^[A-Za-z0-9]{1,32}$/;
/** sms phone_number: E.164 as spec 2.5 gives it. */
export const PHONE_PATTERN = /^[+][0-9]{6,15}$/;
/** incidentB api_key: a UUID version 4 (version digit 4, variant 8, 9, a or b). */
export const UUID_V4_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** incidentB routing_key as spec 2.5 gives it. */
export const ROUTING_KEY_PATTERN = /^[a-zA-Z0-9_.-]+$/;

/** One parameter rule: required or not, and the test of its value. */
interface ParamRule {
  readonly required: boolean;
  readonly valid: (value: string) => boolean;
  readonly what: string;
}

const RULES: Readonly<Record<NotificationTypeId, Readonly<Record<string, ParamRule>>>> = {
  email: { address: { required: true, valid: (v) => v.length <= EMAIL_LENGTH_MAX && EMAIL_PATTERN.test(v), what: 'an email address' } },
  webhook: { url: { required: true, valid: isHttpUrl, what: 'an http or https URL' } },
  incidentA: {
    service_key: { required: true, valid: (v) => SERVICE_KEY_PATTERN.test(v), what: '1 to 32 letters or digits' },
    service_endpoint: { required: false, valid: isHttpUrl, what: 'an http or https URL' },
  },
  sms: { phone_number: { required: true, valid: (v) => PHONE_PATTERN.test(v), what: 'a + followed by 6 to 15 digits' } },
  incidentB: {
    api_key: { required: true, valid: (v) => UUID_V4_PATTERN.test(v), what: 'a UUID version 4' },
    routing_key: { required: false, valid: (v) => ROUTING_KEY_PATTERN.test(v), what: 'letters, digits, underscore, dot or dash' },
  },
  eventFeed: { category: { required: true, valid: (v) => v.length > 0, what: 'a non-empty string' } },
  managed: {},
  technicalContactsEmail: {},
};

/** Validates `details` for a notification of `type`; names the key at fault (`details.url`). */
export function notificationDetails(type: NotificationTypeId, value: unknown): JsonObject {
  const details = value === undefined || value === null ? {} : value;
  if (!isObject(details)) throw fieldError('details', 'must be an object');
  const rules = RULES[type];
  for (const key of Object.keys(details)) {
    if (!Object.hasOwn(rules, key)) throw fieldError(`details.${key}`, `is not a parameter of ${type} notifications`);
  }
  for (const [key, rule] of Object.entries(rules)) {
    const param = details[key];
    if (param === undefined) {
      if (rule.required) throw fieldError(`details.${key}`, 'is required');
      continue;
    }
    if (typeof param !== 'string' || param.length > NOTIFICATION_DETAIL_LENGTH_MAX || !rule.valid(param)) {
      throw fieldError(`details.${key}`, `must be ${rule.what}`);
    }
  }
  return details;
}
