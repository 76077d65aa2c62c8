// Tests the identity service: users, API keys and tokens stored as hashes, expiry and revocation.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { IdentityService, openIdentity } from '../../src/identity/identity-service.js';
import { IDENTITY_FILE_NAME } from '../../src/identity/identity-store.js';

const START_MS = Date.UTC(2026, 0, 1);
const TTL_MS = 60_000;

describe('IdentityService', () => {
  let dir: string;
  let clock: ManualClock;
  let identity: IdentityService;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-identity-'));
    clock = new ManualClock(START_MS);
    identity = openIdentity({ dir, clock, tokenTtlMs: TTL_MS });
  });
  afterEach(() => {
    identity.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates users with generated or given keys and lists them without secrets', () => {
    const generated = identity.createUser({ username: 'alice', tenant: '123456' });
    expect(generated.apiKey).toMatch(/^[0-9a-f]{32}$/);
    expect(generated.user.role).toBe('admin');
    identity.createUser({ username: 'olga', tenant: '123456', role: 'observer', apiKey: 'olga-key-0123456789' });
    const users = identity.listUsers();
    expect(users.map((u) => [u.username, u.tenant, u.role])).toEqual([
      ['alice', '123456', 'admin'],
      ['olga', '123456', 'observer'],
    ]);
    expect(JSON.stringify(users)).not.toContain(generated.apiKey);
    expect(identity.userCount()).toBe(2);
  });

  it('refuses a taken username and malformed fields with coded errors', () => {
    identity.createUser({ username: 'alice', tenant: 't1' });
    expect(() => identity.createUser({ username: 'alice', tenant: 't2' })).toThrowError(expect.objectContaining({ code: 'IDENTITY_USERNAME_TAKEN', kind: 'conflict' }));
    for (const bad of [
      { username: '', tenant: 't1' },
      { username: 'has space', tenant: 't1' },
      { username: 'x', tenant: 'bad/tenant' },
      { username: 'x', tenant: 't1', role: 'root' },
      { username: 'x', tenant: 't1', apiKey: 'short' },
    ]) {
      expect(() => identity.createUser(bad)).toThrowError(expect.objectContaining({ code: 'IDENTITY_USER_INVALID', kind: 'invalid' }));
    }
  });

  it('issues a token for good credentials and refuses bad ones with one message', () => {
    const { apiKey } = identity.createUser({ username: 'alice', tenant: 't1' });
    const issued = identity.authenticate('alice', apiKey);
    expect(issued.token).toMatch(/^[0-9a-f]{32}$/);
    expect(issued.expiresMs).toBe(START_MS + TTL_MS);
    expect(identity.validate(issued.token)?.user.username).toBe('alice');
    const failures = [
      () => identity.authenticate('alice', 'wrong-key-0123456789'),
      () => identity.authenticate('nobody', apiKey),
      () => identity.authenticate('alice', apiKey, 'other-tenant'),
    ];
    for (const failure of failures) {
      expect(failure).toThrowError(expect.objectContaining({ code: 'IDENTITY_CREDENTIALS_INVALID', kind: 'unauthenticated' }));
    }
    expect(identity.authenticate('alice', apiKey, 't1').user.tenant).toBe('t1');
  });

  it('expires tokens at expires and gives a new token on re-authentication', () => {
    const { apiKey } = identity.createUser({ username: 'alice', tenant: 't1' });
    const first = identity.authenticate('alice', apiKey);
    clock.advance(TTL_MS - 1);
    expect(identity.validate(first.token)).toBeDefined();
    clock.advance(1);
    expect(identity.validate(first.token)).toBeUndefined();
    const second = identity.authenticate('alice', apiKey);
    expect(second.token).not.toBe(first.token);
    expect(identity.validate(second.token)).toBeDefined();
  });

  it('revokes tokens', () => {
    const { apiKey } = identity.createUser({ username: 'alice', tenant: 't1' });
    const issued = identity.authenticate('alice', apiKey);
    expect(identity.revoke(issued.token)).toBe(true);
    expect(identity.validate(issued.token)).toBeUndefined();
    expect(identity.revoke(issued.token)).toBe(false);
    expect(identity.validate('never-issued')).toBeUndefined();
  });

  it('stores API keys and tokens only as hashes', () => {
    const { apiKey } = identity.createUser({ username: 'alice', tenant: 't1' });
    const { token } = identity.authenticate('alice', apiKey);
    identity.close();
    const file = readFileSync(join(dir, IDENTITY_FILE_NAME)).toString('latin1');
    const wal = (() => {
      try {
        return readFileSync(join(dir, `${IDENTITY_FILE_NAME}-wal`)).toString('latin1');
      } catch {
        return '';
      }
    })();
    for (const secret of [apiKey, token]) {
      expect(file).not.toContain(secret);
      expect(wal).not.toContain(secret);
    }
    identity = openIdentity({ dir, clock, tokenTtlMs: TTL_MS });
    expect(identity.validate(token)?.user.username).toBe('alice');
  });

  it('refuses token lifetimes out of range', () => {
    expect(() => new IdentityService({ dir, clock, tokenTtlMs: 0 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new IdentityService({ dir, clock, tokenTtlMs: 1.5 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
