// Checks the DNS plugin's paging validation in-process (fastify inject): limit and offset codes in JSON and XML, and X-API-VERSION on every response.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../harness.js';
import { tokenOf } from '../../inject.js';

const EXAMPLE = resolve(import.meta.dirname, '../../../../examples/dns-domains.json');
const BASE = '/dns/v1.0/t1';
const DNS_NS = 'http://docs.rackspacecloud.com/dns/api/v1.0';
const VERSION = '1.0.0';
const XML_TYPE = 'application/xml';
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseAttributeValue: true });

let h: Harness;
let alice: string;
let domainId = 0;

async function send(method: string, url: string, options: { accept?: string; token?: string | null } = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? alice : options.token;
  if (token !== null) headers['x-auth-token'] = token;
  if (options.accept !== undefined) headers['accept'] = options.accept;
  return h.app.inject({ method: method as 'GET', url, headers });
}


function expectVersion(res: LightMyRequestResponse): void {
  expect(res.headers['x-api-version'], `${res.statusCode} ${res.body}`).toBe(VERSION);
}

/** Asserts the JSON DNS fault: exactly {message, code: <status>, details: <Strata code>}, with the version header. */
function expectJsonFault(res: LightMyRequestResponse, status: number, code: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expectVersion(res);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message']);
  expect(body['code']).toBe(status);
  expect(body['details']).toMatch(code);
  expect(typeof body['message']).toBe('string');
  expect((body['message'] as string).length).toBeGreaterThan(0);
}

/** Asserts the XML DNS fault: <faultName xmlns=DNS code="<status>"><message/><details>CODE</details></faultName>, with the version header. */
function expectXmlFault(res: LightMyRequestResponse, status: number, fault: string, code: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  expectVersion(res);
  const doc = xml.parse(res.body) as Record<string, any>;
  expect(Object.keys(doc).filter((key) => key !== '?xml')).toEqual([fault]);
  const root = doc[fault] as Record<string, unknown>;
  expect(root['@_xmlns']).toBe(DNS_NS);
  expect(root['@_code']).toBe(status);
  expect(typeof root['message']).toBe('string');
  expect(root['details']).toMatch(code);
}

/** Every collection the paging parameters apply to. */
function collections(): string[] {
  return [`${BASE}/domains`, `${BASE}/domains/`, `${BASE}/domains/${domainId}`, `${BASE}/domains/${domainId}/subdomains`, `${BASE}/domains/${domainId}/records`];
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
  h.app.strata.dns.importDocument('t1', JSON.parse(readFileSync(EXAMPLE, 'utf8')));
  const list = await send('GET', `${BASE}/domains?name=example.com`);
  expect(list.statusCode, list.body).toBe(200);
  domainId = (list.json() as { domains: { id: number }[] }).domains[0]?.id ?? 0;
  expect(domainId).toBeGreaterThan(0);
});
afterAll(async () => h.close());

describe('DNS paging parameters', () => {
  it.each([
    ['limit=0', 'DNS_LIMIT_INVALID'],
    ['limit=x', 'DNS_LIMIT_INVALID'],
    ['limit=1.5', 'DNS_LIMIT_INVALID'],
    ['limit=-1', 'DNS_LIMIT_INVALID'],
    ['limit=%205', 'DNS_LIMIT_INVALID'],
    ['limit=0x10', 'DNS_LIMIT_INVALID'],
    ['limit=10&offset=5', 'DNS_OFFSET_INVALID'],
    ['offset=3', 'DNS_OFFSET_INVALID'],
    ['limit=2&offset=3', 'DNS_OFFSET_INVALID'],
    ['limit=10&offset=-10', 'DNS_OFFSET_INVALID'],
    ['limit=10&offset=x', 'DNS_OFFSET_INVALID'],
    ['limit=10&offset=10.0', 'DNS_OFFSET_INVALID'],
    ['limit=5&limit=5', 'DNS_LIMIT_INVALID'],
    ['limit=5&limit=10', 'DNS_LIMIT_INVALID'],
    ['offset=0&offset=0', 'DNS_OFFSET_INVALID'],
    ['limit=5&offset=0&offset=5', 'DNS_OFFSET_INVALID'],
  ])('%s is a 400 %s on every collection, in JSON and in XML', async (query, code) => {
    for (const path of collections()) {
      const url = `${path}?${query}`;
      expectJsonFault(await send('GET', url), 400, code);
      expectJsonFault(await send('GET', url, { accept: 'application/json' }), 400, code);
      expectXmlFault(await send('GET', url, { accept: XML_TYPE }), 400, 'badRequest', code);
      expectXmlFault(await send('GET', url, { accept: 'application/xml, application/json;q=0.5' }), 400, 'badRequest', code);
    }
  });

  it.each(['limit=1', 'limit=2&offset=2', 'offset=0', 'limit=', 'limit=10&offset=', 'limit=100&offset=100', 'limit=101'])('%s is served on every collection', async (query) => {
    for (const path of collections()) {
      for (const accept of [undefined, XML_TYPE]) {
        const res = await send('GET', `${path}?${query}`, accept === undefined ? {} : { accept });
        expect(res.statusCode, `${path}?${query} ${res.body}`).toBe(200);
        expectVersion(res);
      }
    }
  });

  it('a limit above the maximum pages by the default (spec 8), not by the value given', async () => {
    const res = await send('GET', `${BASE}/domains?limit=101`);
    expect(res.statusCode).toBe(200);
    expect((res.json() as { domains: unknown[] }).domains.length).toBeLessThanOrEqual(100);
    // The next offset must then be a multiple of the default, not of 101.
    expectJsonFault(await send('GET', `${BASE}/domains?limit=101&offset=101`), 400, 'DNS_OFFSET_INVALID');
  });
});

