// Owns the identity rules: creating users, issuing, validating and revoking tokens with an injected clock.
import type { Clock } from '../core/clock.js';
import { configError } from '../core/config-error.js';
import { HOUR_MS } from '../core/time.js';
import { identityError } from './identity-errors.js';
import { IdentityStore, type UserRecord } from './identity-store.js';
import { ABSENT_KEY_HASH, hashesEqual, newApiKey, newToken, newUserId, sha256 } from './secrets.js';
import { checkNewUser, mayWrite, type Role } from './user-rules.js';

/** Default token lifetime: a day, as the reference identity service issues them. */
export const DEFAULT_TOKEN_TTL_MS = 24 * HOUR_MS;
/** Shortest token lifetime accepted. */
export const TOKEN_TTL_MS_MIN = 1_000;
/** Longest token lifetime accepted: a leaked token must not live for ever. */
export const TOKEN_TTL_MS_MAX = 30 * 24 * HOUR_MS;

/** A user as shown to callers: never the key hash. */
export interface UserInfo {
  readonly id: string;
  readonly username: string;
  readonly tenant: string;
  readonly role: Role;
  readonly createdMs: number;
}

/** Who a valid token speaks for, and until when. */
export interface Principal {
  readonly user: UserInfo;
  readonly issuedMs: number;
  readonly expiresMs: number;
}

/** A newly issued token: the only moment its id exists outside the client. */
export interface IssuedToken extends Principal {
  readonly token: string;
}

/** Options of openIdentity. */
export interface IdentityOptions {
  /** Data directory; identity.sqlite is created in it. */
  readonly dir: string;
  readonly clock: Clock;
  /** Token lifetime (default DEFAULT_TOKEN_TTL_MS). */
  readonly tokenTtlMs?: number;
}

/** Fields of a new user; the API key is generated when absent. */
export interface NewUser {
  readonly username: string;
  readonly tenant: string;
  readonly role?: Role | string;
  readonly apiKey?: string;
}

function info(user: UserRecord): UserInfo {
  return { id: user.id, username: user.username, tenant: user.tenant, role: user.role, createdMs: user.createdMs };
}

/** The identity service: users, API keys and tokens, stored only as hashes. */
export class IdentityService {
  private readonly store: IdentityStore;
  private readonly clock: Clock;
  /** Token lifetime in ms. */
  readonly tokenTtlMs: number;

  constructor(options: IdentityOptions) {
    const ttl = options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
    if (!Number.isSafeInteger(ttl) || ttl < TOKEN_TTL_MS_MIN || ttl > TOKEN_TTL_MS_MAX) {
      throw configError('tokenTtlMs', `an integer from ${TOKEN_TTL_MS_MIN} to ${TOKEN_TTL_MS_MAX}`, ttl);
    }
    this.tokenTtlMs = ttl;
    this.clock = options.clock;
    this.store = new IdentityStore(options.dir);
  }

  /** Creates a user; returns it with its API key, which is shown this once and never stored. */
  createUser(fields: NewUser): { user: UserInfo; apiKey: string } {
    const apiKey = fields.apiKey ?? newApiKey();
    const role = fields.role ?? 'admin';
    checkNewUser({ username: fields.username, tenant: fields.tenant, role, apiKey });
    const user: UserRecord = {
      id: newUserId(),
      username: fields.username,
      tenant: fields.tenant,
      role: role as Role,
      apiKeySha256: sha256(apiKey),
      createdMs: this.clock.now(),
    };
    if (this.store.userByName(user.username) !== undefined || !this.insert(user)) {
      throw identityError('IDENTITY_USERNAME_TAKEN', `a user named ${user.username} exists already`, { username: user.username });
    }
    return { user: info(user), apiKey };
  }

  private insert(user: UserRecord): boolean {
    try {
      return this.store.insertUser(user);
    } catch (error) {
      // Another process may have inserted the same username between our check and insert.
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
      throw error;
    }
  }

  /** Every user, by username. */
  listUsers(): UserInfo[] {
    return this.store.listUsers().map(info);
  }

  /** How many users exist (0 on a first run). */
  userCount(): number {
    return this.store.userCount();
  }

