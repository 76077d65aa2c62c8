// Checks the audit redaction: a secret under any secret key, in a URL's credentials or in a notification's secret detail never survives, wherever it sits; everything else is kept as sent; depth and size are bounded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../../../src/monitoring/detail-secrets.js';
import { auditBodyText, isAuditSecretKey, redactUrls, redactValue, TOO_DEEP } from '../../../src/monitoring/audits/audit-redaction.js';
import { AUDIT_BODY_BYTES_MAX, AUDIT_BODY_DEPTH_MAX } from '../../../src/monitoring/monitoring-limits.js';

/** Key names that hold secrets in the monitoring API's bodies and the requests' headers. */
const SECRET_KEYS = [
  'password',
  'auth_password',
  'token',
  'webhook_token',
  'api_key',
  'apiKey',
  'service_key',
  'integration_key',
  'routing_key',
  'key',
  'secret',
  'client_secret',
  'authorization',
  'Authorization',
  'X-Auth-Token',
  'Cookie',
  'passphrase',
];
/**
 * Keys that are not secrets (the body's structure around the secret) wherever they appear, a
 * `headers` map included: auth_user is not one (as a header name it carries a credential, as
 * remote.http's detail it does not; audits-http.test.ts shows that detail kept).
 */
const PLAIN_KEYS = ['label', 'details', 'metadata', 'headers', 'checks', 'values', 'a', 'b', 'period', 'target_hostname', 'url'];
/** Request header names that carry credentials: secrets inside a `headers` map (remote.http's details.headers). */
const SECRET_HEADER_NAMES = ['X-Session-Id', 'Proxy-Authorization', 'X-Signature', 'X-Auth-User', 'Set-Cookie'];

const secretArb = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).map((text) => `S3CR3T${text}`);
const plainKeyArb = fc.constantFrom(...PLAIN_KEYS);
const plainLeafArb: fc.Arbitrary<unknown> = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.stringMatching(/^[a-z .-]{0,12}$/));
/** Plain JSON values: no secret key anywhere, no URL in any string. */
const plainArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, plainLeafArb, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(plainKeyArb, tie('value'), { maxKeys: 4 }),
})).value;

/** `value` with `secret` placed under `key` at a random path of objects (created where needed), at most a few levels deep. */
function placeAt(path: readonly string[], key: string, secret: unknown, around: unknown): unknown {
  const base = around !== null && typeof around === 'object' && !Array.isArray(around) ? { ...(around as Record<string, unknown>) } : {};
  const [head, ...rest] = path;
  if (head === undefined) return { ...base, [key]: secret };
  return { ...base, [head]: placeAt(rest, key, secret, base[head]) };
}

/** A URL holding `secret` in its user-info, its query or its fragment. */
const urlWithSecretArb = (secret: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    `https://user:${secret}@hooks.example.com/path`,
    `https://${secret}@hooks.example.com/`,
    `http://hooks.example.com/call?token=${secret}&x=1`,
    `https://hooks.example.com/a#${secret}`,
    `https://user:pa@ss/${secret}@hooks.example.com/`,
    `see https://u:${secret}@h.example/ and more`,
  );

