// Owns secret material: generating API keys, tokens and ids, hashing them, comparing in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Random bytes in a generated token: 128 bits, printed as 32 hex digits like the reference's ids. */
const TOKEN_BYTES = 16;
/** Random bytes in a generated API key. */
const API_KEY_BYTES = 16;
/** Random bytes in a user id. */
const USER_ID_BYTES = 8;

/** SHA-256 of a secret: the only form in which API keys and tokens are stored. */
export function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** True when two hashes are equal, compared in time independent of where they differ. */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  // timingSafeEqual throws on length mismatch; SHA-256 digests are always 32 bytes, so a mismatch
  // is a corrupt row and simply compares unequal.
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new random token id (32 hex digits). */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('hex');
}

/** A new random API key (32 hex digits). */
export function newApiKey(): string {
  return randomBytes(API_KEY_BYTES).toString('hex');
}

/** A new random user id (16 hex digits). */
export function newUserId(): string {
  return randomBytes(USER_ID_BYTES).toString('hex');
}

/** A fixed hash compared against when a username is unknown, so unknown and wrong keys cost the same. */
export const ABSENT_KEY_HASH: Buffer = sha256('strata: no such user');
