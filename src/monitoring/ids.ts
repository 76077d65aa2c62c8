// Owns monitoring object ids: the reference prefixes plus random letters and digits.
import { randomBytes, randomUUID } from 'node:crypto';

/** Prefix of each kind of object id, as the reference API uses them. */
export const ID_PREFIX = {
  entity: 'en',
  check: 'ch',
  alarm: 'al',
  notification: 'nt',
  plan: 'np',
  agentToken: 'at',
  connection: 'cn',
  suppression: 'sp',
} as const;

/** A kind of object with a prefixed id. */
export type IdKind = keyof typeof ID_PREFIX;

/** Random characters after the prefix: 62^8 ids per kind and tenant make collisions negligible. */
const ID_RANDOM_LENGTH = 8;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new id of `kind`, e.g. `enAb3dE9xQ`. */
export function newId(kind: IdKind): string {
  const bytes = randomBytes(ID_RANDOM_LENGTH * 2);
  let out: string = ID_PREFIX[kind];
  // Rejection sampling keeps the letters uniform: 248 is the largest multiple of 62 below 256.
  for (const byte of bytes) {
    if (out.length === ID_PREFIX[kind].length + ID_RANDOM_LENGTH) break;
    if (byte < 248) out += ALPHABET[byte % ALPHABET.length];
  }
  return out.length === ID_PREFIX[kind].length + ID_RANDOM_LENGTH ? out : newId(kind);
}

/** A new changelog entry id (UUID format, spec 2.6). */
export function newUuid(): string {
  return randomUUID();
}

