// Owns the rules for user fields: username, tenant, role and API key shapes.
import { TENANT_LENGTH_MAX } from '../core/limits.js';
import { identityError } from './identity-errors.js';

/** The roles a user may hold: admin reads and writes its tenant, observer only reads. */
export const ROLES = ['admin', 'observer'] as const;

/** A user's role. */
export type Role = (typeof ROLES)[number];

/** Longest username, in characters. */
export const USERNAME_LENGTH_MAX = 100;
/** Shortest API key a user may choose; generated keys are 32 characters. */
export const API_KEY_LENGTH_MIN = 16;
/** Longest API key, in characters. */
export const API_KEY_LENGTH_MAX = 128;

// Tenants follow the engine's tenant rule (INGEST_TENANT_INVALID) so every user can write.
const TENANT_PATTERN = /^[A-Za-z0-9._-]+$/;
// Usernames appear in logs and CLI output; keep them to printable, shell-safe characters.
const USERNAME_PATTERN = /^[A-Za-z0-9._@+-]+$/;
// API keys travel in JSON bodies; printable ASCII without spaces avoids quoting trouble.
const API_KEY_PATTERN = /^[\x21-\x7e]+$/;

/** True when a role may change data (write points and monitoring objects, see other tokens): the one admin rule. */
export function mayWrite(role: Role): boolean {
  return role === 'admin';
}

/** True when `value` is a role name. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `tenant` is a valid tenant id. */
export function isValidTenant(tenant: string): boolean {
  return tenant.length > 0 && tenant.length <= TENANT_LENGTH_MAX && TENANT_PATTERN.test(tenant);
}

/** Throws IDENTITY_USER_INVALID unless the fields of a new user are well formed. */
export function checkNewUser(fields: { username: string; tenant: string; role: string; apiKey: string }): void {
  const { username, tenant, role, apiKey } = fields;
  if (username.length === 0 || username.length > USERNAME_LENGTH_MAX || !USERNAME_PATTERN.test(username)) {
    throw identityError('IDENTITY_USER_INVALID', `username must be 1 to ${USERNAME_LENGTH_MAX} letters, digits or . _ @ + -`, { field: 'username' });
  }
  if (!isValidTenant(tenant)) {
    throw identityError('IDENTITY_USER_INVALID', `tenant must be 1 to ${TENANT_LENGTH_MAX} letters, digits or . _ -`, { field: 'tenant' });
  }
  if (!isRole(role)) {
    throw identityError('IDENTITY_USER_INVALID', `role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  }
  if (apiKey.length < API_KEY_LENGTH_MIN || apiKey.length > API_KEY_LENGTH_MAX || !API_KEY_PATTERN.test(apiKey)) {
    throw identityError('IDENTITY_USER_INVALID', `API key must be ${API_KEY_LENGTH_MIN} to ${API_KEY_LENGTH_MAX} printable characters without spaces`, {
      field: 'apiKey',
    });
  }
}
