// Owns which check details are credentials, and turning them encrypted for storage, redacted for reading, or decrypted for the check runner.
import type { CheckDetails, CheckDetailValue } from './check-types.js';
import { isSecretDetailName, keptEncrypted, normalizedSecretName, REDACTED_SECRET, urlHoldsPassword, urlWithoutPassword } from './detail-secrets.js';
import { fieldError } from './monitoring-errors.js';
import { isEncrypted, type SecretBox } from './secret-box.js';

/**
 * Parts of a remote.http header name that mark it as carrying credentials besides the detail-name
 * rule (detail-secrets.ts): Authorization and Proxy-Authorization (basic and bearer credentials),
 * X-Auth-*, cookies, session ids and request signatures.
 */
const SECRET_HEADER_PARTS = ['auth', 'cookie', 'session', 'signature'] as const;
/** The detail holding remote.http's request headers: a map whose credential-bearing values are secrets. */
const HEADERS_KEY = 'headers';

/** True when a remote.http request header of this name carries credentials. */
export function isSecretHeaderName(name: string): boolean {
  const plain = normalizedSecretName(name);
  return isSecretDetailName(name) || SECRET_HEADER_PARTS.some((part) => plain.includes(part));
}

/** Where one secret sits: the key a client sees in errors, and the field its encryption is bound to. */
interface Slot {
  /** `details.auth_password`, or `details.headers` for a header (the map, as field errors name maps). */
  readonly key: string;
  /** The field the encrypted value is bound to; header names are case-insensitive, so lower-cased. */
  readonly field: string;
  /** The header's name, for a header. */
  readonly header?: string;
}

function isStringMap(value: CheckDetailValue | undefined): value is Readonly<Record<string, string>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `details` with `change` applied to every secret string in it; the same object when nothing
 * changes. Built with Object.fromEntries, which defines keys, so no key can reach a prototype.
 */
function mapSecrets(details: CheckDetails, change: (value: string, slot: Slot) => string): CheckDetails {
  let changed = false;
  const entries = Object.entries(details).map(([key, value]): [string, CheckDetailValue] => {
    if (typeof value === 'string' && isSecretDetailName(key)) {
      const next = change(value, { key: `details.${key}`, field: `details.${key}` });
      changed ||= next !== value;
      return [key, next];
    }
    if (key !== HEADERS_KEY || !isStringMap(value)) return [key, value];
    const headers = Object.entries(value).map(([name, text]): [string, string] => {
      if (!isSecretHeaderName(name)) return [name, text];
      const next = change(text, { key: `details.${HEADERS_KEY}`, field: `details.${HEADERS_KEY}.${name.toLowerCase()}`, header: name });
      changed ||= next !== text;
      return [name, next];
    });
    return [key, Object.fromEntries(headers)];
  });
  return changed ? Object.fromEntries(entries) : details;
}

/** The stored value of the secret at `slot` in `stored` details (a header matched exactly, else ignoring case), if any. */
function storedAt(stored: CheckDetails | undefined, slot: Slot): string | undefined {
  if (stored === undefined) return undefined;
  if (slot.header === undefined) {
    const key = slot.key.slice('details.'.length);
    const value = Object.hasOwn(stored, key) ? stored[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  const headers = stored[HEADERS_KEY];
  if (!isStringMap(headers)) return undefined;
  if (Object.hasOwn(headers, slot.header)) return headers[slot.header];
  const lower = slot.header.toLowerCase();
  return Object.entries(headers).find(([name]) => name.toLowerCase() === lower)?.[1];
}

/** A stored secret as it stays stored (detail-secrets.ts), bound to its slot. */
function keptAt(stored: string, slot: Slot, box: SecretBox, tenant: string): string {
  return keptEncrypted(stored, box, { tenant, field: slot.field });
}

/**
 * Details from a request body, ready to store: every secret encrypted for `tenant`. A secret sent as
 * REDACTED_SECRET keeps the one stored at the same place in `stored` (the check's details before
 * an update), and is refused where none is stored. A url holding a password is refused: a URL is
 * shown on reads, so the password belongs in auth_password, which is encrypted.
 */
export function encryptGivenDetails(given: CheckDetails, stored: CheckDetails | undefined, box: SecretBox, tenant: string): CheckDetails {
  const url = given['url'];
  if (typeof url === 'string' && urlHoldsPassword(url)) {
    throw fieldError('details.url', 'must not hold a password (user:password@); give it as auth_password, which is stored encrypted');
  }
  return mapSecrets(given, (value, slot) => {
    if (value !== REDACTED_SECRET) return box.encrypt(value, { tenant, field: slot.field });
    const kept = storedAt(stored, slot);
    if (kept === undefined) {
      const where = slot.header === undefined ? '' : `${JSON.stringify(slot.header)}: `;
      throw fieldError(slot.key, `${where}${REDACTED_SECRET} keeps a stored secret, and none is stored here; send the secret itself`);
    }
    return keptAt(kept, slot, box, tenant);
  });
}

/** Stored details as they stay stored: plaintext secrets of older data encrypted (the same object when there is none). */
export function encryptStoredDetails(stored: CheckDetails, box: SecretBox, tenant: string): CheckDetails {
  return mapSecrets(stored, (value, slot) => keptAt(value, slot, box, tenant));
}

/** Details as reads show them: every secret, encrypted or not, as REDACTED_SECRET; a password in an older url masked too. */
export function redactDetails(stored: CheckDetails): CheckDetails {
  const redacted = mapSecrets(stored, () => REDACTED_SECRET);
  const url = redacted['url'];
  if (typeof url !== 'string' || !urlHoldsPassword(url)) return redacted;
  return { ...redacted, url: urlWithoutPassword(url) };
}

/** Details with every secret in plaintext, for the check runner; throws MONITORING_SECRET_UNREADABLE for a value that does not decrypt. */
export function decryptDetails(stored: CheckDetails, box: SecretBox, tenant: string): CheckDetails {
  return mapSecrets(stored, (value, slot) => (isEncrypted(value) ? box.decrypt(value, { tenant, field: slot.field }) : value));
}
