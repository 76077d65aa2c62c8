// Property tests of encrypting secrets: any string decrypts exactly as encrypted; any altered byte or character, another key or another context fails with MONITORING_SECRET_UNREADABLE.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { isEncrypted, ENCRYPTED_PREFIX, SecretBox, type SecretContext } from '../../src/monitoring/secret-box.js';

const box = new SecretBox(randomBytes(32));
const CONTEXT: SecretContext = { tenant: 't1', field: 'details.auth_password' };
const BASE64URL_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Any JavaScript string: UTF-16 code units, lone surrogates included (a JSON body can carry them). */
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) }));

/** The code `decrypt` throws, asserting it throws a StrataError. */
function failureOf(encrypted: string, context: SecretContext = CONTEXT, by: SecretBox = box): string {
  try {
    by.decrypt(encrypted, context);
  } catch (error) {
    expect(isStrataError(error), String(error)).toBe(true);
    return (error as { code: string }).code;
  }
  return 'decrypted';
}

function bytesOf(encrypted: string): Buffer {
  return Buffer.from(encrypted.slice(ENCRYPTED_PREFIX.length), 'base64url');
}

function encryptedOf(bytes: Buffer): string {
  return `${ENCRYPTED_PREFIX}${bytes.toString('base64url')}`;
}

describe('SecretBox', () => {
  it('decrypts every string exactly as it was encrypted, and the encrypted text holds no plaintext', () => {
    fc.assert(
      fc.property(anyString, (secret) => {
        const encrypted = box.encrypt(secret, CONTEXT);
        expect(encrypted.startsWith(ENCRYPTED_PREFIX)).toBe(true);
        expect(isEncrypted(encrypted)).toBe(true);
        expect(box.decrypt(encrypted, CONTEXT)).toBe(secret);
        if (secret.length >= 4) expect(encrypted).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });

  it('encrypts the same secret differently each time (a fresh nonce), and both decrypt', () => {
    fc.assert(
      fc.property(anyString, (secret) => {
        const a = box.encrypt(secret, CONTEXT);
        const b = box.encrypt(secret, CONTEXT);
        expect(a).not.toBe(b);
        expect(bytesOf(a).subarray(0, 12).equals(bytesOf(b).subarray(0, 12))).toBe(false);
        expect([box.decrypt(a, CONTEXT), box.decrypt(b, CONTEXT)]).toEqual([secret, secret]);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a value with any byte flipped (nonce, ciphertext or tag)', () => {
    fc.assert(
      fc.property(anyString, fc.nat(), fc.integer({ min: 1, max: 255 }), (secret, at, mask) => {
        const bytes = bytesOf(box.encrypt(secret, CONTEXT));
        const index = at % bytes.length;
        bytes[index] = (bytes[index] as number) ^ mask;
        expect(failureOf(encryptedOf(bytes))).toBe('MONITORING_SECRET_UNREADABLE');
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a value with any character of its text changed, or cut short, or extended', () => {
    fc.assert(
      fc.property(anyString, fc.nat(), fc.constantFrom(...BASE64URL_CHARS, '=', '+', '/', ' ', '.'), (secret, at, replacement) => {
        const encrypted = box.encrypt(secret, CONTEXT);
        const index = ENCRYPTED_PREFIX.length + (at % (encrypted.length - ENCRYPTED_PREFIX.length));
        if (encrypted[index] !== replacement) {
          expect(failureOf(`${encrypted.slice(0, index)}${replacement}${encrypted.slice(index + 1)}`)).toBe('MONITORING_SECRET_UNREADABLE');
        }
        expect(failureOf(encrypted.slice(0, index))).toBe('MONITORING_SECRET_UNREADABLE');
        expect(failureOf(`${encrypted}${replacement}`)).toBe('MONITORING_SECRET_UNREADABLE');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a value encrypted under another key, or for another tenant or field', () => {
    const other = new SecretBox(randomBytes(32));
    fc.assert(
      fc.property(anyString, (secret) => {
        const encrypted = box.encrypt(secret, CONTEXT);
        expect(failureOf(encrypted, CONTEXT, other)).toBe('MONITORING_SECRET_UNREADABLE');
        expect(failureOf(encrypted, { ...CONTEXT, tenant: 't2' })).toBe('MONITORING_SECRET_UNREADABLE');
        expect(failureOf(encrypted, { ...CONTEXT, field: 'details.headers.authorization' })).toBe('MONITORING_SECRET_UNREADABLE');
      }),
      { numRuns: 100 },
    );
  });

  it('derives its key from the server key: the same server key decrypts, across instances', () => {
    const serverKey = randomBytes(32);
    const encrypted = new SecretBox(serverKey).encrypt('hunter2', CONTEXT);
    expect(new SecretBox(Buffer.from(serverKey)).decrypt(encrypted, CONTEXT)).toBe('hunter2');
  });

  it('refuses plaintext, an unknown version and malformed text, saying which', () => {
    const reasonOf = (text: string): unknown => {
      try {
        box.decrypt(text, CONTEXT);
      } catch (error) {
        return (error as { details: { reason: unknown; field: unknown } }).details;
      }
      return undefined;
    };
    expect(reasonOf('hunter2')).toEqual({ tenant: 't1', field: 'details.auth_password', reason: 'not an encrypted value' });
    expect(reasonOf('enc:v2:AAAA')).toMatchObject({ reason: 'unknown version' });
    expect(reasonOf('enc:v1:')).toMatchObject({ reason: 'malformed' });
    expect(reasonOf('enc:v1:AAAA')).toMatchObject({ reason: 'malformed' });
    expect(reasonOf(`${box.encrypt('x', CONTEXT)}==`)).toMatchObject({ reason: 'malformed' });
    expect(isEncrypted('hunter2')).toBe(false);
    expect(isEncrypted('enc:v9:x')).toBe(true);
  });

  it('says in its message what to look at, without the secret', () => {
    const encrypted = new SecretBox(randomBytes(32)).encrypt('hunter2', CONTEXT);
    expect(() => box.decrypt(encrypted, CONTEXT)).toThrow(/details\.auth_password.*monitoring\.key/);
    expect(() => box.decrypt(encrypted, CONTEXT)).not.toThrow(/hunter2/);
  });
});
