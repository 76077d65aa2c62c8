// Checks the domain-listing API over real HTTP: every path in JSON and XML, paging, errors, version header, isolation.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type CallResult, type Harness } from '../http/harness.js';
import { requireBuiltCli, runCli } from '../cli/cli-run.js';

const EXAMPLE = resolve(import.meta.dirname, '../../examples/dns-domains.json');
const BASE = '/dns/v1.0/t1';
const JSON_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+0000$/;
const XML_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: true,
  // Lists are arrays wherever they appear below the root element (a detail's root is a <domain>).
  isArray: (name: string, jpath: unknown) => ['domain', 'record', 'ns2:link'].includes(name) && String(jpath).includes('.'),
});

describe('domain listing over HTTP, data loaded by `strata dns import`', () => {
  let h: Harness;
  let alice: string;
  let bob: string;
  const ids: Record<string, number> = {};

  const get = (path: string, accept = 'application/json', token = alice): Promise<CallResult> => call(h, 'GET', path, { token, headers: { accept } });

  beforeAll(async () => {
    requireBuiltCli();
    h = await startHarness({});
    // The CLI writes dns.sqlite from another process while the server has it open.
    const run = await runCli(['dns', 'import', '--data', h.dir, '--tenant', 't1', EXAMPLE]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('imported 4 domains and 8 records for tenant t1\n');
    alice = await h.token('alice');
    bob = await h.token('bob');
    const all = await get(`${BASE}/domains`);
    for (const d of all.json.domains as { name: string; id: number }[]) ids[d.name] = d.id;
  });
  afterAll(async () => h.close());

  it('GET /domains/ in JSON: every domain, spec date format, comment only when set, X-API-VERSION', async () => {
    const res = await get(`${BASE}/domains/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-api-version')).toBe('1.0.0');
    expect(res.json.totalEntries).toBe(4);
    expect(res.json.links).toEqual([]);
    expect(res.json.domains.map((d: { name: string }) => d.name)).toEqual(['example.com', 'sub1.example.com', 'sub2.example.com', 'example.org']);
    const [first, , sub2] = res.json.domains;
    expect(first).toMatchObject({ name: 'example.com', comment: 'Primary domain of the sample account', emailAddress: 'hostmaster@example.com' });
    expect(Number.isInteger(first.id) && Number.isInteger(first.accountId)).toBe(true);
    expect(first.created).toMatch(JSON_DATE);
    expect(first.updated).toMatch(JSON_DATE);
    expect('comment' in sub2).toBe(false);
  });

  it('GET /domains/ in XML, parsed with a real XML parser: namespace, totalEntries, Z dates', async () => {
    const res = await get(`${BASE}/domains/`, 'application/xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(res.headers.get('x-api-version')).toBe('1.0.0');
    const doc = xml.parse(res.text).domains;
    expect(doc.xmlns).toBe('http://docs.rackspacecloud.com/dns/api/v1.0');
    expect(doc.totalEntries).toBe(4);
    expect(doc.domain.map((d: { name: string }) => d.name)).toEqual(['example.com', 'sub1.example.com', 'sub2.example.com', 'example.org']);
    expect(doc.domain[0].created).toMatch(XML_DATE);
    expect(doc.domain[0].id).toBe(ids['example.com']);
    expect(doc.domain[2].comment).toBeUndefined();
  });

  it('GET /domains/?name= matches the exact name only, with totalEntries of the filtered collection', async () => {
    const res = await get(`${BASE}/domains/?name=sub1.example.com`);
    expect(res.json.totalEntries).toBe(1);
    expect(res.json.domains).toHaveLength(1);
    expect(res.json.domains[0].comment).toBe('1st sample subdomain');
    expect((await get(`${BASE}/domains/?name=example`)).json.totalEntries).toBe(0);
    const x = xml.parse((await get(`${BASE}/domains?name=example.org`, 'application/xml')).text).domains;
    expect(x.totalEntries).toBe(1);
    expect(x.domain[0].name).toBe('example.org');
  });

  it('GET /domains/{id} shows the domain with paged recordsList and subdomains, in both formats', async () => {
    const id = ids['example.com'];
    const res = await get(`${BASE}/domains/${id}?limit=4`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id, name: 'example.com', ttl: 3600 });
    expect(res.json.recordsList.totalEntries).toBe(6);
    expect(res.json.recordsList.records).toHaveLength(4);
    expect(res.json.recordsList.records[0]).toMatchObject({ name: 'example.com', type: 'A', data: '192.0.2.10', ttl: 3600 });
    expect(res.json.recordsList.records[0].id).toMatch(/^A-\d+$/);
    expect(res.json.recordsList.records[2]).toMatchObject({ type: 'MX', priority: 5 });
    expect(res.json.recordsList.links).toEqual([{ rel: 'next', href: `${h.url}${BASE}/domains/${id}/records?limit=4&offset=4`, content: '' }]);
    expect(res.json.subdomains).toMatchObject({ totalEntries: 2, links: [] });
    const x = xml.parse((await get(`${BASE}/domains/${id}?limit=4`, 'application/xml')).text).domain;
    expect(x).toMatchObject({ id, name: 'example.com', ttl: 3600 });
    expect(x.recordsList.totalEntries).toBe(6);
    expect(x.recordsList.record).toHaveLength(4);
    expect(x.recordsList['ns2:link'][0]).toMatchObject({ rel: 'next' });
    expect(x.subdomains.domain.map((d: { name: string }) => d.name)).toEqual(['sub1.example.com', 'sub2.example.com']);
    const bare = await get(`${BASE}/domains/${id}?showRecords=false&showSubdomains=false`);
    expect(bare.json.recordsList).toBeUndefined();
    expect(bare.json.subdomains).toBeUndefined();
  });

  it('GET /domains/{id}/subdomains and /records in both formats', async () => {
    const id = ids['example.com'];
    const subs = await get(`${BASE}/domains/${id}/subdomains`);
    expect(subs.json).toMatchObject({ totalEntries: 2, links: [] });
    expect(subs.json.domains.map((d: { name: string }) => d.name)).toEqual(['sub1.example.com', 'sub2.example.com']);
    const subsXml = xml.parse((await get(`${BASE}/domains/${id}/subdomains`, 'application/xml')).text).domains;
    expect(subsXml.totalEntries).toBe(2);
    const records = await get(`${BASE}/domains/${id}/records?limit=2&offset=2`);
    expect(records.json.totalEntries).toBe(6);
    expect(records.json.records.map((r: { type: string }) => r.type)).toEqual(['MX', 'A']);
    expect(records.json.links).toEqual([
      { rel: 'previous', href: `${h.url}${BASE}/domains/${id}/records?limit=2&offset=0`, content: '' },
      { rel: 'next', href: `${h.url}${BASE}/domains/${id}/records?limit=2&offset=4`, content: '' },
    ]);
    const recordsXml = xml.parse((await get(`${BASE}/domains/${id}/records?limit=2&offset=2`, 'application/xml')).text).records;
    expect(recordsXml.totalEntries).toBe(6);
    expect(recordsXml.record.map((r: { type: string }) => r.type)).toEqual(['MX', 'A']);
    expect(recordsXml.record[0].updated).toMatch(XML_DATE);
    expect(recordsXml['ns2:link'].map((l: { rel: string }) => l.rel)).toEqual(['previous', 'next']);
  });

  it('pages with limit and offset: next and previous only when items exist that way; limit over 100 means 100', async () => {
    const first = await get(`${BASE}/domains?limit=3`);
    expect(first.json.links).toEqual([{ rel: 'next', href: `${h.url}${BASE}/domains?limit=3&offset=3`, content: '' }]);
    const second = await get(`${BASE}/domains?limit=3&offset=3`);
    expect(second.json.domains.map((d: { name: string }) => d.name)).toEqual(['example.org']);
    expect(second.json.links).toEqual([{ rel: 'previous', href: `${h.url}${BASE}/domains?limit=3&offset=0`, content: '' }]);
    const big = await get(`${BASE}/domains?limit=500&offset=100`);
    expect(big.status).toBe(200);
    expect(big.json.domains).toEqual([]);
    expect(big.json.links).toEqual([{ rel: 'previous', href: `${h.url}${BASE}/domains?limit=100&offset=0`, content: '' }]);
  });

  it('answers 400 for an offset that is not a multiple of the limit, and for a bad limit, in both formats', async () => {
    const json = await get(`${BASE}/domains?offset=5`);
    expect(json.status).toBe(400);
    expect(json.headers.get('x-api-version')).toBe('1.0.0');
    expect(json.json).toEqual({ message: expect.stringContaining('multiple of the limit 100'), code: 400, details: 'DNS_OFFSET_INVALID' });
    const asXml = await get(`${BASE}/domains/${ids['example.com']}/records?limit=4&offset=6`, 'application/xml');
    expect(asXml.status).toBe(400);
    const fault = xml.parse(asXml.text).badRequest;
    expect(fault).toMatchObject({ code: 400, details: 'DNS_OFFSET_INVALID', xmlns: 'http://docs.rackspacecloud.com/dns/api/v1.0' });
    for (const query of ['limit=0', 'limit=abc', 'limit=-1', 'offset=x']) {
      const res = await get(`${BASE}/domains?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.details).toMatch(/^DNS_(LIMIT|OFFSET)_INVALID$/);
    }
  });

  it('answers 401 without a valid token, in the DNS shapes, with X-API-VERSION', async () => {
    const json = await call(h, 'GET', `${BASE}/domains`);
    expect(json.status).toBe(401);
    expect(json.headers.get('x-api-version')).toBe('1.0.0');
    expect(json.json).toMatchObject({ code: 401, details: 'AUTH_TOKEN_MISSING' });
    const asXml = await call(h, 'GET', `${BASE}/domains`, { token: 'f'.repeat(32), headers: { accept: 'application/xml' } });
    expect(asXml.status).toBe(401);
    expect(xml.parse(asXml.text).unauthorized).toMatchObject({ code: 401, details: 'AUTH_TOKEN_INVALID' });
  });

  it('keeps tenants apart: 403 on another tenant URL, 404 for its ids, an empty account of one own', async () => {
    expect((await get(`${BASE}/domains`, 'application/json', bob)).status).toBe(403);
    const own = await get('/dns/v1.0/t2/domains', 'application/json', bob);
    expect(own.json).toEqual({ domains: [], links: [], totalEntries: 0 });
    for (const path of ['', '/records', '/subdomains']) {
      const res = await get(`/dns/v1.0/t2/domains/${ids['example.com']}${path}`, 'application/xml', bob);
      expect(res.status).toBe(404);
      expect(xml.parse(res.text).itemNotFound).toMatchObject({ code: 404, details: 'DNS_DOMAIN_NOT_FOUND' });
    }
    expect((await get(`${BASE}/domains/abc`)).status).toBe(404);
    const unknown = await get(`${BASE}/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-api-version')).toBe('1.0.0');
    const post = await call(h, 'POST', `${BASE}/domains`, { token: alice, json: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a failed import changes nothing (all or nothing)', async () => {
    const doc = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { domains: { name: string }[] };
    const fresh = { domains: [{ ...doc.domains[1], name: 'fresh.net', recordsList: { records: [] } }, doc.domains[0]] };
    expect(() => h.app.strata.dns.importDocument('t1', fresh)).toThrow(expect.objectContaining({ code: 'DNS_IMPORT_INVALID' }));
    expect((await get(`${BASE}/domains?name=fresh.net`)).json.totalEntries).toBe(0);
  });
});