  /**
   * Issues a new token for a username and API key, optionally checking the tenant the client
   * names. Throws IDENTITY_CREDENTIALS_INVALID with one message whatever was wrong.
   */
  authenticate(username: string, apiKey: string, tenant?: string): IssuedToken {
    const user = this.userWithKey(username, apiKey);
    if (user === undefined || (tenant !== undefined && tenant !== user.tenant)) {
      throw identityError('IDENTITY_CREDENTIALS_INVALID', 'Unable to authenticate user with credentials provided.');
    }
    const nowMs = this.clock.now();
    this.store.purgeExpired(nowMs);
    const token = newToken();
    const expiresMs = nowMs + this.tokenTtlMs;
    this.store.insertToken(sha256(token), user.id, nowMs, expiresMs);
    return { token, user: info(user), issuedMs: nowMs, expiresMs };
  }

  /** The user a username and API key name, checked in constant time (also for unknown usernames). */
  private userWithKey(username: string, apiKey: string): UserRecord | undefined {
    const user = this.store.userByName(username);
    // Compare against a fixed hash when the user is unknown, so timing does not reveal usernames.
    const keyMatches = hashesEqual(sha256(apiKey), user?.apiKeySha256 ?? ABSENT_KEY_HASH);
    return user !== undefined && keyMatches ? user : undefined;
  }

  /**
   * The principal of a username and API key sent with each request (HTTP basic, spec 5.2), or
   * undefined when they do not authenticate. Checked exactly as authenticate() checks them; no
   * token is issued, so the principal lives for this request only (issued and expiring now).
   */
  verifyApiKey(username: string, apiKey: string): Principal | undefined {
    const user = this.userWithKey(username, apiKey);
    if (user === undefined) return undefined;
    const nowMs = this.clock.now();
    return { user: info(user), issuedMs: nowMs, expiresMs: nowMs };
  }

  /** The principal of a token, or undefined when it is unknown, expired or revoked. */
  validate(token: string): Principal | undefined {
    const hash = sha256(token);
    const record = this.store.tokenByHash(hash);
    // The lookup is by hash, so an attacker timing it learns about hashes, not the token; the
    // constant-time compare keeps the rule "secrets are compared in constant time" literal.
    if (record === undefined || !hashesEqual(record.tokenSha256, hash)) return undefined;
    if (this.clock.now() >= record.expiresMs) return undefined;
    return { user: info(record.user), issuedMs: record.issuedMs, expiresMs: record.expiresMs };
  }

  /**
   * The principal of token `tokenId` as `caller` (who holds `callerToken`) may see it: any caller
   * sees its own token, an admin also the tokens of its tenant; another tenant's token, like an
   * unknown one or one not of tenant `belongsTo` (when given), is IDENTITY_TOKEN_NOT_FOUND, so
   * tokens of other tenants are not revealed. A non-admin naming another token is
   * IDENTITY_TOKEN_FORBIDDEN. Token ids are compared by hash in constant time.
   */
  visibleToken(caller: Principal, callerToken: string, tokenId: string, belongsTo?: string): Principal {
    const own = hashesEqual(sha256(tokenId), sha256(callerToken));
    if (!own && !mayWrite(caller.user.role)) {
      throw identityError('IDENTITY_TOKEN_FORBIDDEN', 'Only an admin may validate or revoke a token other than its own.', { role: caller.user.role });
    }
    const target = own ? caller : this.validate(tokenId);
    if (target === undefined || target.user.tenant !== caller.user.tenant || (belongsTo !== undefined && belongsTo !== target.user.tenant)) {
      throw identityError('IDENTITY_TOKEN_NOT_FOUND', 'Could not find a valid token with this id.');
    }
    return target;
  }

  /** Revokes token `tokenId` when `caller` may see it (visibleToken's rules). */
  revokeVisible(caller: Principal, callerToken: string, tokenId: string): void {
    this.visibleToken(caller, callerToken, tokenId);
    this.revoke(tokenId);
  }

  /** Revokes a token: one delete by its hash; false when no such token is stored (revoked already, or purged). */
  revoke(token: string): boolean {
    return this.store.deleteToken(sha256(token));
  }

  /** Closes the identity file. */
  close(): void {
    this.store.close();
  }
}

/** Opens (creating when missing) the identity service over `dir/identity.sqlite`. */
export function openIdentity(options: IdentityOptions): IdentityService {
  return new IdentityService(options);
}
