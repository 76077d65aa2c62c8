// Tests the Prometheus API over real HTTP: remote write then read, the three credential forms, roles and tenants, partial writes, skipped samples, matchers and the error answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyEncode } from '../../../../src/wire/snappy-body.js';
import { PROTOCOL_DECODED_BYTES_MAX } from '../../../../src/wire/protocol-limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { nameIs, plain, post, promRead, promWrite, PROM_HEADERS, type Credentials } from './prom-http.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** The NaN Prometheus writes as a staleness marker. */
const STALE_NAN = new Float64Array(new BigUint64Array([0x7ff0000000000002n]).buffer)[0] as number;

let h: Harness;
let alice: string;
let olga: string;
let bob: string;
/** A minute ago, on a whole second: every test writes around it. */
let t0: number;

beforeAll(async () => {
  h = await startHarness({ config: { bodyLimitBytes: 256 * 1024 } });
  [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
  t0 = Math.floor((Date.now() - MINUTE_MS) / 1000) * 1000;
});
afterAll(async () => h.close());

const aliceToken = (): Credentials => ({ token: alice });

describe('remote write then remote read', () => {
  it('returns exactly the labels and values written', async () => {
    const values = [0.1, -0, 1e300, 2 ** 53, -42.125, 5e-324];
    const labels = [
      { name: '__name__', value: 'rt_exact' },
      { name: 'job', value: 'api "quoted"' },
      { name: 'path', value: '/a\\b\nc é😀' },
      { name: 'Zone', value: 'z1' },
    ];
    const write = await promWrite(h, 't1', [{ labels, samples: values.map((value, i) => ({ timestampMs: t0 + i * 1000, value })) }], aliceToken());
    expect(write.status).toBe(204);
    expect(write.text).toBe('');
    const read = await promRead(h, 't1', [{ startMs: t0, endMs: t0 + values.length * 1000, matchers: [nameIs('rt_exact')] }], aliceToken());
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('application/x-protobuf');
    expect(read.headers.get('content-encoding')).toBe('snappy');
    expect(read.results).toHaveLength(1);
    expect(read.results[0]?.map(plain)).toEqual([
      { labels: { __name__: 'rt_exact', Zone: 'z1', job: 'api "quoted"', path: '/a\\b\nc é😀' }, samples: values.map((value, i) => [t0 + i * 1000, value]) },
    ]);
    // Labels come sorted by name, __name__ among them.
    expect(read.results[0]?.[0]?.labels.map((l) => l.name)).toEqual(['Zone', '__name__', 'job', 'path']);
    expect(Object.is(read.results[0]?.[0]?.values[1], -0)).toBe(true);
  });

  it('answers one result per query, in order, and selects with every matcher type', async () => {
    const series = ['api', 'web', 'db'].map((job, i) => ({ labels: [{ name: '__name__', value: 'mt_up' }, { name: 'job', value: job }], samples: [{ timestampMs: t0, value: i }] }));
    series.push({ labels: [{ name: '__name__', value: 'mt_up' }], samples: [{ timestampMs: t0, value: 9 }] });
    expect((await promWrite(h, 't1', series, aliceToken())).status).toBe(204);
    const range = { startMs: t0, endMs: t0 };
    const read = await promRead(
      h,
      't1',
      [
        { ...range, matchers: [nameIs('mt_up'), { type: 'EQ', name: 'job', value: 'web' }] },
        { ...range, matchers: [nameIs('mt_up'), { type: 'NEQ', name: 'job', value: 'web' }] },
        { ...range, matchers: [nameIs('mt_up'), { type: 'RE', name: 'job', value: 'a.i|d.' }] },
        { ...range, matchers: [nameIs('mt_up'), { type: 'NRE', name: 'job', value: '.+' }] },
        { ...range, matchers: [{ type: 'RE', name: '__name__', value: 'mt_.*' }, { type: 'EQ', name: 'job', value: 'db' }] },
      ],
      aliceToken(),
    );
    expect(read.status).toBe(200);
    const values = read.results.map((result) => result.map((s) => s.values[0]).sort());
    expect(values).toEqual([[1], [0, 2, 9], [0, 2], [9], [2]]);
  });

  it('skips NaN values and staleness markers (204), stores the rest and counts the skipped', async () => {
    const write = await promWrite(
      h,
      't1',
      [{ labels: [{ name: '__name__', value: 'stale_m' }], samples: [{ timestampMs: t0, value: 1 }, { timestampMs: t0 + 1000, value: STALE_NAN }, { timestampMs: t0 + 2000, value: Infinity }] }],
      aliceToken(),
    );
    expect(write.status).toBe(204);
    const read = await promRead(h, 't1', [{ startMs: t0, endMs: t0 + 5000, matchers: [nameIs('stale_m')] }], aliceToken());
    expect(read.results[0]?.map(plain)).toEqual([{ labels: { __name__: 'stale_m' }, samples: [[t0, 1]] }]);
    const scrape = await fetch(`${h.url}/metrics`);
    expect(await scrape.text()).toMatch(/strata_points_skipped_total\{format="prometheus"\} [2-9]/);
  });

  it('answers a partial write with 400 and a plain-text report, the accepted points durable', async () => {
    const write = await promWrite(
      h,
      't1',
      [
        { labels: [{ name: '__name__', value: 'partial_ok' }], samples: [{ timestampMs: t0, value: 5 }] },
        { labels: [{ name: '__name__', value: 'partial_old' }], samples: [{ timestampMs: t0 - 3 * DAY_MS, value: 6 }] },
        { labels: [{ name: '__name__', value: 'partial_{bad}' }], samples: [{ timestampMs: t0, value: 7 }] },
      ],
      aliceToken(),
    );
    expect(write.status).toBe(400);
    expect(write.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = write.text.trim().split('\n');
    expect(lines[0]).toBe('accepted 1, rejected 2, skipped 0 points');
    expect(write.text).toContain('PROTOCOL_SERIES_INVALID');
    expect(write.text).toMatch(/INGEST_TIMESTAMP_TOO_OLD partial_old: /);
    const read = await promRead(h, 't1', [{ startMs: t0 - 4 * DAY_MS, endMs: t0, matchers: [{ type: 'RE', name: '__name__', value: 'partial_.*' }] }], aliceToken());
    expect(read.results[0]?.map(plain)).toEqual([{ labels: { __name__: 'partial_ok' }, samples: [[t0, 5]] }]);
  });
});

describe('credentials, roles and tenants', () => {
  const series = (name: string, value: number) => [{ labels: [{ name: '__name__', value: name }], samples: [{ timestampMs: t0, value }] }];

  it.each<[string, () => Credentials]>([
    ['X-Auth-Token', () => ({ token: alice })],
    ['Authorization: Bearer', () => ({ bearer: alice })],
    ['basic username and API key', () => ({ basic: 'alice' })],
  ])('accepts %s for write and read', async (_name, credentials) => {
    const metric = `auth_${_name.replace(/\W/g, '_')}`;
    expect((await promWrite(h, 't1', series(metric, 3), credentials())).status).toBe(204);
    const read = await promRead(h, 't1', [{ startMs: t0, endMs: t0, matchers: [nameIs(metric)] }], credentials());
    expect(read.status).toBe(200);
    expect(read.results[0]?.map(plain)).toEqual([{ labels: { __name__: metric }, samples: [[t0, 3]] }]);
  });

  it.each<[string, Credentials, string]>([
    ['no credentials', null, 'AUTH_TOKEN_MISSING'],
    ['an unknown token', { token: 'nope' }, 'AUTH_TOKEN_INVALID'],
    ['an unknown bearer token', { bearer: 'nope' }, 'AUTH_TOKEN_INVALID'],
    ['a wrong API key', { authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` }, 'AUTH_BASIC_INVALID'],
  ])('refuses %s with 401, a Basic challenge and a plain-text body', async (_name, credentials, code) => {
    const write = await promWrite(h, 't1', series('never', 1), credentials);
    expect(write.status).toBe(401);
    expect(write.headers.get('www-authenticate')).toBe('Basic realm="Strata", charset="UTF-8"');
    expect(write.text).toMatch(new RegExp(`^${code}: `));
    expect(write.headers.get('retry-after')).toBeNull();
  });

  it('lets an observer read but not write', async () => {
    expect((await promRead(h, 't1', [{ startMs: t0, endMs: t0, matchers: [nameIs('x')] }], { token: olga })).status).toBe(200);
    const write = await promWrite(h, 't1', series('olga_m', 1), { basic: 'olga' });
    expect(write.status).toBe(403);
    expect(write.text).toMatch(/^AUTH_ROLE_FORBIDDEN: /);
  });

  it("keeps tenants apart: bob can neither write nor read t1, and t2's series never show in t1", async () => {
    expect((await promWrite(h, 't1', series('iso_m', 1), { token: bob })).status).toBe(403);
    const denied = await promRead(h, 't1', [{ startMs: t0, endMs: t0, matchers: [nameIs('iso_m')] }], { bearer: bob });
    expect(denied.status).toBe(403);
    expect(denied.text).toMatch(/^AUTH_TENANT_FORBIDDEN: /);
    expect((await promWrite(h, 't2', series('iso_m', 2), { basic: 'bob' })).status).toBe(204);
    const query = [{ startMs: t0, endMs: t0, matchers: [nameIs('iso_m')] }];
    expect((await promRead(h, 't1', query, { token: alice })).results).toEqual([[]]);
    expect((await promRead(h, 't2', query, { token: bob })).results[0]?.map(plain)).toEqual([{ labels: { __name__: 'iso_m' }, samples: [[t0, 2]] }]);
  });
});

describe('bodies the API refuses', () => {
  const write = (body: Uint8Array | undefined, headers: Record<string, string> = PROM_HEADERS) => post(h, '/t1/api/v1/write', body, { token: alice }, headers);

  it.each<[string, Uint8Array]>([
    ['bad snappy framing', Uint8Array.from([0x0a, 0xff, 0xff, 0xff])],
    ['snappy holding bytes that are not a WriteRequest', snappyEncode(Uint8Array.from([0x0a, 0x05, 0x01]))],
    ['an empty body', new Uint8Array(0)],
  ])('answers %s with 400 PROTOCOL_BODY_MALFORMED', async (_name, body) => {
    const res = await write(body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toMatch(/^PROTOCOL_BODY_MALFORMED: .+\n$/);
  });

  it('answers a read body that is not a ReadRequest with 400 as well', async () => {
    const res = await post(h, '/t1/api/v1/read', snappyEncode(Uint8Array.from([0x0a, 0x09, 0x01])), { token: alice });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^PROTOCOL_BODY_MALFORMED: /);
  });

  it('answers 413 for a body over the ingest body limit, and for a snappy body declaring too many bytes', async () => {
    const big = await write(new Uint8Array(300 * 1024));
    expect(big.status).toBe(413);
    expect(big.text).toMatch(/^HTTP_BODY_TOO_LARGE: /);
    let declared = PROTOCOL_DECODED_BYTES_MAX + 1;
    const varint: number[] = [];
    while (declared >= 0x80) {
      varint.push((declared & 0x7f) | 0x80);
      declared = Math.floor(declared / 128);
    }
    varint.push(declared);
    const bomb = await write(Uint8Array.from([...varint, 0, 0, 0, 0]));
    expect(bomb.status).toBe(413);
    expect(bomb.text).toMatch(/^PROTOCOL_BODY_TOO_LARGE: /);
  });

  it.each<[string, Record<string, string>, string]>([
    ['no Content-Encoding', { 'content-type': 'application/x-protobuf' }, 'HTTP_CONTENT_ENCODING_UNSUPPORTED'],
    ['gzip', { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }, 'HTTP_CONTENT_ENCODING_UNSUPPORTED'],
    ['remote write 2.0', { 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request', 'content-encoding': 'snappy' }, 'HTTP_CONTENT_TYPE_UNSUPPORTED'],
    ['JSON', { 'content-type': 'application/json', 'content-encoding': 'snappy' }, 'HTTP_CONTENT_TYPE_UNSUPPORTED'],
    ['no Content-Type', { 'content-encoding': 'snappy' }, 'HTTP_CONTENT_TYPE_UNSUPPORTED'],
  ])('answers %s with 415 saying why', async (_name, headers, code) => {
    const res = await write(snappyEncode(new Uint8Array(0)), headers);
    expect(res.status).toBe(415);
    expect(res.text).toMatch(new RegExp(`^${code}: `));
  });

  it('accepts the remote write 1.0 proto parameter', async () => {
    const res = await write(snappyEncode(new Uint8Array(0)), { ...PROM_HEADERS, 'content-type': 'application/x-protobuf; proto=prometheus.WriteRequest' });
    expect(res.status).toBe(204);
  });

  it('answers a refused matcher with 400 PROMETHEUS_MATCHER_INVALID', async () => {
    const res = await promRead(h, 't1', [{ startMs: t0, endMs: t0, matchers: [{ type: 'RE', name: 'job', value: '(a+)+' }] }], { token: alice });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^PROMETHEUS_MATCHER_INVALID: .*label "job"/);
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await fetch(`${h.url}/prometheus/t1/api/v1/write`, { headers: { 'x-auth-token': alice } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.text()).toMatch(/^HTTP_METHOD_NOT_ALLOWED: /);
  });
});
