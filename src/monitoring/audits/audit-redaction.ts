// Owns what an audit record keeps of a request's body and query: every secret replaced, URLs without credentials, depth and size bounded.
import { isSecretHeaderName } from '../check-secrets.js';
import { isSecretDetailName, normalizedSecretName, REDACTED_SECRET } from '../detail-secrets.js';
import { AUDIT_BODY_BYTES_MAX, AUDIT_BODY_DEPTH_MAX } from '../monitoring-limits.js';
import { isSecretNotificationDetail } from '../notification-secrets.js';
import { NOTIFICATION_TYPE_IDS } from '../notification-types.js';

/** What stands in for a value nested deeper than AUDIT_BODY_DEPTH_MAX. */
export const TOO_DEEP = '[too deep]';

/** Names (compared as detail-secrets.ts compares them) that carry credentials in any object, besides the detail-name rule. */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set(['authorization', 'proxyauthorization', 'cookie', 'setcookie']);
/** The key of request-header maps (remote.http's details.headers): inside one, every credential-bearing header name is a secret. */
const HEADERS_KEY = 'headers';

/**
 * True when a value under `key` (inside the object under `parentKey`) is a secret in an audit
 * record. One rule with the stored objects' (detail-secrets.ts: password, token, secret, api_key,
 * service_key; check-secrets.ts for the names inside a `headers` map: authorization, cookies,
 * X-Auth-*), plus authorization and cookies anywhere, and every name that is or ends in "key"
 * (key, routing_key, integration_key): an audit body may come from any route, valid or not, so
 * the rule is wider than the stored one. A false positive only hides a value.
 */
export function isAuditSecretKey(key: string, parentKey?: string): boolean {
  const plain = normalizedSecretName(key);
  if (isSecretDetailName(key) || plain.endsWith('key') || CREDENTIAL_NAMES.has(plain)) return true;
  return parentKey !== undefined && normalizedSecretName(parentKey) === HEADERS_KEY && isSecretHeaderName(key);
}

/** True when a notification of some type keeps the detail `name` secret as a whole (a webhook's url). */
function isNotificationSecret(name: string): boolean {
  return NOTIFICATION_TYPE_IDS.some((type) => isSecretNotificationDetail(type, name));
}

/**
 * Absolute URLs inside text: scheme (group 1), authority and path (group 2), query (group 3) and
 * fragment (group 4). A URL ends at white space, a quote or an angle bracket.
 */
const URL_IN_TEXT = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s"'<>?#]*)(\?[^\s"'<>#]*)?(#[^\s"'<>]*)?/g;

/**
 * `text` with the credentials of every URL in it replaced: its user-info (everything before the last
 * `@` of authority and path, so a password holding `@` or `/` is covered too), its query string
 * (where tokens travel) and its fragment. Host and path stay, so the record still says where a
 * check or notification points.
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (_all, scheme: string, rest: string, query: string | undefined, fragment: string | undefined) => {
    const at = rest.lastIndexOf('@');
    const place = at === -1 ? rest : `${REDACTED_SECRET}@${rest.slice(at + 1)}`;
    return `${scheme}${place}${query === undefined ? '' : `?${REDACTED_SECRET}`}${fragment === undefined ? '' : `#${REDACTED_SECRET}`}`;
  });
}

/** How a body is read: whether it is a notification's (whose details hold secrets by type, such as a webhook's whole url). */
export interface RedactionContext {
  readonly notification: boolean;
}

/**
 * A copy of a parsed JSON value with every secret replaced by REDACTED_SECRET: any value (object,
 * array or scalar) under a secret key, every detail of a notification body that some notification
 * type keeps secret, and the credentials of URLs in strings. Values nested deeper than
 * AUDIT_BODY_DEPTH_MAX become TOO_DEEP. Keys are copied as data (Object.fromEntries defines them),
 * so none reaches a prototype.
 */
export function redactValue(value: unknown, context: RedactionContext, depth = 0, parentKey?: string): unknown {
  if (depth > AUDIT_BODY_DEPTH_MAX) return TOO_DEEP;
  if (typeof value === 'string') return redactUrls(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, context, depth + 1, parentKey));
  const inDetails = context.notification && depth === 1 && parentKey === 'details';
  const entries = Object.entries(value as Record<string, unknown>).map(([key, item]): [string, unknown] => {
    if (isAuditSecretKey(key, parentKey) || (inDetails && isNotificationSecret(key))) return [key, REDACTED_SECRET];
    return [key, redactValue(item, context, depth + 1, key)];
  });
  return Object.fromEntries(entries);
}

/** The marker ending a body cut at AUDIT_BODY_BYTES_MAX: how many bytes the whole had. */
function cutMarker(totalBytes: number): string {
  return `…[cut: ${totalBytes} bytes]`;
}

/** `text` cut to at most `maxBytes` bytes of UTF-8, never inside a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) so the cut falls between characters.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * The body an audit record keeps: the redacted value as JSON text, or null without a body. Text
 * longer than AUDIT_BODY_BYTES_MAX bytes is cut, and a marker with the full size ends it (the cut
 * text is then no longer JSON).
 */
export function auditBodyText(body: unknown, context: RedactionContext): string | null {
  if (body === undefined || body === null) return null;
  const text = JSON.stringify(redactValue(body, context)) ?? null;
  if (text === null) return null;
  const totalBytes = Buffer.byteLength(text, 'utf8');
  if (totalBytes <= AUDIT_BODY_BYTES_MAX) return text;
  const marker = cutMarker(totalBytes);
  return `${cutUtf8(text, AUDIT_BODY_BYTES_MAX - Buffer.byteLength(marker, 'utf8'))}${marker}`;
}
