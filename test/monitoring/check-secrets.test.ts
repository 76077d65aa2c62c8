// Checks which check details are secrets and how they are encrypted for storage, redacted for reads, kept by a redacted value on update, and decrypted for the runner.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { isSecretHeaderName, decryptDetails, redactDetails, encryptGivenDetails, encryptStoredDetails } from '../../src/monitoring/check-secrets.js';
import { isSecretDetailName, REDACTED_SECRET } from '../../src/monitoring/detail-secrets.js';
import { isEncrypted, SecretBox } from '../../src/monitoring/secret-box.js';

const box = new SecretBox(randomBytes(32));
const HTTP = { url: 'https://example.com/', method: 'GET', auth_user: 'ops', auth_password: 'pw-1', headers: { Accept: 'text/html', Authorization: 'Bearer abc', 'X-Api-Key': 'k-1' } };

function fieldErrorOf(work: () => unknown): Record<string, unknown> {
  try {
    work();
  } catch (error) {
    expect(isStrataError(error)).toBe(true);
    return { code: (error as { code: string }).code, ...(error as { details: Record<string, unknown> }).details };
  }
  throw new Error('expected a field error');
}

describe('which details are secrets', () => {
  it.each(['auth_password', 'password', 'PASSWORD', 'db_passwd', 'passphrase', 'client_secret', 'api_token', 'apiKey', 'api-key', 'access_key', 'private_key', 'credentials', 'pass', 'pwd'])(
    'detail %s is',
    (name) => expect(isSecretDetailName(name)).toBe(true),
  );

  it.each(['url', 'auth_user', 'username', 'method', 'body', 'body_matches', 'headers', 'payload', 'target', 'host', 'file', 'include_body'])('detail %s is not', (name) => {
    expect(isSecretDetailName(name)).toBe(false);
  });

  it.each(['Authorization', 'proxy-authorization', 'X-Auth-Token', 'Cookie', 'X-Session-Id', 'X-Api-Key', 'X-Amz-Security-Token', 'X-Hub-Signature', 'X-Client-Secret'])('header %s is', (name) => {
    expect(isSecretHeaderName(name)).toBe(true);
  });

  it.each(['Accept', 'User-Agent', 'Content-Type', 'Host', 'X-Request-Id'])('header %s is not', (name) => expect(isSecretHeaderName(name)).toBe(false));
});

describe('encrypting, redacting and decrypting details', () => {
  it('encrypts auth_password and credential headers only, redacts them on reads, and decrypts them for the runner', () => {
    const encrypted = encryptGivenDetails(HTTP, undefined, box, 't1');
    expect(isEncrypted(encrypted['auth_password'] as string)).toBe(true);
    const headers = encrypted['headers'] as Record<string, string>;
    expect(isEncrypted(headers['Authorization'] as string)).toBe(true);
    expect(isEncrypted(headers['X-Api-Key'] as string)).toBe(true);
    expect(headers['Accept']).toBe('text/html');
    expect(encrypted).toMatchObject({ url: HTTP.url, method: 'GET', auth_user: 'ops' });
    expect(JSON.stringify(encrypted)).not.toMatch(/pw-1|Bearer abc|k-1/);
    expect(redactDetails(encrypted)).toEqual({ ...HTTP, auth_password: REDACTED_SECRET, headers: { Accept: 'text/html', Authorization: REDACTED_SECRET, 'X-Api-Key': REDACTED_SECRET } });
    expect(decryptDetails(encrypted, box, 't1')).toEqual(HTTP);
  });

  it('binds encrypted secrets to their tenant: another tenant cannot decrypt them', () => {
    const encrypted = encryptGivenDetails(HTTP, undefined, box, 't1');
    expect(fieldErrorOf(() => decryptDetails(encrypted, box, 't2'))).toMatchObject({ code: 'MONITORING_SECRET_UNREADABLE', field: 'details.auth_password' });
  });

  it('encrypts agent check parameters named like credentials when they are strings', () => {
    const encrypted = encryptGivenDetails({ username: 'root', password: 'pw', port: 3306, token: 7 }, undefined, box, 't1');
    expect(isEncrypted(encrypted['password'] as string)).toBe(true);
    expect(encrypted).toMatchObject({ username: 'root', port: 3306, token: 7 });
    expect(redactDetails(encrypted)).toEqual({ username: 'root', password: REDACTED_SECRET, port: 3306, token: 7 });
  });

  it('returns details without secrets unchanged (the same object)', () => {
    const details = { url: 'https://example.com/', headers: { Accept: 'x' } };
    expect(encryptGivenDetails(details, undefined, box, 't1')).toBe(details);
    expect(redactDetails(details)).toBe(details);
    expect(encryptStoredDetails(details, box, 't1')).toBe(details);
  });

  it('treats a sent value that looks encrypted as plaintext: it is encrypted again and decrypts to itself', () => {
    const lookalike = box.encrypt('other', { tenant: 't1', field: 'details.auth_password' });
    const encrypted = encryptGivenDetails({ url: 'https://e.com/', auth_password: lookalike }, undefined, box, 't1');
    expect(encrypted['auth_password']).not.toBe(lookalike);
    expect(decryptDetails(encrypted, box, 't1')['auth_password']).toBe(lookalike);
  });
});

