// Tests the ingest plugin's validation in process (inject): bad bodies, media types, methods and limits answer its error body with `errors`, and write nothing.
import { pack } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX, STRING_VALUE_LENGTH_MAX, UNIT_LENGTH_MAX } from '../../../../src/core/limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectIngestError, inject, tokenOf, type InjectOptions } from '../../inject.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const START_MS = Date.UTC(2026, 0, 1, 12);
const INGEST = '/ingest/v2.0/t1/ingest';
const MULTI = '/ingest/v2.0/t1/ingest/multi';

/** A valid metric named `name`, with `extra` fields replacing or adding to it. */
function metric(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { metricName: name, metricValue: 1.5, collectionTime: START_MS - MINUTE_MS, ttlInSeconds: 86_400, unit: 'percent', ...extra };
}

describe('ingest API validation (in process)', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
    alice = await tokenOf(h, 'alice');
    olga = await tokenOf(h, 'olga');
    bob = await tokenOf(h, 'bob');
  });
  afterAll(async () => h.close());

  const post = (options: InjectOptions, url = INGEST) => inject(h, 'POST', url, { token: alice, ...options });

  /** Asserts that no point of `names` was stored for `tenant`: the search knows no such metric and its view is empty. */
  async function expectNothingWritten(names: readonly string[], tenant = 't1', token = alice): Promise<void> {
    const search = await inject(h, 'GET', `/metrics/v2.0/${tenant}/metrics/search?query=*`, { token });
    expect(search.status).toBe(200);
    const stored = (search.json as { metric: string }[]).map((m) => m.metric);
    for (const name of names) {
      expect(stored, `metric ${JSON.stringify(name.slice(0, 40))} was written`).not.toContain(name);
      if (name === '' || name.length > METRIC_NAME_LENGTH_MAX) continue;
      const view = await inject(h, 'GET', `/metrics/v2.0/${tenant}/views/${encodeURIComponent(name)}?from=${START_MS - DAY_MS}&to=${START_MS + DAY_MS}&resolution=MIN1440`, { token });
      expect(view.json.values).toEqual([]);
    }
  }

  it('accepts a valid batch (200, empty body), with unknown keys ignored as Blueflood does', async () => {
    const res = await post({ json: [metric('ok.a'), metric('ok.b', { extra: 'ignored', tags: { a: 1 } })] });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  describe('bodies that are not a batch', () => {
    it.each<[string, string]>([
      ['an object', '{"metricName":"nb.object","metricValue":1,"collectionTime":1}'],
      ['a string', '"nb.string"'],
      ['a number', '42'],
      ['null', 'null'],
    ])('400 HTTP_BODY_INVALID for %s, and nothing is written', async (_label, text) => {
      const res = await post({ body: text, type: 'application/json' });
      expectIngestError(res, 400, 'HTTP_BODY_INVALID');
      expect(res.json.message).toBe('The request body must be an array of metrics.');
      expect(res.json.errors[0].tenantId).toBe('t1');
      await expectNothingWritten(['nb.object']);
    });

    it.each<[string, string]>([
      ['an unterminated array', '[{"metricName":"nb.cut","metricValue":1,"collectionTime":1'],
      ['a trailing comma', `[${JSON.stringify(metric('nb.comma'))},]`],
      ['single quotes', "[{'metricName':'nb.quote'}]"],
      ['NaN as a value', `[{"metricName":"nb.nan","metricValue":NaN,"collectionTime":${START_MS}}]`],
      ['a valid metric then garbage', `[${JSON.stringify(metric('nb.garbage'))}] trailing`],
    ])('400 HTTP_BODY_INVALID for unparsable JSON: %s, and nothing is written', async (_label, text) => {
      const res = await post({ body: text, type: 'application/json' });
      expectIngestError(res, 400, 'HTTP_BODY_INVALID');
      await expectNothingWritten(['nb.cut', 'nb.comma', 'nb.quote', 'nb.nan', 'nb.garbage']);
    });

    it('400 HTTP_BODY_INVALID for an empty body, with or without Content-Type', async () => {
      expectIngestError(await post({ body: '', type: 'application/json' }), 400, 'HTTP_BODY_INVALID');
      expectIngestError(await post({}), 400, 'HTTP_BODY_INVALID');
    });

    it('400 HTTP_BODY_INVALID for msgpack that does not decode, or is not an array', async () => {
      for (const body of [Buffer.from([0xc1]), Buffer.from([0x92, 0x81]), pack({ metricName: 'nb.map', metricValue: 1, collectionTime: START_MS }), pack('nb.string')]) {
        expectIngestError(await post({ body, type: 'application/x-msgpack' }), 400, 'HTTP_BODY_INVALID');
      }
      await expectNothingWritten(['nb.map']);
    });

    it('400 INGEST_BATCH_EMPTY for an empty array and for a batch of only null values', async () => {
      expectIngestError(await post({ json: [] }), 400, 'INGEST_BATCH_EMPTY');
      expectIngestError(await post({ json: [metric('nb.null', { metricValue: null })] }), 400, 'INGEST_BATCH_EMPTY');
      expectIngestError(await post({ body: pack([]), type: 'application/x-msgpack' }), 400, 'INGEST_BATCH_EMPTY');
      await expectNothingWritten(['nb.null']);
    });

    it(`413 INGEST_BATCH_TOO_LARGE for more than INGEST_BATCH_POINTS_MAX (${INGEST_BATCH_POINTS_MAX}) metrics, and none is written`, async () => {
      const one = JSON.stringify(metric('big.batch'));
      const text = `[${Array.from({ length: INGEST_BATCH_POINTS_MAX + 1 }, () => one).join(',')}]`;
      const res = await post({ body: text, type: 'application/json' });
      expectIngestError(res, 413, 'INGEST_BATCH_TOO_LARGE', { limit: INGEST_BATCH_POINTS_MAX });
      await expectNothingWritten(['big.batch']);
    });
  });

  describe('metrics that break the documented schema', () => {
    const cases: [string, Record<string, unknown> | number | string | null, string, string][] = [
      ['metricValue a boolean', metric('bad.bool', { metricValue: true }), 'metricValue', 'INGEST_VALUE_INVALID'],
      ['metricValue an object', metric('bad.object', { metricValue: { v: 1 } }), 'metricValue', 'INGEST_VALUE_INVALID'],
      ['metricValue missing', { metricName: 'bad.novalue', collectionTime: START_MS - MINUTE_MS }, 'metricValue', 'INGEST_VALUE_INVALID'],
      ['metricValue too long a string', metric('bad.longvalue', { metricValue: 'v'.repeat(STRING_VALUE_LENGTH_MAX + 1) }), 'metricValue', 'INGEST_VALUE_INVALID'],
      ['collectionTime a string', metric('bad.timestr', { collectionTime: String(START_MS) }), 'collectionTime', 'INGEST_TIMESTAMP_INVALID'],
      ['collectionTime 1.5', metric('bad.timefrac', { collectionTime: START_MS - 0.5 }), 'collectionTime', 'INGEST_TIMESTAMP_INVALID'],
      ['collectionTime missing', { metricName: 'bad.notime', metricValue: 1 }, 'collectionTime', 'INGEST_TIMESTAMP_INVALID'],
      ['collectionTime past the FULL retention', metric('bad.old', { collectionTime: START_MS - 3 * DAY_MS }), 'collectionTime', 'INGEST_TIMESTAMP_TOO_OLD'],
      ['collectionTime over 10 minutes ahead', metric('bad.future', { collectionTime: START_MS + 11 * MINUTE_MS }), 'collectionTime', 'INGEST_TIMESTAMP_IN_FUTURE'],
      ['ttlInSeconds 0', metric('bad.ttl0', { ttlInSeconds: 0 }), 'ttlInSeconds', 'INGEST_TTL_INVALID'],
      ['ttlInSeconds 1.5', metric('bad.ttlfrac', { ttlInSeconds: 1.5 }), 'ttlInSeconds', 'INGEST_TTL_INVALID'],
      ['ttlInSeconds a string', metric('bad.ttlstr', { ttlInSeconds: '86400' }), 'ttlInSeconds', 'INGEST_TTL_INVALID'],
      ['ttlInSeconds over 2^31 - 1', metric('bad.ttlbig', { ttlInSeconds: 2 ** 31 }), 'ttlInSeconds', 'INGEST_TTL_INVALID'],
      ['unit a number', metric('bad.unitnum', { unit: 5 }), 'unit', 'INGEST_UNIT_INVALID'],
      ['unit too long', metric('bad.unitlong', { unit: 'u'.repeat(UNIT_LENGTH_MAX + 1) }), 'unit', 'INGEST_UNIT_INVALID'],
      ['metricName a number', metric('ignored', { metricName: 42 }), 'metricName', 'INGEST_POINT_MALFORMED'],
      ['metricName missing', { metricValue: 1, collectionTime: START_MS - MINUTE_MS }, 'metricName', 'INGEST_POINT_MALFORMED'],
      ['metricName empty', metric(''), 'metricName', 'INGEST_METRIC_NAME_EMPTY'],
      ['metricName too long', metric('n'.repeat(METRIC_NAME_LENGTH_MAX + 1)), 'metricName', 'INGEST_METRIC_NAME_TOO_LONG'],
      ['an item that is a number', 7, 'metricName', 'INGEST_POINT_MALFORMED'],
      ['an item that is null', null, 'metricName', 'INGEST_POINT_MALFORMED'],
      ['an item that is a string', 'bad.string', 'metricName', 'INGEST_POINT_MALFORMED'],
    ];

    it.each(cases)('400 INGEST_POINTS_REJECTED listing the metric for %s, and nothing is written', async (_label, item, source, code) => {
      const name = item !== null && typeof item === 'object' && typeof item['metricName'] === 'string' ? (item['metricName'] as string) : '';
      for (const options of [{ json: [item] }, { body: pack([item]), type: 'application/x-msgpack' }] satisfies InjectOptions[]) {
        const errors = expectIngestError(await post(options), 400, 'INGEST_POINTS_REJECTED');
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ index: 0, tenantId: 't1', metricName: name, source, code });
      }
      await expectNothingWritten([name]);
    });

    it('207 for a mixed batch: the good metrics are written, each bad one is listed by index, none of them is written', async () => {
      const batch = cases.map(([, item]) => item);
      batch.splice(3, 0, metric('mixed.good.a'));
      batch.push(metric('mixed.good.b'));
      const res = await post({ json: batch });
      expect(res.status).toBe(207);
      expect(res.json.accepted).toBe(2);
      expect(res.json.rejected).toBe(cases.length);
      expect(res.json.errors.map((e: { index: number }) => e.index)).toEqual([0, 1, 2, ...cases.slice(3).map((_, i) => i + 4)]);
      expect(res.json.errors.map((e: { code: string }) => e.code)).toEqual(cases.map(([, , , code]) => code));
      const search = await inject(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=mixed.*', { token: alice });
      expect(search.json).toEqual([{ metric: 'mixed.good.a', unit: 'percent' }, { metric: 'mixed.good.b', unit: 'percent' }]);
      await expectNothingWritten(cases.map(([, item]) => (item !== null && typeof item === 'object' && typeof item['metricName'] === 'string' ? (item['metricName'] as string) : '')));
    });
  });

  describe('multi-tenant ingest', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['tenantId missing', metric('multi.none'), 'INGEST_TENANT_INVALID'],
      ['tenantId empty', metric('multi.empty', { tenantId: '' }), 'INGEST_TENANT_INVALID'],
      ['tenantId a number', metric('multi.number', { tenantId: 1 }), 'INGEST_TENANT_INVALID'],
      ["another tenant's id", metric('multi.other', { tenantId: 't2' }), 'AUTH_TENANT_FORBIDDEN'],
    ])('400 INGEST_POINTS_REJECTED for %s, and nothing is written', async (_label, item, code) => {
      const errors = expectIngestError(await post({ json: [item] }, MULTI), 400, 'INGEST_POINTS_REJECTED');
      expect(errors).toEqual([expect.objectContaining({ index: 0, metricName: item['metricName'], source: 'tenantId', code })]);
      await expectNothingWritten([item['metricName'] as string]);
      await expectNothingWritten([item['metricName'] as string], 't2', bob);
    });
  });

  describe('media types, methods, auth and URLs', () => {
    it.each(['text/plain', 'application/xml', 'application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
      '415 HTTP_CONTENT_TYPE_UNSUPPORTED for a %s body, and nothing is written',
      async (type) => {
        expectIngestError(await post({ body: JSON.stringify([metric('mt.type')]), type }), 415, 'HTTP_CONTENT_TYPE_UNSUPPORTED');
        await expectNothingWritten(['mt.type']);
      },
    );

    it('415 HTTP_CONTENT_TYPE_UNSUPPORTED for a body without Content-Type, and nothing is written', async () => {
      expectIngestError(await post({ body: JSON.stringify([metric('mt.none')]) }), 415, 'HTTP_CONTENT_TYPE_UNSUPPORTED');
      await expectNothingWritten(['mt.none']);
    });

    it('415 HTTP_ACCEPT_UNSUPPORTED for an Accept that allows neither JSON nor msgpack, and nothing is written', async () => {
      for (const accept of ['text/html', 'text/*', 'application/json;q=0, application/x-msgpack;q=0']) {
        const res = await post({ json: [metric('mt.accept')], accept });
        expectIngestError(res, 415, 'HTTP_ACCEPT_UNSUPPORTED', { produces: ['application/json', 'application/x-msgpack'] });
      }
      await expectNothingWritten(['mt.accept']);
      expect((await post({ json: [metric('mt.msgpack')], accept: 'application/x-msgpack' })).status).toBe(200);
    });

    it('answers an Accept of application/json with a charset parameter', async () => {
      const res = await post({ json: [metric('mt.charset')], accept: 'application/json; charset=utf-8' });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
    });

    it.each([
      [INGEST, 'GET'],
      [INGEST, 'PUT'],
      [INGEST, 'PATCH'],
      [INGEST, 'DELETE'],
      [MULTI, 'GET'],
      [MULTI, 'PUT'],
    ] as const)('405 with Allow: POST for %s %s, and nothing is written', async (url, method) => {
      const res = await inject(h, method, url, { token: alice, json: [metric('mt.method', { tenantId: 't1' })] });
      expectIngestError(res, 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'POST' });
      expect(res.headers['allow']).toBe('POST');
      await expectNothingWritten(['mt.method']);
    });

    it("401 without a token, 403 for an observer and on another tenant's URL; nothing is written", async () => {
      expectIngestError(await inject(h, 'POST', INGEST, { json: [metric('mt.auth')] }), 401, 'AUTH_TOKEN_MISSING');
      expectIngestError(await post({ token: olga, json: [metric('mt.auth')] }), 403, 'AUTH_ROLE_FORBIDDEN');
      expectIngestError(await post({ token: olga, json: [metric('mt.auth', { tenantId: 't1' })] }, MULTI), 403, 'AUTH_ROLE_FORBIDDEN');
      expectIngestError(await post({ token: bob, json: [metric('mt.auth')] }), 403, 'AUTH_TENANT_FORBIDDEN');
      await expectNothingWritten(['mt.auth']);
    });

    it('400 HTTP_REQUEST_INVALID in the ingest shape for a tenant that is not valid percent-encoding', async () => {
      expectIngestError(await inject(h, 'POST', '/ingest/v2.0/%zz/ingest', { token: alice, json: [metric('mt.url')] }), 400, 'HTTP_REQUEST_INVALID');
    });

    it.each(['/ingest/v2.0', '/ingest/v2.0/', '/ingest/v2.0/t1', '/ingest/v2.0/t1/nothing', '/ingest/v2.0/t1/ingest/extra', '/ingest/v2.0/t1/ingest/multi/extra'])(
      '404 notFoundError HTTP_ROUTE_NOT_FOUND with an errors list for POST %s',
      async (url) => {
        const res = await inject(h, 'POST', url, { token: alice, json: [metric('mt.notfound')], accept: 'text/html' });
        expectIngestError(res, 404, 'HTTP_ROUTE_NOT_FOUND');
        expect(res.json.message).toBe(`No resource at POST ${url}.`);
      },
    );
  });
});

describe('ingest API body limit (in process)', () => {
  it('413 HTTP_BODY_TOO_LARGE for a body over the configured limit, and nothing is written', async () => {
    const h = await startHarness({ clock: new ManualClock(START_MS), config: { bodyLimitBytes: 1024 } });
    try {
      const token = await tokenOf(h, 'alice');
      const batch = Array.from({ length: 20 }, (_, i) => metric('limit.big', { collectionTime: START_MS - (i + 1) * MINUTE_MS }));
      for (const options of [{ json: batch }, { body: pack(batch), type: 'application/x-msgpack' }] satisfies InjectOptions[]) {
        expectIngestError(await inject(h, 'POST', INGEST, { token, ...options }), 413, 'HTTP_BODY_TOO_LARGE');
      }
      const search = await inject(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token });
      expect(search.json).toEqual([]);
      expect((await inject(h, 'POST', INGEST, { token, json: batch.slice(0, 2) })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
