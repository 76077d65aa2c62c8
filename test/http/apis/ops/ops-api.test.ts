// Tests the operational routes in process (inject): /healthz, Prometheus /metrics, unmatched root URLs, and the transaction id on every response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf, TXN_ID_PATTERN } from '../../inject.js';

const START_MS = Date.UTC(2026, 0, 1, 12);

/** One line of the Prometheus text exposition format (0.0.4): a comment, or a sample with optional labels. */
const EXPOSITION_LINE = /^(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.]+(e[+-]?[0-9]+)?|NaN|[+-]Inf)( -?[0-9]+)?)$/;

describe('operational routes (in process)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
  });
  afterAll(async () => h.close());

  describe('GET /healthz', () => {
    it('answers 200 {"status":"ok"} in JSON without a token, also for HEAD and with a query string', async () => {
      const res = await inject(h, 'GET', '/healthz');
      expect(res.status).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(res.text).toBe('{"status":"ok"}');
      const head = await inject(h, 'HEAD', '/healthz');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect((await inject(h, 'GET', '/healthz?verbose=1')).json).toEqual({ status: 'ok' });
    });

    it('negotiates Accept: JSON-allowing values answer, others are 415 HTTP_ACCEPT_UNSUPPORTED', async () => {
      for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.1', '']) {
        expect((await inject(h, 'GET', '/healthz', { accept })).status, accept).toBe(200);
      }
      for (const accept of ['text/html', 'text/plain', 'application/json;q=0']) {
        expectMetricsError(await inject(h, 'GET', '/healthz', { accept }), 415, 'HTTP_ACCEPT_UNSUPPORTED', { produces: ['application/json'] });
      }
    });

    it('answers an Accept of application/json with a charset parameter, the very type it sends', async () => {
      const res = await inject(h, 'GET', '/healthz', { accept: 'application/json; charset=utf-8' });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.json).toEqual({ status: 'ok' });
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('405 methodNotAllowedError with Allow: GET, HEAD for %s', async (method) => {
      const res = await inject(h, method, '/healthz', { json: { status: 'down' } });
      expectMetricsError(res, 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
      expect(res.headers['allow']).toBe('GET, HEAD');
    });
  });

  describe('GET /metrics', () => {
    it('answers Prometheus text (exposition format 0.0.4) without a token, counting earlier requests', async () => {
      expect((await inject(h, 'GET', '/healthz')).status).toBe(200);
      const res = await inject(h, 'GET', '/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      const lines = res.text.split('\n').filter((line) => line !== '');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(EXPOSITION_LINE);
      expect(res.text).toContain('# TYPE strata_http_request_duration_seconds histogram');
      expect(res.text).toMatch(/^strata_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
      for (const name of ['strata_points_ingested_total', 'strata_points_rejected_total', 'strata_admission_queue_depth', 'strata_rollup_lag_seconds', 'strata_head_points']) {
        expect(res.text).toContain(`# TYPE ${name} `);
      }
    });

    it('counts ingested points per format', async () => {
      const token = await tokenOf(h, 'alice');
      const ingest = await inject(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: [{ metricName: 'ops.m', metricValue: 1, collectionTime: START_MS - 1000 }, { metricName: '', metricValue: 1, collectionTime: START_MS - 1000 }] });
      expect(ingest.status).toBe(207);
      const res = await inject(h, 'GET', '/metrics');
      expect(res.text).toMatch(/^strata_points_ingested_total\{format="json"\} 1$/m);
      expect(res.text).toMatch(/^strata_points_rejected_total\{format="json"\} 1$/m);
    });

    it('answers text/plain for Accept text/plain and */*; 415 HTTP_ACCEPT_UNSUPPORTED, in the metrics shape, for an Accept it cannot meet', async () => {
      const prometheus = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
      for (const accept of ['text/plain', '*/*', 'text/*', prometheus]) {
        const res = await inject(h, 'GET', '/metrics', { accept });
        expect(res.status, accept).toBe(200);
        expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
      }
      for (const accept of ['application/json', 'text/html', 'text/plain;q=0']) {
        expectMetricsError(await inject(h, 'GET', '/metrics', { accept }), 415, 'HTTP_ACCEPT_UNSUPPORTED', { produces: ['text/plain'] });
      }
    });

    it('answers Accept: text/plain;version=0.0.4, the very format it serves', async () => {
      const res = await inject(h, 'GET', '/metrics', { accept: 'text/plain;version=0.0.4' });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    });

    it('answers in the media type it negotiated: an Accept of only OpenMetrics gets OpenMetrics (or a 415), never text/plain', async () => {
      const res = await inject(h, 'GET', '/metrics', { accept: 'application/openmetrics-text' });
      if (res.status === 200) {
        expect(String(res.headers['content-type'])).toMatch(/^application\/openmetrics-text/);
        expect(res.text.trimEnd().endsWith('# EOF')).toBe(true);
      } else {
        expectMetricsError(res, 415, 'HTTP_ACCEPT_UNSUPPORTED');
      }
    });

    it.each(['POST', 'PUT', 'DELETE'] as const)('405 with Allow: GET, HEAD for %s', async (method) => {
      expectMetricsError(await inject(h, method, '/metrics'), 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
    });
  });

  describe('unmatched URLs at the root and the transaction id', () => {
    // `/` is the web console's page (test/http/apis/console/).
    it.each(['/nothing', '/healthz/extra', '/assets', '/assets/x/y', '/metricsx', '/metrics/v1.0/t1', '/v1.0/tokens', '/ingest', '/HEALTHZ'])(
      '404 notFoundError HTTP_ROUTE_NOT_FOUND for GET %s, whatever it accepts',
      async (url) => {
        const res = await inject(h, 'GET', url, { accept: 'text/html' });
        expectMetricsError(res, 404, 'HTTP_ROUTE_NOT_FOUND');
        expect(res.json.message).toBe(`No resource at GET ${url}.`);
      },
    );

    it('404 for other methods on unknown URLs too, in the same shape', async () => {
      expectMetricsError(await inject(h, 'POST', '/nothing', { json: {} }), 404, 'HTTP_ROUTE_NOT_FOUND');
      expectMetricsError(await inject(h, 'DELETE', '/nothing'), 404, 'HTTP_ROUTE_NOT_FOUND');
    });

    it('gives every response its own transaction id, repeated as txnId in error bodies', async () => {
      const responses = [
        await inject(h, 'GET', '/healthz'),
        await inject(h, 'HEAD', '/healthz'),
        await inject(h, 'GET', '/metrics'),
        await inject(h, 'GET', '/nothing'),
        await inject(h, 'POST', '/healthz'),
        await inject(h, 'GET', '/healthz', { accept: 'text/html' }),
        await inject(h, 'GET', '/openapi.json'),
      ];
      const ids = responses.map((res) => res.txnId);
      for (const id of ids) expect(id).toMatch(TXN_ID_PATTERN);
      expect(new Set(ids).size).toBe(ids.length);
      for (const res of responses.filter((r) => r.status >= 400)) expect(res.json.txnId).toBe(res.txnId);
    });

    it('answers a URL that is not valid percent-encoding in the metrics shape, with a transaction id', async () => {
      expectMetricsError(await inject(h, 'GET', '/%zz'), 400, 'HTTP_REQUEST_INVALID');
    });
  });
});

describe('GET /healthz once the store is closed (in process)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
  });
  afterAll(async () => h.close());

  it('answers 503 systemFailureError STORE_CLOSED with Retry-After, in the metrics shape', async () => {
    expect((await inject(h, 'GET', '/healthz')).status).toBe(200);
    await h.app.strata.store.close();
    const res = await inject(h, 'GET', '/healthz');
    expectMetricsError(res, 503, 'STORE_CLOSED');
    expect(res.headers['retry-after']).toBe('1');
  });
});