describe('the redacted value sent back', () => {
  const stored = encryptGivenDetails(HTTP, undefined, box, 't1');

  it('keeps the stored secret, for auth_password and for headers (whose names match ignoring case)', () => {
    const given = { ...HTTP, auth_password: REDACTED_SECRET, headers: { authorization: REDACTED_SECRET, 'X-Api-Key': 'k-2' } };
    const encrypted = encryptGivenDetails(given, stored, box, 't1');
    expect(encrypted['auth_password']).toBe(stored['auth_password']);
    expect(decryptDetails(encrypted, box, 't1')).toEqual({ ...HTTP, headers: { authorization: 'Bearer abc', 'X-Api-Key': 'k-2' } });
  });

  it('is refused where nothing is stored, on create and for a secret not stored before', () => {
    expect(fieldErrorOf(() => encryptGivenDetails({ url: 'https://e.com/', auth_password: REDACTED_SECRET }, undefined, box, 't1'))).toMatchObject({
      code: 'MONITORING_FIELD_INVALID',
      key: 'details.auth_password',
    });
    const refused = fieldErrorOf(() => encryptGivenDetails({ url: 'https://e.com/', headers: { Cookie: REDACTED_SECRET } }, stored, box, 't1'));
    expect(refused).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key: 'details.headers' });
    expect(refused['problem']).toMatch(/^"Cookie": /);
  });

  it('is a plain value for a detail that is not a secret', () => {
    expect(encryptGivenDetails({ url: 'https://e.com/', auth_user: REDACTED_SECRET }, undefined, box, 't1')).toEqual({ url: 'https://e.com/', auth_user: REDACTED_SECRET });
  });
});

describe('older data and URLs', () => {
  it('reads plaintext stored before encryption existed: redacted on reads, as is for the runner, encrypted on the next write', () => {
    const legacy = { ...HTTP };
    expect(redactDetails(legacy)['auth_password']).toBe(REDACTED_SECRET);
    expect(decryptDetails(legacy, box, 't1')).toEqual(HTTP);
    const migrated = encryptStoredDetails(legacy, box, 't1');
    expect(isEncrypted(migrated['auth_password'] as string)).toBe(true);
    expect(decryptDetails(migrated, box, 't1')).toEqual(HTTP);
    expect(encryptStoredDetails(migrated, box, 't1')).toBe(migrated);
    // A redacted value sent back over plaintext keeps it, encrypted.
    const kept = encryptGivenDetails({ ...HTTP, auth_password: REDACTED_SECRET }, legacy, box, 't1');
    expect(isEncrypted(kept['auth_password'] as string)).toBe(true);
    expect(decryptDetails(kept, box, 't1')['auth_password']).toBe('pw-1');
  });

  it('refuses a url holding a password, and masks one stored by an older version on reads', () => {
    for (const url of ['https://ops:pw@example.com/', 'http://ops:@example.com', 'HTTPS://:pw@example.com/x']) {
      expect(fieldErrorOf(() => encryptGivenDetails({ url }, undefined, box, 't1'))).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key: 'details.url' });
    }
    for (const url of ['https://ops@example.com/', 'https://example.com:8443/a:b@c', 'https://example.com/?u=a:b@c']) {
      expect(encryptGivenDetails({ url }, undefined, box, 't1')).toEqual({ url });
    }
    expect(redactDetails({ url: 'https://ops:pw@example.com/x' })).toEqual({ url: `https://ops:${REDACTED_SECRET}@example.com/x` });
  });
});