describe('X-API-VERSION on every DNS response', () => {
  it('is on 200s in JSON and XML, and on HEAD', async () => {
    for (const path of collections()) {
      for (const accept of [undefined, 'application/json', XML_TYPE]) expectVersion(await send('GET', path, accept === undefined ? {} : { accept }));
      const head = await send('HEAD', path);
      expect(head.statusCode).toBe(200);
      expectVersion(head);
    }
  });

  it('is on 401s (no token, unknown token) in both forms', async () => {
    expectJsonFault(await send('GET', `${BASE}/domains`, { token: null }), 401, 'AUTH_TOKEN_MISSING');
    expectXmlFault(await send('GET', `${BASE}/domains`, { token: null, accept: XML_TYPE }), 401, 'unauthorized', 'AUTH_TOKEN_MISSING');
    expectJsonFault(await send('GET', `${BASE}/domains`, { token: 'f'.repeat(32) }), 401, 'AUTH_TOKEN_INVALID');
  });

  it('is on 403s (another tenant)', async () => {
    const bob = await tokenOf(h, 'bob');
    expectJsonFault(await send('GET', `${BASE}/domains`, { token: bob }), 403, 'AUTH_TENANT_FORBIDDEN');
    expectXmlFault(await send('GET', `${BASE}/domains/${domainId}`, { token: bob, accept: XML_TYPE }), 403, 'forbidden', 'AUTH_TENANT_FORBIDDEN');
  });

  it.each([`${BASE}/nope`, `${BASE}/domains/1/nope`, '/dns/v1.0/', '/dns/v1.0', `${BASE}/domains/1/records/1/extra`])(
    'is on the 404 of the unknown URL %s, with or without a token, in both forms',
    async (path) => {
      for (const token of [undefined, null]) {
        const options = token === undefined ? {} : { token };
        expectJsonFault(await send('GET', path, options), 404, 'HTTP_ROUTE_NOT_FOUND');
        expectXmlFault(await send('GET', path, { ...options, accept: XML_TYPE }), 404, 'itemNotFound', 'HTTP_ROUTE_NOT_FOUND');
      }
    },
  );

  it('is on the 404 of an unknown or malformed domain id, in both forms', async () => {
    for (const id of ['999999', 'abc', '0']) {
      for (const suffix of ['', '/records', '/subdomains']) {
        expectJsonFault(await send('GET', `${BASE}/domains/${id}${suffix}`), 404, 'DNS_DOMAIN_NOT_FOUND');
        expectXmlFault(await send('GET', `${BASE}/domains/${id}${suffix}`, { accept: XML_TYPE }), 404, 'itemNotFound', 'DNS_DOMAIN_NOT_FOUND');
      }
    }
  });

  it('is on 405s, with Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      for (const path of collections()) {
        const res = await send(method, path);
        expectJsonFault(res, 405, 'HTTP_METHOD_NOT_ALLOWED');
        expect(res.headers['allow']).toBe('GET, HEAD');
      }
    }
  });

  it('is on the 415 of an Accept header the API cannot answer', async () => {
    const res = await send('GET', `${BASE}/domains`, { accept: 'text/csv' });
    expect(res.statusCode, res.body).toBe(415);
    expectVersion(res);
  });

  it('is not on responses of other APIs (the hook is scoped to the DNS plugin)', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/monitoring/v1.0/t1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-api-version']).toBeUndefined();
  });
});
