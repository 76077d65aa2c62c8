// Owns the rule shared by check and notification details: which detail names hold credentials, how reads show one, and a URL's password.
import { isEncrypted, type SecretBox, type SecretContext } from './secret-box.js';

/**
 * What reads show in place of a secret. Sent back in an update, it keeps the stored secret, so a
 * client may GET an object, change something and PUT it back without knowing the secret.
 */
export const REDACTED_SECRET = '[redacted]';

/**
 * Parts of a detail name (compared lower-cased, without '-', '_' and blanks) that mark its value
 * as a credential: remote.http's auth_password, the parameters agent checks take by any name (a
 * MySQL or Redis password, an API token), and the keys incident-management integrations
 * authenticate with (incidentA's service_key, also called an integration key; incidentB's api_key).
 * A false positive only hides a value on reads.
 */
const SECRET_NAME_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'privatekey',
  'credential',
  'servicekey',
  'integrationkey',
] as const;
/** Whole detail names that are credentials though no part above is in them. */
const SECRET_NAMES: ReadonlySet<string> = new Set(['pass', 'pwd']);
/** The user-info of an absolute URL that holds a password (`scheme://user:password@`): group 1 is `scheme://user:`. */
const URL_PASSWORD = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#@]*@/;

/** A name as the rules compare it: lower-cased, without '-', '_' and blanks. */
export function normalizedSecretName(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

/** True when a detail of this name holds a credential (its string value is encrypted at rest and redacted on reads). */
export function isSecretDetailName(name: string): boolean {
  const plain = normalizedSecretName(name);
  return SECRET_NAMES.has(plain) || SECRET_NAME_PARTS.some((part) => plain.includes(part));
}

/** True when `url` holds a password in its user-info (`https://user:password@host/`). */
export function urlHoldsPassword(url: string): boolean {
  return URL_PASSWORD.test(url);
}

/** `url` with the password of its user-info replaced by REDACTED_SECRET (for values stored before such URLs were refused). */
export function urlWithoutPassword(url: string): string {
  return url.replace(URL_PASSWORD, `$1${REDACTED_SECRET}@`);
}

/** A stored secret as it stays stored: an encrypted value as it is, plaintext of older data encrypted now. */
export function keptEncrypted(stored: string, box: SecretBox, context: SecretContext): string {
  return isEncrypted(stored) ? stored : box.encrypt(stored, context);
}
