// Owns encrypting secrets at rest: AES-256-GCM under a key derived from the server's monitoring.key, stored as versioned `enc:v1:` text.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { StrataError } from '../core/errors.js';

/** Prefix of an encrypted value: the scheme and its version, so a later scheme can sit beside this one. */
export const ENCRYPTED_PREFIX = 'enc:v1:';
/** Any encrypted value, of this version or another; text without it is plaintext (stored before encryption existed). */
const ANY_ENCRYPTED_PREFIX = /^enc:v\d+:/;

const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;
/** 96-bit nonces, random per value: GCM's native size. A key encrypts far fewer than the 2^32 values random nonces allow. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/**
 * HKDF-SHA-256 info label of the encryption key. The server key also keys agent token values
 * (HMAC-SHA-256); a distinct label makes this key independent of that use, and a new version
 * takes a new label (and prefix).
 */
const KEY_INFO = 'strata/monitoring/check-secrets/aes-256-gcm/v1';
/**
 * How a secret's text becomes bytes: UTF-16 code units as they are, so every JavaScript string
 * (a lone surrogate from a JSON escape included) decrypts exactly as given; UTF-8 would replace one.
 */
const PLAINTEXT_ENCODING = 'utf16le';
/** Canonical unpadded base64url: anything else (padding, stray characters) was not written here. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Where an encrypted value belongs; it is authenticated with the value, so a value copied elsewhere does not decrypt. */
export interface SecretContext {
  readonly tenant: string;
  /** The field the value is stored in, e.g. `details.auth_password`. */
  readonly field: string;
}

function unreadable(context: SecretContext, reason: string): StrataError {
  return new StrataError(
    'MONITORING_SECRET_UNREADABLE',
    `The stored secret ${context.field} cannot be decrypted (${reason}): monitoring.key is not the key it was encrypted with, or the stored value was altered.`,
    { tenant: context.tenant, field: context.field, reason },
  );
}

/** The additional authenticated data of a context: a NUL cannot occur in a tenant id, so the join is unambiguous. */
function aadOf(context: SecretContext): Buffer {
  return Buffer.from(`${context.tenant}\u0000${context.field}`, 'utf8');
}

/** True when stored text is an encrypted value (of any version), not plaintext. */
export function isEncrypted(stored: string): boolean {
  return ANY_ENCRYPTED_PREFIX.test(stored);
}

/** Encrypts and decrypts secrets with one key derived from the server's secret key. */
export class SecretBox {
  private readonly key: Buffer;

  /** `serverKey`: the 32 bytes of monitoring.key (token-key.ts). */
  constructor(serverKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), KEY_INFO, KEY_BYTES));
  }

  /** `enc:v1:` then base64url of nonce, ciphertext and tag; a fresh nonce each time, so equal secrets encrypt differently. */
  encrypt(plaintext: string, context: SecretContext): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(CIPHER, this.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadOf(context));
    const body = Buffer.concat([cipher.update(plaintext, PLAINTEXT_ENCODING), cipher.final()]);
    return `${ENCRYPTED_PREFIX}${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The plaintext of an encrypted value. Throws MONITORING_SECRET_UNREADABLE when it is of an unknown
   * version, malformed, altered in any byte, encrypted for another context or under another key:
   * GCM's tag makes each of these a failure, never a wrong plaintext.
   */
  decrypt(stored: string, context: SecretContext): string {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) throw unreadable(context, isEncrypted(stored) ? 'unknown version' : 'not an encrypted value');
    const text = stored.slice(ENCRYPTED_PREFIX.length);
    if (!BASE64URL.test(text)) throw unreadable(context, 'malformed');
    const bytes = Buffer.from(text, 'base64url');
    if (bytes.length < NONCE_BYTES + TAG_BYTES || bytes.toString('base64url') !== text) throw unreadable(context, 'malformed');
    const decipher = createDecipheriv(CIPHER, this.key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(aadOf(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString(PLAINTEXT_ENCODING);
    } catch {
      throw unreadable(context, 'authentication failed');
    }
  }
}
