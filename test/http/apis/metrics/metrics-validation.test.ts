// Tests the metrics query plugin's validation in process (inject): plot parameters, the views body, search, media types and methods, in the metrics error body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { SEARCH_GLOB_LENGTH_MAX, SEARCH_RESULTS_MAX, VIEWS_BODY_BYTES_MAX, VIEWS_METRICS_MAX } from '../../../../src/http/http-limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf } from '../../inject.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const START_MS = Date.UTC(2026, 0, 1, 12);
const FROM = START_MS - 2 * DAY_MS;
const RANGE = `from=${FROM}&to=${START_MS}`;
const VIEW = '/metrics/v2.0/t1/views/cpu';
const VIEWS = '/metrics/v2.0/t1/views';
const SEARCH = '/metrics/v2.0/t1/metrics/search';
/** Names the search tests match: one more than a search may return. */
const SEARCH_NAMES = Array.from({ length: SEARCH_RESULTS_MAX + 1 }, (_, i) => `many.${String(i).padStart(4, '0')}`);
const BODY_MESSAGE = 'The body must be a JSON array of metric names, e.g. ["a.b","c.d"].';

describe('metrics query API validation (in process)', () => {
  let h: Harness;
  let alice: string;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
    alice = await tokenOf(h, 'alice');
    // cpu: one point an hour over the last 47 hours; the search names, one point each.
    const cpu = Array.from({ length: 47 }, (_, i) => ({ metricName: 'cpu', metricValue: i, collectionTime: START_MS - 47 * HOUR_MS + i * HOUR_MS }));
    const names = SEARCH_NAMES.map((metricName) => ({ metricName, metricValue: 1, collectionTime: START_MS - HOUR_MS }));
    const written = await inject(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: [...cpu, ...names] });
    expect(written.status).toBe(200);
  });
  afterAll(async () => h.close());

  const get = (url: string, accept?: string) => inject(h, 'GET', url, { token: alice, ...(accept !== undefined ? { accept } : {}) });
  const postViews = (query: string, json: unknown) => inject(h, 'POST', `${VIEWS}?${query}`, { token: alice, json });

  describe('GET views/{metricName}: the plot parameters', () => {
    it.each<[string, string, string]>([
      ['from=abc', `from=abc&to=${START_MS}&resolution=FULL`, 'from'],
      ['to=1.5', `from=${START_MS - HOUR_MS}&to=1.5&resolution=FULL`, 'to'],
      ['to=abc', `from=${START_MS - HOUR_MS}&to=abc&resolution=FULL`, 'to'],
      ['from empty', `from=&to=${START_MS}&resolution=FULL`, 'from'],
      ['from=true', `from=true&to=${START_MS}&resolution=FULL`, 'from'],
      ['points=abc', `${RANGE}&points=abc`, 'points'],
      ['points=1.5', `${RANGE}&points=1.5`, 'points'],
      ['points empty', `${RANGE}&points=`, 'points'],
    ])('400 QUERY_INVALID naming the parameter for a wrong type: %s', async (_label, query, parameter) => {
      expectMetricsError(await get(`${VIEW}?${query}`), 400, 'QUERY_INVALID', { field: parameter });
    });

    it.each<[string, string, string]>([
      ['from', `from=${FROM}&from=${FROM + 1}&to=${START_MS}&resolution=MIN5`, 'from'],
      ['to', `from=${FROM}&to=${START_MS}&to=${START_MS - 1}&resolution=MIN5`, 'to'],
      ['points', `${RANGE}&points=10&points=10`, 'points'],
      ['resolution', `${RANGE}&resolution=MIN5&resolution=MIN5`, 'resolution'],
    ])('400 QUERY_INVALID for %s given twice', async (_label, query, parameter) => {
      expectMetricsError(await get(`${VIEW}?${query}`), 400, 'QUERY_INVALID', { field: parameter });
    });

    it.each<[string, string, string]>([
      ['from', `to=${START_MS}&resolution=FULL`, 'from'],
      ['to', `from=${FROM}&resolution=FULL`, 'to'],
      ['from and to', 'points=10', 'from'],
    ])('400 QUERY_INVALID for %s missing', async (_label, query, parameter) => {
      expectMetricsError(await get(`${VIEW}?${query}`), 400, 'QUERY_INVALID', { field: parameter });
    });

    it('400 for Infinity, whichever of the schema and the planner refuses it', async () => {
      for (const query of [`from=Infinity&to=${START_MS}&resolution=FULL`, `from=${FROM}&to=Infinity&resolution=FULL`, `${RANGE}&points=Infinity`]) {
        const res = await get(`${VIEW}?${query}`);
        expectMetricsError(res, 400, res.json?.details?.code === 'QUERY_RANGE_INVALID' ? 'QUERY_RANGE_INVALID' : 'QUERY_INVALID');
      }
    });

    it('400 QUERY_INVALID for a parameter given as hex, binary or octal text (not decimal milliseconds)', async () => {
      for (const query of [`from=0x10&to=${START_MS}&resolution=MIN1440`, `from=0b101&to=${START_MS}&resolution=MIN1440`, `from=0o17&to=${START_MS}&resolution=MIN1440`, `${RANGE}&points=0x10`]) {
        expectMetricsError(await get(`${VIEW}?${query}`), 400, 'QUERY_INVALID');
      }
    });

    it('400 QUERY_INVALID for a blank points (a space is not 0)', async () => {
      expectMetricsError(await get(`${VIEW}?${RANGE}&points=%20`), 400, 'QUERY_INVALID', { field: 'points' });
    });

    it('400 QUERY_POINTS_OR_RESOLUTION_REQUIRED for neither points nor resolution', async () => {
      expectMetricsError(await get(`${VIEW}?${RANGE}`), 400, 'QUERY_POINTS_OR_RESOLUTION_REQUIRED');
      expectMetricsError(await get(`${VIEW}?${RANGE}&select=max`), 400, 'QUERY_POINTS_OR_RESOLUTION_REQUIRED');
    });

    it('400 QUERY_RANGE_INVALID for from >= to and for bounds beyond safe integers', async () => {
      expectMetricsError(await get(`${VIEW}?from=${START_MS}&to=${START_MS - 1}&points=10`), 400, 'QUERY_RANGE_INVALID', { from: START_MS, to: START_MS - 1 });
      expectMetricsError(await get(`${VIEW}?from=${START_MS}&to=${START_MS}&points=10`), 400, 'QUERY_RANGE_INVALID');
      expectMetricsError(await get(`${VIEW}?from=100000000000000000000&to=1000000000000000000000&points=10`), 400, 'QUERY_RANGE_INVALID');
      expectMetricsError(await get(`${VIEW}?from=0&to=9007199254740993&points=10`), 400, 'QUERY_RANGE_INVALID');
    });

    it('400 QUERY_INVALID for points negative or beyond safe integers (the planner owns the value rule)', async () => {
      for (const points of ['-1', '99999999999999999999']) {
        const details = expectMetricsError(await get(`${VIEW}?${RANGE}&points=${points}`), 400, 'QUERY_INVALID');
        expect(JSON.stringify(details)).toContain('points');
      }
    });

    it('400 QUERY_RESOLUTION_INVALID for an unknown or empty resolution, even when points wins', async () => {
      for (const query of [`${RANGE}&resolution=MIN7`, `${RANGE}&resolution=`, `${RANGE}&resolution=FULL5`, `${RANGE}&points=10&resolution=HOURLY`]) {
        expectMetricsError(await get(`${VIEW}?${query}`), 400, 'QUERY_RESOLUTION_INVALID', { allowed: ['FULL', 'MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] });
      }
    });

    it('400 QUERY_SELECT_INVALID for an unknown, empty or non-stat select name', async () => {
      for (const select of ['median', '', 'average,,max', 'average&select=sum', 'timestamp', 'avg']) {
        expectMetricsError(await get(`${VIEW}?${RANGE}&resolution=MIN1440&select=${select}`), 400, 'QUERY_SELECT_INVALID');
      }
    });

    it('413 QUERY_POINTS_OVER_LIMIT when the plan holds more than 1440 points, whether resolution or points chose it', async () => {
      expectMetricsError(await get(`${VIEW}?${RANGE}&resolution=FULL`), 413, 'QUERY_POINTS_OVER_LIMIT', { resolution: 'FULL', expectedPoints: 5760 });
      expectMetricsError(await get(`${VIEW}?${RANGE}&points=3168`), 413, 'QUERY_POINTS_OVER_LIMIT', { resolution: 'FULL' });
    });

    it('accepts resolution in any case, select=numPoints, points=0 (MIN1440), and ignores unknown parameters', async () => {
      const exact = await get(`${VIEW}?${RANGE}&resolution=MIN1440`);
      expect(exact.status).toBe(200);
      expect(exact.json.values.map((v: { timestamp: number }) => v.timestamp % DAY_MS)).toEqual([0, 0, 0]);
      for (const query of [`${RANGE}&resolution=min1440`, `${RANGE}&resolution=Min1440&select=numPoints`, `${RANGE}&points=0`, `${RANGE}&points=0&resolution=FULL`, `${RANGE}&resolution=MIN1440&unknown=1`]) {
        const res = await get(`${VIEW}?${query}`);
        expect(res.status, query).toBe(200);
        expect(res.json, query).toEqual(exact.json);
      }
    });

    it('400 HTTP_REQUEST_INVALID for an empty metric name', async () => {
      expectMetricsError(await get(`${VIEW.replace('cpu', '')}?${RANGE}&resolution=FULL`), 400, 'HTTP_REQUEST_INVALID', { field: 'metricName' });
    });

    it('400 HTTP_REQUEST_INVALID in the metrics shape for a metric name that is not valid percent-encoding', async () => {
      expectMetricsError(await get(`${VIEWS}/%zz?${RANGE}&resolution=FULL`), 400, 'HTTP_REQUEST_INVALID');
    });

    it('answers a metric name longer than any URL parameter may be in the metrics shape, not fastify\'s', async () => {
      expectMetricsError(await get(`${VIEWS}/${'a'.repeat(3000)}?${RANGE}&resolution=FULL`), 400, 'HTTP_REQUEST_INVALID');
    });

    it('415 HTTP_ACCEPT_UNSUPPORTED for an Accept that allows no JSON', async () => {
      for (const accept of ['text/html', 'application/xml', 'application/json;q=0']) {
        expectMetricsError(await get(`${VIEW}?${RANGE}&resolution=MIN1440`, accept), 415, 'HTTP_ACCEPT_UNSUPPORTED', { produces: ['application/json'] });
      }
      expect((await get(`${VIEW}?${RANGE}&resolution=MIN1440`, 'text/html, */*;q=0.1')).status).toBe(200);
    });

    it('answers an Accept of application/json with a charset parameter, the very type it sends', async () => {
      const res = await get(`${VIEW}?${RANGE}&resolution=MIN1440`, 'application/json; charset=utf-8');
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('405 methodNotAllowed with Allow: GET, HEAD for %s', async (method) => {
      const res = await inject(h, method, `${VIEW}?${RANGE}&resolution=FULL`, { token: alice, json: ['cpu'] });
      expectMetricsError(res, 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
    });
  });

  describe('POST views: the metric names body', () => {
    const QUERY = `${RANGE}&resolution=MIN1440`;

    it('answers each metric in the order asked for 1 to 100 names', async () => {
      const names = ['cpu', ...SEARCH_NAMES.slice(0, VIEWS_METRICS_MAX - 2), 'none'];
      const res = await postViews(QUERY, names);
      expect(res.status).toBe(200);
      expect(res.json.metrics.map((m: { metric: string }) => m.metric)).toEqual(names);
      expect(res.json.metrics.at(-1)).toEqual({ metric: 'none', unit: 'unknown', type: 'number', data: [] });
    });

    it.each<[string, unknown, string]>([
      ['an object', { metrics: ['cpu'] }, 'must be array'],
      ['a string', 'cpu', 'must be array'],
      ['null', null, 'must be array'],
      ['an empty array', [], 'must NOT have fewer than 1 items'],
      ['a number among names', ['cpu', 1], 'must be string'],
      ['an empty name', [''], 'must NOT have fewer than 1 characters'],
      ['a nested array', [['cpu']], 'must be string'],
      ['an object among names', [{ metric: 'cpu' }], 'must be string'],
    ])('400 HTTP_BODY_INVALID for %s', async (_label, body, problem) => {
      const res = await postViews(QUERY, body);
      expectMetricsError(res, 400, 'HTTP_BODY_INVALID', { problem });
      expect(res.json.message).toBe(BODY_MESSAGE);
    });

    it(`400 QUERY_METRICS_TOO_MANY for more than ${VIEWS_METRICS_MAX} names`, async () => {
      const res = await postViews(QUERY, SEARCH_NAMES.slice(0, VIEWS_METRICS_MAX + 1));
      expectMetricsError(res, 400, 'QUERY_METRICS_TOO_MANY', { limit: VIEWS_METRICS_MAX });
      expect(res.json.message).toBe('Too many metrics fetch in a single call. Max limit is 100.');
    });

    it('400 HTTP_BODY_INVALID for unparsable JSON, an empty JSON body and no body', async () => {
      for (const text of ['["cpu",', '{', "['cpu']", '', ' ']) {
        const res = await inject(h, 'POST', `${VIEWS}?${QUERY}`, { token: alice, body: text, type: 'application/json' });
        expectMetricsError(res, 400, 'HTTP_BODY_INVALID');
        expect(res.json.message).toBe(BODY_MESSAGE);
      }
      expectMetricsError(await inject(h, 'POST', `${VIEWS}?${QUERY}`, { token: alice }), 400, 'HTTP_BODY_INVALID');
    });

    it(`413 HTTP_BODY_TOO_LARGE for a body over VIEWS_BODY_BYTES_MAX (${VIEWS_BODY_BYTES_MAX} bytes)`, async () => {
      expectMetricsError(await postViews(QUERY, ['x'.repeat(VIEWS_BODY_BYTES_MAX)]), 413, 'HTTP_BODY_TOO_LARGE');
    });

    it('415 HTTP_CONTENT_TYPE_UNSUPPORTED for a body that is not application/json, or has no Content-Type', async () => {
      for (const type of ['text/plain', 'application/x-msgpack', 'application/xml', 'application/x-www-form-urlencoded', undefined]) {
        const res = await inject(h, 'POST', `${VIEWS}?${QUERY}`, { token: alice, body: '["cpu"]', ...(type !== undefined ? { type } : {}) });
        expectMetricsError(res, 415, 'HTTP_CONTENT_TYPE_UNSUPPORTED');
      }
    });

    it('415 HTTP_ACCEPT_UNSUPPORTED for an Accept that allows no JSON', async () => {
      const res = await inject(h, 'POST', `${VIEWS}?${QUERY}`, { token: alice, json: ['cpu'], accept: 'text/csv' });
      expectMetricsError(res, 415, 'HTTP_ACCEPT_UNSUPPORTED');
    });

    it('validates the plot parameters as the GET does', async () => {
      expectMetricsError(await postViews(`from=abc&to=${START_MS}&resolution=FULL`, ['cpu']), 400, 'QUERY_INVALID', { field: 'from' });
      expectMetricsError(await postViews(`${RANGE}&resolution=FULL&resolution=FULL`, ['cpu']), 400, 'QUERY_INVALID', { field: 'resolution' });
      expectMetricsError(await postViews(`to=${START_MS}&points=1`, ['cpu']), 400, 'QUERY_INVALID', { field: 'from' });
      expectMetricsError(await postViews(RANGE, ['cpu']), 400, 'QUERY_POINTS_OR_RESOLUTION_REQUIRED');
      expectMetricsError(await postViews(`from=${START_MS}&to=${FROM}&points=1`, ['cpu']), 400, 'QUERY_RANGE_INVALID');
      expectMetricsError(await postViews(`${RANGE}&resolution=MIN7`, ['cpu']), 400, 'QUERY_RESOLUTION_INVALID');
      expectMetricsError(await postViews(`${QUERY}&select=sum`, ['cpu']), 400, 'QUERY_SELECT_INVALID');
      expectMetricsError(await postViews(`${RANGE}&resolution=FULL`, ['cpu']), 413, 'QUERY_POINTS_OVER_LIMIT');
    });

    it.each(['GET', 'PUT', 'PATCH', 'DELETE'] as const)('405 methodNotAllowed with Allow: POST for %s', async (method) => {
      expectMetricsError(await inject(h, method, `${VIEWS}?${QUERY}`, { token: alice }), 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'POST' });
    });
  });

  describe('GET metrics/search', () => {
    it('400 QUERY_INVALID for query missing, given twice, empty or too long', async () => {
      for (const query of ['', '?query=a*&query=b*', '?query=', `?query=${'a'.repeat(SEARCH_GLOB_LENGTH_MAX + 1)}`, '?glob=cpu']) {
        expectMetricsError(await get(`${SEARCH}${query}`), 400, 'QUERY_INVALID', { field: 'query' });
      }
      expect((await get(`${SEARCH}?query=${'a'.repeat(SEARCH_GLOB_LENGTH_MAX)}`)).json).toEqual([]);
    });

    it(`answers ${SEARCH_RESULTS_MAX} matches; 413 SEARCH_RESULTS_TOO_MANY for more, rather than a cut list`, async () => {
      const page = await get(`${SEARCH}?query=many.0*`);
      expect(page.status).toBe(200);
      expect(page.json).toHaveLength(SEARCH_RESULTS_MAX);
      expectMetricsError(await get(`${SEARCH}?query=many.*`), 413, 'SEARCH_RESULTS_TOO_MANY', { limit: SEARCH_RESULTS_MAX });
      expectMetricsError(await get(`${SEARCH}?query=*`), 413, 'SEARCH_RESULTS_TOO_MANY');
    });

    it('415 HTTP_ACCEPT_UNSUPPORTED for an Accept that allows no JSON', async () => {
      expectMetricsError(await get(`${SEARCH}?query=cpu`, 'text/plain'), 415, 'HTTP_ACCEPT_UNSUPPORTED');
    });

    it.each(['POST', 'PUT', 'DELETE'] as const)('405 methodNotAllowed with Allow: GET, HEAD for %s', async (method) => {
      expectMetricsError(await inject(h, method, `${SEARCH}?query=cpu`, { token: alice }), 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
    });
  });

  describe('auth and unknown URLs', () => {
    it('401 before any parameter is validated, 403 on another tenant', async () => {
      expectMetricsError(await inject(h, 'GET', `${VIEW}?from=abc`), 401, 'AUTH_TOKEN_MISSING');
      expectMetricsError(await inject(h, 'GET', `/metrics/v2.0/t2/views/cpu?from=abc`, { token: alice }), 403, 'AUTH_TENANT_FORBIDDEN');
    });

    it.each(['/metrics/v2.0', '/metrics/v2.0/', '/metrics/v2.0/t1', '/metrics/v2.0/t1/nothing', '/metrics/v2.0/t1/views/cpu/extra', '/metrics/v2.0/t1/metrics'])(
      '404 notFoundError HTTP_ROUTE_NOT_FOUND for GET %s, whatever it accepts',
      async (url) => {
        const res = await inject(h, 'GET', url, { token: alice, accept: 'text/html' });
        expectMetricsError(res, 404, 'HTTP_ROUTE_NOT_FOUND');
        expect(res.json.message).toBe(`No resource at GET ${url}.`);
      },
    );
  });
});
