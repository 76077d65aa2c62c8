// Owns identity.sqlite: the only SQL of the identity service (users and token hashes).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase, PRIVATE_DIR_MODE } from '../storage/open-database.js';
import type { Role } from './user-rules.js';

/** Name of the identity file inside the data directory. */
export const IDENTITY_FILE_NAME = 'identity.sqlite';

/** A stored user; the API key exists only as its hash. */
export interface UserRecord {
  readonly id: string;
  readonly username: string;
  readonly tenant: string;
  readonly role: Role;
  readonly apiKeySha256: Buffer;
  readonly createdMs: number;
}

/** A stored token joined with its user. */
export interface TokenRecord {
  readonly tokenSha256: Buffer;
  readonly issuedMs: number;
  readonly expiresMs: number;
  readonly user: UserRecord;
}

interface UserRow {
  id: string;
  username: string;
  tenant: string;
  role: Role;
  api_key_sha256: Buffer;
  created_ms: number;
}

interface TokenRow extends UserRow {
  token_sha256: Buffer;
  issued_ms: number;
  expires_ms: number;
}

function toUser(row: UserRow): UserRecord {
  return { id: row.id, username: row.username, tenant: row.tenant, role: row.role, apiKeySha256: row.api_key_sha256, createdMs: row.created_ms };
}

const USER_COLUMNS = 'u.id, u.username, u.tenant, u.role, u.api_key_sha256, u.created_ms';

/** The identity file: users and token hashes, behind prepared statements. */
export class IdentityStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // WAL (openDatabase) lets the server read while `strata user create` writes from another
    // process; NORMAL sync is enough because a token lost in a crash only costs a re-authentication.
    this.db = openDatabase(join(dir, IDENTITY_FILE_NAME), { file: 'identity', durability: 'normal', foreignKeys: true });
    this.statements = {
      insertUser: this.db.prepare(
        'INSERT INTO identity_user (id, username, tenant, role, api_key_sha256, created_ms) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      userByName: this.db.prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM identity_user u WHERE u.username = ?`),
      listUsers: this.db.prepare<[], UserRow>(`SELECT ${USER_COLUMNS} FROM identity_user u ORDER BY u.username`),
      countUsers: this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM identity_user'),
      insertToken: this.db.prepare('INSERT INTO identity_token (token_sha256, user_id, issued_ms, expires_ms) VALUES (?, ?, ?, ?)'),
      tokenByHash: this.db.prepare<[Buffer], TokenRow>(
        `SELECT t.token_sha256, t.issued_ms, t.expires_ms, ${USER_COLUMNS}
           FROM identity_token t JOIN identity_user u ON u.id = t.user_id WHERE t.token_sha256 = ?`,
      ),
      deleteToken: this.db.prepare('DELETE FROM identity_token WHERE token_sha256 = ?'),
      purgeExpired: this.db.prepare('DELETE FROM identity_token WHERE expires_ms <= ?'),
    };
  }

  /**
   * Inserts a user and returns true. A username that exists already is not reported by the return
   * value: the UNIQUE constraint throws better-sqlite3's SqliteError with code
   * SQLITE_CONSTRAINT_UNIQUE, which IdentityService turns into a taken username.
   */
  insertUser(user: UserRecord): boolean {
    const result = this.statements.insertUser.run(user.id, user.username, user.tenant, user.role, user.apiKeySha256, user.createdMs);
    return result.changes === 1;
  }

  /** The user with this username, if any. */
  userByName(username: string): UserRecord | undefined {
    const row = this.statements.userByName.get(username);
    return row ? toUser(row) : undefined;
  }

  /** Every user, by username. */
  listUsers(): UserRecord[] {
    return this.statements.listUsers.all().map(toUser);
  }

  /** How many users exist. */
  userCount(): number {
    return this.statements.countUsers.get()?.n ?? 0;
  }

  /** Records a token hash for a user. */
  insertToken(tokenSha256: Buffer, userId: string, issuedMs: number, expiresMs: number): void {
    this.statements.insertToken.run(tokenSha256, userId, issuedMs, expiresMs);
  }

  /** The token with this hash and its user, if recorded (expired or not). */
  tokenByHash(tokenSha256: Buffer): TokenRecord | undefined {
    const row = this.statements.tokenByHash.get(tokenSha256);
    if (!row) return undefined;
    return { tokenSha256: row.token_sha256, issuedMs: row.issued_ms, expiresMs: row.expires_ms, user: toUser(row) };
  }

  /** Deletes a token; true when it existed. */
  deleteToken(tokenSha256: Buffer): boolean {
    return this.statements.deleteToken.run(tokenSha256).changes === 1;
  }

  /** Deletes every token that expired at or before `nowMs`. */
  purgeExpired(nowMs: number): number {
    return this.statements.purgeExpired.run(nowMs).changes;
  }

  /** Closes the file. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