describe('audit redaction', () => {
  it('never keeps a value placed under a secret key, at any depth, whatever the value', () => {
    fc.assert(
      fc.property(plainArb, fc.array(plainKeyArb, { maxLength: 5 }), fc.constantFrom(...SECRET_KEYS), secretArb, fc.boolean(), (around, path, key, secret, nested) => {
        const value = nested ? { inner: [secret, { deeper: secret }] } : secret;
        const body = placeAt(path, key, value, around);
        const text = auditBodyText(body, { notification: false }) ?? '';
        expect(text).not.toContain(secret);
        expect(text).toContain(REDACTED_SECRET);
      }),
    );
  });

  it('never keeps a credential-bearing header inside a headers map, at any depth', () => {
    fc.assert(
      fc.property(plainArb, fc.array(plainKeyArb, { maxLength: 4 }), fc.constantFrom(...SECRET_HEADER_NAMES), secretArb, (around, path, name, secret) => {
        const text = auditBodyText(placeAt([...path, 'headers'], name, secret, around), { notification: false }) ?? '';
        expect(text).not.toContain(secret);
      }),
    );
  });

  it("never keeps a URL's user-info, query or fragment, in any string; keeps its scheme and host", () => {
    fc.assert(
      fc.property(secretArb.chain((secret) => fc.tuple(fc.constant(secret), urlWithSecretArb(secret))), plainArb, fc.array(plainKeyArb, { maxLength: 4 }), ([secret, url], around, path) => {
        const text = auditBodyText(placeAt(path, 'label', url, around), { notification: false }) ?? '';
        expect(text).not.toContain(secret);
        expect(redactUrls(url)).toMatch(/https?:\/\//);
        expect(redactUrls(url)).toContain('.example');
      }),
    );
  });

  it("hides every detail some notification type keeps secret (a webhook's whole url) in a notification body, with or without its type", () => {
    fc.assert(
      fc.property(secretArb, fc.option(fc.constantFrom('webhook', 'incidentA', 'incidentB', 'email'), { nil: undefined }), (secret, type) => {
        const body = { label: 'hook', ...(type !== undefined ? { type } : {}), details: { url: `https://hooks.example.com/services/${secret}`, address: 'ops@example.com' } };
        const text = auditBodyText(body, { notification: true }) ?? '';
        expect(text).not.toContain(secret);
        expect(JSON.parse(text)).toMatchObject({ label: 'hook', details: { url: REDACTED_SECRET, address: 'ops@example.com' } });
      }),
    );
  });

  it('keeps a body without secrets exactly as sent', () => {
    fc.assert(
      fc.property(plainArb, (body) => {
        expect(redactValue(body, { notification: false })).toEqual(body);
        const text = auditBodyText(body, { notification: false });
        if (body === null) expect(text).toBeNull();
        else expect(JSON.parse(text as string)).toEqual(body);
      }),
    );
  });

  it('cuts a long body to AUDIT_BODY_BYTES_MAX bytes with a marker of its size, never inside a character, never growing a secret back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * AUDIT_BODY_BYTES_MAX }), fc.constantFrom('a', 'é', '€', '😀'), secretArb, (length, char, secret) => {
        const body = { label: char.repeat(Math.ceil(length / char.length)), password: secret };
        const text = auditBodyText(body, { notification: false }) as string;
        expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(AUDIT_BODY_BYTES_MAX);
        expect(text).not.toContain('\uFFFD');
        expect(text).not.toContain(secret);
        const whole = Buffer.byteLength(JSON.stringify({ ...body, password: REDACTED_SECRET }), 'utf8');
        if (whole > AUDIT_BODY_BYTES_MAX) expect(text.endsWith(`…[cut: ${whole} bytes]`)).toBe(true);
        else expect(JSON.parse(text)).toEqual({ ...body, password: REDACTED_SECRET });
      }),
      { numRuns: 50 },
    );
  });

  it('walks at most AUDIT_BODY_DEPTH_MAX levels: a body nested far deeper is recorded with a marker, without its secret and without exhausting the stack', () => {
    let deep: unknown = { password: 'S3CR3Tbottom' };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const text = auditBodyText(deep, { notification: false }) as string;
    expect(text).toContain(TOO_DEEP);
    expect(text).not.toContain('S3CR3Tbottom');
    // AUDIT_BODY_DEPTH_MAX nested containers (31 arrays and the object) are kept whole; one more is cut at its leaf.
    let shallow: unknown = { label: 'kept' };
    for (let i = 1; i < AUDIT_BODY_DEPTH_MAX; i++) shallow = [shallow];
    expect(redactValue(shallow, { notification: false })).toEqual(shallow);
    expect(JSON.stringify(redactValue([shallow], { notification: false }))).toContain(TOO_DEEP);
  });

  it('names secret keys with the stored objects rule and every name ending in key', () => {
    for (const key of SECRET_KEYS) expect(isAuditSecretKey(key), key).toBe(true);
    for (const key of PLAIN_KEYS) expect(isAuditSecretKey(key), key).toBe(false);
    for (const name of SECRET_HEADER_NAMES) expect(isAuditSecretKey(name, 'headers'), name).toBe(true);
    expect(isAuditSecretKey('X-Session-Id')).toBe(false);
  });
});
