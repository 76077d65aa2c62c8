// Checks identity.sqlite through IdentityStore: user and token round trips, constraints, expiry purge, reopening and file modes.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDENTITY_FILE_NAME, IdentityStore, type UserRecord } from '../../src/identity/identity-store.js';

const START_MS = Date.UTC(2026, 0, 1);

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function user(username: string, tenant: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return { id: `u-${username}`, username, tenant, role: 'admin', apiKeySha256: sha256(`key-${username}`), createdMs: START_MS, ...overrides };
}

/** The mode of every data file a store creates, -wal and -shm included: read and write by the owner only (it may hold secrets). */
const PRIVATE_FILE_MODE = 0o600;

describe('IdentityStore', () => {
  let dir: string;
  let store: IdentityStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-identity-store-'));
    store = new IdentityStore(dir);
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips a user by username, with its key hash as bytes', () => {
    const alice = user('alice', 't1', { role: 'observer', createdMs: START_MS + 5 });
    expect(store.insertUser(alice)).toBe(true);
    const got = store.userByName('alice');
    expect(got).toEqual(alice);
    expect(Buffer.isBuffer(got?.apiKeySha256)).toBe(true);
    expect(got?.apiKeySha256.equals(sha256('key-alice'))).toBe(true);
    expect(store.userByName('bob')).toBeUndefined();
    // Usernames compare exactly: no case folding.
    expect(store.userByName('Alice')).toBeUndefined();
  });

  it('lists every user by username (byte order) and counts them, across tenants', () => {
    expect(store.listUsers()).toEqual([]);
    expect(store.userCount()).toBe(0);
    for (const [name, tenant] of [['olga', 't2'], ['Zed', 't1'], ['alice', 't1'], ['bob', 't3']] as const) store.insertUser(user(name, tenant));
    expect(store.listUsers().map((u) => [u.username, u.tenant])).toEqual([
      ['Zed', 't1'],
      ['alice', 't1'],
      ['bob', 't3'],
      ['olga', 't2'],
    ]);
    expect(store.userCount()).toBe(4);
  });

  it('throws SQLITE_CONSTRAINT_UNIQUE for a taken username (the service maps it to IDENTITY_USERNAME_TAKEN)', () => {
    store.insertUser(user('alice', 't1'));
    // The TSDoc of insertUser says "false when the username exists already", but the plain INSERT throws.
    expect(() => store.insertUser(user('alice', 't2', { id: 'u-other' }))).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }));
    expect(store.userCount()).toBe(1);
    expect(store.userByName('alice')?.tenant).toBe('t1');
  });

  it('refuses a duplicate user id and a role outside admin/observer', () => {
    store.insertUser(user('alice', 't1'));
    expect(() => store.insertUser(user('bob', 't1', { id: 'u-alice' }))).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
    const root = { ...user('root', 't1'), role: 'root' } as unknown as UserRecord;
    expect(() => store.insertUser(root)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_CHECK' }));
    expect(store.listUsers().map((u) => u.username)).toEqual(['alice']);
  });

  it('round-trips a token with its user, and deletes it once', () => {
    const alice = user('alice', 't1');
    store.insertUser(alice);
    const hash = sha256('token-1');
    store.insertToken(hash, alice.id, START_MS, START_MS + 60_000);
    expect(store.tokenByHash(sha256('token-1'))).toEqual({ tokenSha256: hash, issuedMs: START_MS, expiresMs: START_MS + 60_000, user: alice });
    expect(store.tokenByHash(sha256('token-2'))).toBeUndefined();
    expect(store.deleteToken(hash)).toBe(true);
    expect(store.deleteToken(hash)).toBe(false);
    expect(store.tokenByHash(hash)).toBeUndefined();
  });

  it("returns each token with its own user's tenant, never another user's", () => {
    const alice = user('alice', 't1');
    const bob = user('bob', 't2');
    store.insertUser(alice);
    store.insertUser(bob);
    store.insertToken(sha256('a'), alice.id, START_MS, START_MS + 1);
    store.insertToken(sha256('b'), bob.id, START_MS, START_MS + 1);
    expect(store.tokenByHash(sha256('a'))?.user).toEqual(alice);
    expect(store.tokenByHash(sha256('b'))?.user).toEqual(bob);
  });

  it('refuses a token for an unknown user (foreign keys are on) and a duplicate token hash', () => {
    expect(() => store.insertToken(sha256('t'), 'u-nobody', START_MS, START_MS + 1)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
    store.insertUser(user('alice', 't1'));
    store.insertToken(sha256('t'), 'u-alice', START_MS, START_MS + 1);
    expect(() => store.insertToken(sha256('t'), 'u-alice', START_MS + 5, START_MS + 9)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
    expect(store.tokenByHash(sha256('t'))?.issuedMs).toBe(START_MS);
  });

  it('returns an expired token until purged; purgeExpired deletes those expiring at or before now and counts them', () => {
    store.insertUser(user('alice', 't1'));
    const expiries = [START_MS - 1, START_MS, START_MS + 1, START_MS + 1_000];
    expiries.forEach((expiresMs, i) => store.insertToken(sha256(`t${i}`), 'u-alice', START_MS - 10, expiresMs));
    expect(store.tokenByHash(sha256('t0'))?.expiresMs).toBe(START_MS - 1);
    expect(store.purgeExpired(START_MS)).toBe(2);
    expect([0, 1, 2, 3].map((i) => store.tokenByHash(sha256(`t${i}`)) !== undefined)).toEqual([false, false, true, true]);
    expect(store.purgeExpired(START_MS)).toBe(0);
    expect(store.purgeExpired(START_MS + 1_000)).toBe(2);
    expect(store.tokenByHash(sha256('t3'))).toBeUndefined();
    expect(store.userCount()).toBe(1);
  });

  it('keeps users and tokens across close and reopen', () => {
    store.insertUser(user('alice', 't1'));
    store.insertToken(sha256('t'), 'u-alice', START_MS, START_MS + 60_000);
    store.close();
    store.close(); // closing twice is harmless
    store = new IdentityStore(dir);
    expect(store.userByName('alice')).toEqual(user('alice', 't1'));
    expect(store.tokenByHash(sha256('t'))?.user.username).toBe('alice');
    expect(store.userCount()).toBe(1);
  });

  it('refuses calls after close', () => {
    store.close();
    expect(() => store.userCount()).toThrowError(/not open/);
  });

  it('creates the data directory (0700) and the file readable and writable by its owner only (0600)', () => {
    const nested = join(dir, 'a', 'b');
    const other = new IdentityStore(nested);
    try {
      other.insertUser(user('alice', 't1'));
      const file = join(nested, IDENTITY_FILE_NAME);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(PRIVATE_FILE_MODE);
      // WAL mode (openDatabase): the -wal and -shm files exist while open, as private as the file.
      expect(statSync(`${file}-wal`).mode & 0o777).toBe(PRIVATE_FILE_MODE);
      expect(statSync(`${file}-shm`).mode & 0o777).toBe(PRIVATE_FILE_MODE);
      for (const created of [join(dir, 'a'), nested]) expect(statSync(created).mode & 0o777).toBe(0o700);
    } finally {
      other.close();
    }
  });

  it('refuses a file written by a newer schema with STORE_SCHEMA_UNSUPPORTED', () => {
    store.close();
    const raw = new Database(join(dir, IDENTITY_FILE_NAME));
    const version = raw.pragma('user_version', { simple: true }) as number;
    expect(version).toBeGreaterThan(0);
    raw.pragma(`user_version = ${version + 1}`);
    raw.close();
    expect(() => new IdentityStore(dir)).toThrowError(expect.objectContaining({ code: 'STORE_SCHEMA_UNSUPPORTED' }));
    // Leave a store that afterEach can close.
    store = new IdentityStore(mkdtempSync(join(dir, 'fresh-')));
  });
});
