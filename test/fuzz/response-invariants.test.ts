// Checks that the fuzz invariants catch what they claim to (a 5xx, a wrong error shape, a missing transaction id, a polluted prototype), so a fuzz run cannot pass vacuously.
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPrototypes, checkResponse, type FuzzRequest } from './response-invariants.js';

const TXN = '.r-abc.c-1.ts-1.v-strata';

function answer(statusCode: number, body: unknown, headers: Record<string, string> = {}): LightMyRequestResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { statusCode, body: text, headers: { 'content-type': 'application/json; charset=utf-8', 'x-response-id': TXN, ...headers } } as unknown as LightMyRequestResponse;
}

const get = (url: string, headers: Record<string, string> = {}): FuzzRequest => ({ method: 'GET', url, headers });
const metricsFault = (status: number, type: string) => ({ type, code: status, message: 'm', details: { code: 'HTTP_ROUTE_NOT_FOUND' }, txnId: TXN });

describe('fuzz invariants', () => {
  it('accept the error shape of each API', () => {
    expect(() => checkResponse(get('/metrics/v2.0/t1/x'), answer(404, metricsFault(404, 'notFoundError')))).not.toThrow();
    expect(() => checkResponse(get('/v2.0/tokens/x'), answer(404, { itemNotFound: { code: 404, message: 'm' } }))).not.toThrow();
    expect(() => checkResponse(get('/dns/v1.0/t1/x'), answer(404, { message: 'm', code: 404, details: 'HTTP_ROUTE_NOT_FOUND' }))).not.toThrow();
    expect(() => checkResponse(get('/feeds/t1/x', { accept: 'application/json' }), answer(404, { error: { code: '404', message: 'm', details: { code: 'HTTP_ROUTE_NOT_FOUND' } } }))).not.toThrow();
    const xml = '<?xml version="1.0"?><error xmlns="http://abdera.apache.org"><code>404</code><message>m</message><details>HTTP_ROUTE_NOT_FOUND</details></error>';
    expect(() => checkResponse(get('/feeds/t1/x'), answer(404, xml, { 'content-type': 'application/xml; charset=utf-8' }))).not.toThrow();
  });

  it('refuse a 5xx, and a 503 without Retry-After', () => {
    expect(() => checkResponse(get('/healthz'), answer(500, metricsFault(500, 'internalError')))).toThrow(/no 5xx/);
    expect(() => checkResponse(get('/healthz'), answer(503, metricsFault(503, 'systemFailureError')))).toThrow(/Retry-After/);
    expect(() => checkResponse(get('/healthz'), answer(503, metricsFault(503, 'systemFailureError'), { 'retry-after': '1' }))).not.toThrow();
  });

  it('refuse an error in another API shape, a missing transaction id, and a feeds error in JSON where Atom was the default', () => {
    expect(() => checkResponse(get('/v2.0/tokens/x'), answer(404, metricsFault(404, 'notFoundError')))).toThrow(/identity/);
    expect(() => checkResponse(get('/metrics/v2.0/t1/x'), answer(404, { itemNotFound: { code: 404, message: 'm' } }))).toThrow(/metrics error body/);
    expect(() => checkResponse(get('/healthz'), answer(200, { status: 'ok' }, { 'x-response-id': '' }))).toThrow(/X-Response-Id/);
    expect(() => checkResponse(get('/feeds/t1/x'), answer(404, { error: { code: '404', message: 'm', details: { code: 'X_Y' } } }))).toThrow(/xml/);
  });

  describe('prototypes', () => {
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>)['fuzzPolluted'];
    });
    it('notice a property added to Object.prototype', () => {
      (Object.prototype as Record<string, unknown>)['fuzzPolluted'] = true;
      expect(() => checkPrototypes(get('/'), undefined)).toThrow(/Object.prototype was polluted: fuzzPolluted/);
    });
  });
});
