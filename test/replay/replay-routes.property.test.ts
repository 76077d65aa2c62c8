// Property tests of replay's route table: the five recorded routes match for any tenant and metric; any other method, path or unsafe URL never does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPLAY_ROUTES, matchRoute } from '../../src/replay/replay-routes.js';

const tenantArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((t) => t !== '.' && t !== '..');
const metricArb = fc.stringMatching(/^[a-z][a-z0-9.]{0,15}$/);
const queryArb = fc.option(fc.stringMatching(/^[a-z]{1,5}=[0-9a-z*]{0,8}(&[a-z]{1,5}=[0-9]{0,8}){0,3}$/), { nil: undefined });

/** The five recorded routes as (method, URL, route name) for a tenant, a metric and an optional query. */
function recorded(tenant: string, metric: string, query: string | undefined): Array<[string, string, string]> {
  const q = query === undefined ? '' : `?${query}`;
  return [
    ['POST', `/ingest/v2.0/${tenant}/ingest${q}`, 'ingest'],
    ['POST', `/ingest/v2.0/${tenant}/ingest/multi${q}`, 'ingest/multi'],
    ['GET', `/metrics/v2.0/${tenant}/views/${metric}${q}`, 'views (GET)'],
    ['POST', `/metrics/v2.0/${tenant}/views${q}`, 'views (POST)'],
    ['GET', `/metrics/v2.0/${tenant}/metrics/search${q}`, 'search'],
  ];
}

describe('matchRoute', () => {
  it('names the five recorded routes, and splits the URL around the tenant so that it reassembles', () => {
    fc.assert(
      fc.property(tenantArb, metricArb, queryArb, (tenant, metric, query) => {
        for (const [method, url, route] of recorded(tenant, metric, query)) {
          const match = matchRoute(method, url);
          expect(match?.route, `${method} ${url}`).toBe(route);
          expect(match?.tenant).toBe(tenant);
          expect(`${match?.beforeTenant}${tenant}${match?.afterTenant}`).toBe(url);
        }
      }),
    );
    expect(REPLAY_ROUTES).toEqual(['ingest', 'ingest/multi', 'views (GET)', 'views (POST)', 'search']);
  });

  it('decodes a percent-encoded tenant segment', () => {
    expect(matchRoute('POST', '/ingest/v2.0/a%2Db/ingest')?.tenant).toBe('a-b');
  });

  it('matches nothing with another method, whatever the recorded path', () => {
    fc.assert(
      fc.property(tenantArb, metricArb, fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'get', 'post', 'CONNECT'), (tenant, metric, method) => {
        for (const [, url] of recorded(tenant, metric, undefined)) expect(matchRoute(method, url), `${method} ${url}`).toBeNull();
      }),
    );
    // A recorded route's path with the other recorded method.
    expect(matchRoute('GET', '/ingest/v2.0/t/ingest')).toBeNull();
    expect(matchRoute('POST', '/metrics/v2.0/t/views/cpu')).toBeNull();
    expect(matchRoute('GET', '/metrics/v2.0/t/views')).toBeNull();
  });

  it('matches no other API, even with a recorded method (the crafted recordings of the review)', () => {
    for (const [method, url] of [
      ['POST', '/monitoring/v1.0/100000/entities'],
      ['DELETE', '/v2.0/tokens'],
      ['POST', '/v2.0/tokens'],
      ['GET', '/v2.0/tokens/abc'],
      ['POST', '/v2.0/users'],
      ['GET', '/metrics/v1.0/t1/views/cpu'],
      ['POST', '/ingest/v1.0/t1/ingest'],
      ['POST', '/ingest/v2.0/t1/ingest/other'],
      ['POST', '/ingest/v2.0/t1/ingest/multi/x'],
      ['GET', '/metrics/v2.0/t1/views/cpu/extra'],
      ['GET', '/metrics/v2.0/t1/metrics/search/x'],
      ['GET', '/metrics'],
      ['GET', '/'],
    ] as const) {
      expect(matchRoute(method, url), `${method} ${url}`).toBeNull();
    }
  });

  it("refuses URLs that do not start with '/', hold an empty segment or a dot segment, encoded or not", () => {
    for (const url of [
      'ingest/v2.0/t/ingest',
      'http://evil.test/ingest/v2.0/t/ingest',
      '//evil.test/ingest/v2.0/t/ingest',
      '/ingest//v2.0/t/ingest',
      '/ingest/v2.0//ingest',
      '/ingest/v2.0/t/ingest/',
      '/ingest/v2.0/../ingest',
      '/ingest/v2.0/./ingest',
      '/ingest/v2.0/%2e%2e/ingest',
      '/ingest/v2.0/%2E/ingest',
      '/ingest/v2.0/%zz/ingest',
      '/ingest/v2.0/t/ingest#frag',
      '',
    ]) {
      expect(matchRoute('POST', url), url).toBeNull();
    }
    expect(matchRoute('GET', '/metrics/v2.0/t/views/..?from=1')).toBeNull();
    expect(matchRoute('GET', '/metrics/v2.0/t/views/%2E%2E')).toBeNull();
  });

  it('never matches a path that has an empty or dot segment, for any inserted segment', () => {
    fc.assert(
      fc.property(tenantArb, metricArb, fc.constantFrom('', '.', '..', '%2e', '%2e%2E'), fc.nat(), (tenant, metric, bad, at) => {
        for (const [method, url] of recorded(tenant, metric, undefined)) {
          const segments = url.split('/');
          const index = 1 + (at % (segments.length - 1));
          segments.splice(index, 1, bad);
          expect(matchRoute(method, segments.join('/')), segments.join('/')).toBeNull();
        }
      }),
    );
  });
});
