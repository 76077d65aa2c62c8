// Owns the rules of account settings a schema cannot state: the account id, generated webhook tokens, the secret's context, merging an update.
import { createHash, randomBytes } from 'node:crypto';
import { keep } from '../body-merge.js';
import { WEBHOOK_TOKEN_LENGTH_GENERATED, WEBHOOK_TOKEN_LENGTH_MAX, WEBHOOK_TOKEN_LENGTH_MIN } from '../monitoring-limits.js';
import type { Metadata } from '../schemas/field-schemas.js';
import type { SecretContext } from '../secret-box.js';
import type { AccountUpdate } from './account-schema.js';

/** Letters and digits: the alphabet of account ids and generated webhook tokens. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A webhook token: letters and digits only (it travels in an HTTP header), WEBHOOK_TOKEN_LENGTH_MIN to _MAX of them. */
export const WEBHOOK_TOKEN_PATTERN = `^[A-Za-z0-9]{${WEBHOOK_TOKEN_LENGTH_MIN},${WEBHOOK_TOKEN_LENGTH_MAX}}$`;
/** Prefix of account ids, in the style of the reference's object ids. */
export const ACCOUNT_ID_PREFIX = 'ac';
/** Characters after the prefix of an account id. */
const ACCOUNT_ID_RANDOM_LENGTH = 8;
/** Domain label hashed with the tenant, so an account id is not the bare hash of a tenant name some other feature might use. */
const ACCOUNT_ID_LABEL = 'strata/monitoring/account-id/v1';
/** The largest multiple of the alphabet's size below 256: bytes at or above it are skipped, so each letter is equally likely. */
const UNBIASED_BYTE_LIMIT = 256 - (256 % ALPHABET.length);

/** The stored fields of an account besides its token. */
export interface AccountFields {
  readonly technicalContacts: readonly string[];
  readonly metadata: Metadata | null;
}

/**
 * The id of a tenant's account: `ac` and 8 letters or digits derived from the tenant with SHA-256,
 * so it is the same for the tenant on every server and needs no storage. Not a secret: the tenant
 * is known to whoever may see the account.
 */
export function accountIdOf(tenant: string): string {
  const digest = createHash('sha256').update(`${ACCOUNT_ID_LABEL}\u0000${tenant}`, 'utf8').digest();
  let value = BigInt(`0x${digest.subarray(0, 16).toString('hex')}`);
  let out = ACCOUNT_ID_PREFIX;
  const base = BigInt(ALPHABET.length);
  for (let i = 0; i < ACCOUNT_ID_RANDOM_LENGTH; i += 1) {
    out += ALPHABET[Number(value % base)];
    value /= base;
  }
  return out;
}

/** A fresh webhook token: WEBHOOK_TOKEN_LENGTH_GENERATED letters or digits from the system's CSPRNG, uniformly. */
export function newWebhookToken(): string {
  let out = '';
  while (out.length < WEBHOOK_TOKEN_LENGTH_GENERATED) {
    for (const byte of randomBytes(WEBHOOK_TOKEN_LENGTH_GENERATED * 2)) {
      if (out.length === WEBHOOK_TOKEN_LENGTH_GENERATED) break;
      if (byte < UNBIASED_BYTE_LIMIT) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

/** True when `token` is a valid webhook token (WEBHOOK_TOKEN_PATTERN). */
export function isWebhookToken(token: string): boolean {
  return new RegExp(WEBHOOK_TOKEN_PATTERN).test(token);
}

/**
 * Where a tenant's webhook token is encrypted for: the tenant and `account.webhook_token` are
 * authenticated with the value, so a value copied to another tenant, or into a check or
 * notification detail, does not decrypt.
 */
export function webhookTokenContext(tenant: string): SecretContext {
  return { tenant, field: 'account.webhook_token' };
}

/** Contacts as stored: in the order given, each address once (compared exactly). */
export function contactsOf(given: readonly string[]): readonly string[] {
  return [...new Set(given)];
}

/** The fields an update leaves: the keys it gives replace the stored ones, the others stay. */
export function mergedAccountFields(body: AccountUpdate, stored: AccountFields): AccountFields {
  return {
    technicalContacts: body.technical_contacts === undefined ? stored.technicalContacts : contactsOf(body.technical_contacts),
    metadata: keep(body.metadata, stored.metadata),
  };
}
