// Checks what an audit row keeps of a request: a time-ordered UUIDv7 id, the path, the query with _who and _why apart and secrets hidden, only the allowed headers, the redacted body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUDIT_HEADERS, auditHeaders, auditQuery, auditRow, newAuditId, type AuditInput } from '../../../src/monitoring/audits/audit-record.js';
import { AUDIT_QUERY_KEYS_MAX, AUDIT_TEXT_LENGTH_MAX } from '../../../src/monitoring/monitoring-limits.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const INPUT: AuditInput = {
  method: 'POST',
  url: '/monitoring/v1.0/t1/notifications?_who=jane&_why=ticket%2042&dry=1',
  app: 'notifications',
  status: 201,
  user: 'alice',
  tokenId: '0123456789abcdef',
  requestId: '.r-x.c-1.ts-1.v-strata',
  headers: { 'x-auth-token': 'tok-SECRET', authorization: 'Basic c2VjcmV0', cookie: 'sid=SECRET', 'user-agent': 'curl/8', 'content-type': 'application/json', 'content-length': '57', accept: '*/*', host: 'h' },
  body: { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/T/SECRET' } },
};

describe('audit rows', () => {
  it('keeps method, path, status, user, token id and request id; query without _who/_why; only the allowed headers; the body redacted', () => {
    const row = auditRow(INPUT, 1_790_000_000_123);
    expect(row).toMatchObject({
      timestampMs: 1_790_000_000_123,
      method: 'POST',
      path: '/monitoring/v1.0/t1/notifications',
      status: 201,
      user: 'alice',
      tokenId: '0123456789abcdef',
      requestId: '.r-x.c-1.ts-1.v-strata',
      who: 'jane',
      why: 'ticket 42',
    });
    expect(JSON.parse(row.query as string)).toEqual({ dry: '1' });
    expect(JSON.parse(row.headers)).toEqual({ 'user-agent': 'curl/8', 'content-type': 'application/json', 'content-length': 57, accept: '*/*' });
    expect(JSON.parse(row.body as string)).toEqual({ label: 'hook', type: 'webhook', details: { url: '[redacted]' } });
    expect(JSON.stringify(row)).not.toContain('SECRET');
    expect(AUDIT_HEADERS).not.toContain('x-auth-token');
  });

  it('has a null query, who, why and body when the request has none', () => {
    const row = auditRow({ ...INPUT, url: '/monitoring/v1.0/t1/entities/en1', body: undefined }, 5);
    expect(row).toMatchObject({ query: null, who: null, why: null, body: null, path: '/monitoring/v1.0/t1/entities/en1' });
  });

  it('hides query values under secret names and URL credentials in query values; repeats become arrays; keys and values are bounded', () => {
    const long = 'x'.repeat(AUDIT_TEXT_LENGTH_MAX + 10);
    const { query } = auditQuery(`/p?token=abc&api_key=k&next=${encodeURIComponent('https://u:pw@h.example/?t=1')}&tag=a&tag=b&long=${long}`);
    expect(query).toEqual({ token: '[redacted]', api_key: '[redacted]', next: 'https://[redacted]@h.example/?[redacted]', tag: ['a', 'b'], long: 'x'.repeat(AUDIT_TEXT_LENGTH_MAX) });
    const many = Array.from({ length: AUDIT_QUERY_KEYS_MAX + 5 }, (_, i) => `k${i}=v`).join('&');
    expect(Object.keys(auditQuery(`/p?${many}`).query ?? {})).toHaveLength(AUDIT_QUERY_KEYS_MAX);
  });

  it('joins repeated headers and bounds their values', () => {
    expect(auditHeaders({ accept: ['a', 'b'], 'user-agent': 'u'.repeat(AUDIT_TEXT_LENGTH_MAX + 1), 'content-length': 'not a number' })).toEqual({
      accept: 'a, b',
      'user-agent': 'u'.repeat(AUDIT_TEXT_LENGTH_MAX),
      'content-length': 'not a number',
    });
  });

  it('ids are UUIDv7: they sort by their time, and are unique', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.integer({ min: 1, max: 1_000_000 }), (a, step) => {
        const b = Math.min(a + step, 2 ** 48 - 1);
        const [first, second] = [newAuditId(a), newAuditId(b)];
        expect(first).toMatch(UUID_V7);
        expect(second).toMatch(UUID_V7);
        expect(first < second).toBe(true);
      }),
    );
    const ids = new Set(Array.from({ length: 1_000 }, () => newAuditId(7)));
    expect(ids.size).toBe(1_000);
  });
});
