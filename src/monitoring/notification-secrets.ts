// Owns which notification details are credentials, and turning them encrypted for storage, redacted for reading, or decrypted for the notification sender.
import { isSecretDetailName, keptEncrypted, REDACTED_SECRET, urlHoldsPassword, urlWithoutPassword } from './detail-secrets.js';
import { fieldError } from './monitoring-errors.js';
import type { NotificationTypeId } from './notification-types.js';
import type { NotificationDetails } from './schemas/notification-details-schema.js';
import { isEncrypted, type SecretBox, type SecretContext } from './secret-box.js';

/**
 * Details that are secrets as a whole though their name is not a credential's: a webhook's url.
 * Webhooks commonly carry their credential in the URL itself (a token in the path or the query, or
 * `user:password@`), which no rule can tell from an ordinary path, and the webhook type has no other
 * field a credential could move to; so the whole URL is sealed and redacted.
 */
const WHOLE_SECRET_DETAILS: Readonly<Partial<Record<NotificationTypeId, string>>> = { webhook: 'url' };

/**
 * URL details shown on reads, with the secret detail a password in them belongs in instead: a URL
 * holding one is refused, as a check's url is.
 */
const SHOWN_URLS: Readonly<Partial<Record<NotificationTypeId, { readonly url: string; readonly secret: string }>>> = {
  incidentA: { url: 'service_endpoint', secret: 'service_key' },
};

/**
 * True when the detail `name` of a `type` notification is a secret: named like a credential by
 * the rule check details follow (detail-secrets.ts: incidentA's service_key, incidentB's api_key),
 * or a webhook's url.
 */
export function isSecretNotificationDetail(type: NotificationTypeId, name: string): boolean {
  return WHOLE_SECRET_DETAILS[type] === name || isSecretDetailName(name);
}

/**
 * The context a notification secret is encrypted for. `notification.` keeps it apart from check
 * details of the same name (an agent check's api_key): a value copied between them does not decrypt.
 */
function contextOf(tenant: string, name: string): SecretContext {
  return { tenant, field: `notification.details.${name}` };
}

/** `details` with `change` applied to every secret in it; the same object when nothing changes. */
function mapSecrets(type: NotificationTypeId, details: NotificationDetails, change: (value: string, name: string) => string): NotificationDetails {
  let changed = false;
  // Object.fromEntries defines keys, so no key can reach a prototype.
  const entries = Object.entries(details).map(([name, value]): [string, string] => {
    if (typeof value !== 'string' || !isSecretNotificationDetail(type, name)) return [name, value];
    const next = change(value, name);
    changed ||= next !== value;
    return [name, next];
  });
  return changed ? Object.fromEntries(entries) : details;
}

/**
 * Details from a request body, ready to store: every secret encrypted for `tenant`. A secret sent
 * as REDACTED_SECRET keeps the one stored under the same name in `stored` (the details before an
 * update, when the type stays), and is refused where none is stored. A shown URL holding a password
 * is refused, naming the secret detail that is stored encrypted.
 */
export function encryptGivenNotificationDetails(
  type: NotificationTypeId,
  given: NotificationDetails,
  stored: NotificationDetails | undefined,
  box: SecretBox,
  tenant: string,
): NotificationDetails {
  const shown = SHOWN_URLS[type];
  const url = shown === undefined ? undefined : given[shown.url];
  if (shown !== undefined && typeof url === 'string' && urlHoldsPassword(url)) {
    throw fieldError(`details.${shown.url}`, `must not hold a password (user:password@), since it is shown on reads; the integration authenticates with ${shown.secret}, which is stored encrypted`);
  }
  return mapSecrets(type, given, (value, name) => {
    if (value !== REDACTED_SECRET) return box.encrypt(value, contextOf(tenant, name));
    const kept = stored !== undefined && Object.hasOwn(stored, name) ? stored[name] : undefined;
    if (typeof kept !== 'string') throw fieldError(`details.${name}`, `${REDACTED_SECRET} keeps a stored secret, and none is stored here; send the secret itself`);
    return keptEncrypted(kept, box, contextOf(tenant, name));
  });
}

/** Stored details as they stay stored: plaintext secrets of older data encrypted (the same object when there is none). */
export function encryptStoredNotificationDetails(type: NotificationTypeId, stored: NotificationDetails, box: SecretBox, tenant: string): NotificationDetails {
  return mapSecrets(type, stored, (value, name) => keptEncrypted(value, box, contextOf(tenant, name)));
}

/** Details as reads show them: every secret, encrypted or not, as REDACTED_SECRET; a password in an older shown URL masked too. */
export function redactNotificationDetails(type: NotificationTypeId, stored: NotificationDetails): NotificationDetails {
  const redacted = mapSecrets(type, stored, () => REDACTED_SECRET);
  const shown = SHOWN_URLS[type];
  const url = shown === undefined ? undefined : redacted[shown.url];
  if (shown === undefined || typeof url !== 'string' || !urlHoldsPassword(url)) return redacted;
  return { ...redacted, [shown.url]: urlWithoutPassword(url) };
}

/** Details with every secret in plaintext, for the notification sender; throws MONITORING_SECRET_UNREADABLE for a value that does not decrypt. */
export function decryptNotificationDetails(type: NotificationTypeId, stored: NotificationDetails, box: SecretBox, tenant: string): NotificationDetails {
  return mapSecrets(type, stored, (value, name) => (isEncrypted(value) ? box.decrypt(value, contextOf(tenant, name)) : value));
}
