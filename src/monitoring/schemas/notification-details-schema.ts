// Owns the JSON schema of each notification type's details exactly as spec 2.5's table gives them.
import { REDACTED_SECRET } from '../detail-secrets.js';
import { EMAIL_LENGTH_MAX, NOTIFICATION_DETAIL_LENGTH_MAX, SERVICE_KEY_LENGTH_MAX } from '../monitoring-limits.js';
import { isSecretNotificationDetail } from '../notification-secrets.js';
import { notificationType, type NotificationTypeId } from '../notification-types.js';
import { HTTP_URL_PATTERN } from './field-schemas.js';
import type { JsonSchema } from './json-schema.js';

/** An email address: one @, a local part and a dotted domain, no spaces. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$';
/** incidentA service_key: letters and digits. */
export const SERVICE_KEY_PATTERN = '^[A-Za-z0-9]+$';
/** sms phone_number: E.164 as spec 2.5 gives it. */
export const PHONE_PATTERN = '^[+][0-9]{6,15}$';
/** incidentB api_key: a UUID version 4 in either case (version digit 4, variant 8, 9, a or b). */
export const UUID_V4_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
/** incidentB routing_key as spec 2.5 gives it. */
export const ROUTING_KEY_PATTERN = '^[a-zA-Z0-9_.-]+$';

/** A notification's details as stored: parameter names to strings. */
export type NotificationDetails = Readonly<Record<string, string>>;

/** How reads show a secret, and what sending that back does (docs/monitoring-api.md, "Notification secrets"). */
const SECRET_NOTE = `Stored encrypted; reads show ${JSON.stringify(REDACTED_SECRET)}, and ${JSON.stringify(REDACTED_SECRET)} sent back in an update keeps the stored value.`;

/**
 * A parameter's schema with the description operation 7 lists (one text for the type list and the
 * API document). A secret parameter also admits REDACTED_SECRET, which a GET showed and a PUT may
 * send back; the service keeps the stored value for it, or refuses it where none is stored.
 */
function described(type: NotificationTypeId, name: string, schema: JsonSchema): JsonSchema {
  const listed = notificationType(type)?.fields?.find((field) => field.name === name)?.description;
  if (!isSecretNotificationDetail(type, name)) return listed === undefined ? schema : { ...schema, description: listed };
  return { anyOf: [schema, { type: 'string', const: REDACTED_SECRET }], description: listed === undefined ? SECRET_NOTE : `${listed} ${SECRET_NOTE}` };
}

/** Details of `type`: `params` (name to schema) and no other keys, those named in `required` required. */
function details(type: NotificationTypeId, params: Readonly<Record<string, JsonSchema>>, required: readonly string[]): JsonSchema {
  const names = Object.keys(params);
  return {
    type: ['object', 'null'],
    additionalProperties: false,
    required,
    properties: Object.fromEntries(Object.entries(params).map(([name, schema]) => [name, described(type, name, schema)])),
    description: names.length === 0 ? `${type} notifications take no parameters.` : `Parameters of a ${type} notification: ${names.join(', ')}.`,
  };
}

const HTTP_URL: JsonSchema = { type: 'string', minLength: 1, maxLength: NOTIFICATION_DETAIL_LENGTH_MAX, pattern: HTTP_URL_PATTERN };

/** The details schema of every notification type. */
export const NOTIFICATION_DETAILS_SCHEMAS: Readonly<Record<NotificationTypeId, JsonSchema>> = {
  email: details('email', { address: { type: 'string', minLength: 1, maxLength: EMAIL_LENGTH_MAX, pattern: EMAIL_PATTERN } }, ['address']),
  webhook: details('webhook', { url: HTTP_URL }, ['url']),
  incidentA: details(
    'incidentA',
    { service_key: { type: 'string', minLength: 1, maxLength: SERVICE_KEY_LENGTH_MAX, pattern: SERVICE_KEY_PATTERN }, service_endpoint: HTTP_URL },
    ['service_key'],
  ),
  sms: details('sms', { phone_number: { type: 'string', pattern: PHONE_PATTERN } }, ['phone_number']),
  incidentB: details(
    'incidentB',
    { api_key: { type: 'string', pattern: UUID_V4_PATTERN }, routing_key: { type: 'string', maxLength: NOTIFICATION_DETAIL_LENGTH_MAX, pattern: ROUTING_KEY_PATTERN } },
    ['api_key'],
  ),
  eventFeed: details('eventFeed', { category: { type: 'string', minLength: 1, maxLength: NOTIFICATION_DETAIL_LENGTH_MAX } }, ['category']),
  managed: details('managed', {}, []),
  technicalContactsEmail: details('technicalContactsEmail', {}, []),
};
