// Checks the feeds plugin's request validation in-process (fastify inject): page parameters, credentials, published entries and media types, all in the feeds error shape.
import { XMLParser } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startHarness, type Harness } from '../../harness.js';
import { tokenOf } from '../../inject.js';

const FEEDS = ['/feeds/t1/usagesummary/bigdata/events', '/feeds/t1/monitoring/alerts/events'] as const;
const FEED = FEEDS[0];
const ATOM = 'application/atom+xml';
const ATOM_JSON = 'application/vnd.rackspace.atom+json';
const JSON_ACCEPTS = ['application/json', ATOM_JSON] as const;
/** Accept headers answered in XML: none (Atom is the default), Atom and plain XML. */
const XML_ACCEPTS = [undefined, ATOM, 'application/xml'] as const;
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' });

let h: Harness;
let alice: string;

interface Send {
  readonly raw?: string;
  readonly type?: string;
  readonly accept?: string | undefined;
  /** Credentials: alice's token by default, or these headers instead (`{}` for none). */
  readonly auth?: Record<string, string>;
}

async function send(method: string, url: string, options: Send = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(options.auth ?? { 'x-auth-token': alice }) };
  if (options.accept !== undefined) headers['accept'] = options.accept;
  if (options.type !== undefined) headers['content-type'] = options.type;
  return h.app.inject({ method: method as 'GET', url, headers, ...(options.raw !== undefined ? { payload: options.raw } : {}) });
}

function basic(user: string, key: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` };
}


/** Asserts the JSON feeds error: exactly {"error": {code: "<status>", message, details: {code, ...}}}; returns the details. */
function expectJsonFault(res: LightMyRequestResponse, status: number, code: string | RegExp): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as { error: Record<string, any> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message']);
  expect(body.error['code']).toBe(String(status));
  expect(typeof body.error['message']).toBe('string');
  expect(body.error['message'].length).toBeGreaterThan(0);
  expect(body.error['details']['code']).toMatch(code);
  return body.error['details'] as Record<string, unknown>;
}

/** Asserts the XML feeds error: <error xmlns="http://abdera.apache.org"><code/><message/><details>CODE</details></error>. */
function expectXmlFault(res: LightMyRequestResponse, status: number, code: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  const doc = xml.parse(res.body) as Record<string, any>;
  expect(Object.keys(doc).filter((key) => key !== '?xml')).toEqual(['error']);
  expect(doc['error']['@_xmlns']).toBe('http://abdera.apache.org');
  expect(doc['error']['code']).toBe(status);
  expect(typeof doc['error']['message']).toBe('string');
  expect(doc['error']['details']).toMatch(code);
}

/** Asserts the same error in every JSON and XML form the feeds answer in; returns the JSON details. */
async function expectFaultAnyForm(
  request: (accept: string | undefined) => Promise<LightMyRequestResponse>,
  status: number,
  code: string | RegExp,
): Promise<Record<string, unknown>> {
  let details: Record<string, unknown> = {};
  for (const accept of JSON_ACCEPTS) details = expectJsonFault(await request(accept), status, code);
  for (const accept of XML_ACCEPTS) expectXmlFault(await request(accept), status, code);
  return details;
}

function atomEntry(title: string, extra = ''): string {
  return `<?xml version="1.0"?><entry xmlns="http://www.w3.org/2005/Atom"><title>${title}</title>${extra}</entry>`;
}

/** Entries of the feed, read as JSON. */
async function entryCount(feed: string = FEED): Promise<number> {
  const res = await send('GET', `${feed}?limit=1000`, { accept: 'application/json' });
  expect(res.statusCode, res.body).toBe(200);
  const entries = (res.json() as { feed: { entry?: unknown[] } }).feed.entry;
  return entries?.length ?? 0;
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
  const res = await send('POST', FEED, { raw: atomEntry('seed'), type: ATOM });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => h.close());

describe.each(FEEDS)('feed page parameters of %s', (feed) => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=5&limit=5', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['direction=up', 'direction'],
    ['direction=FORWARD', 'direction'],
    ['direction=forward&direction=backward', 'direction'],
    ['marker=bogus', 'marker'],
    ['marker=urn:uuid:not-a-uuid', 'marker'],
    [`marker=urn:uuid:${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}&marker=last`, 'marker'],
    ['search=(cat=a)', 'search'],
    ['search=&search=', 'search'],
    ['startingAt=2020-01-01T00:00:00Z', 'startingAt'],
    ['startingAt=', 'startingAt'],
  ])('%s is a 400 FEED_QUERY_INVALID naming %s, in JSON and XML', async (query, parameter) => {
    const details = await expectFaultAnyForm((accept) => send('GET', `${feed}?${query}`, { accept }), 400, 'FEED_QUERY_INVALID');
    expect(details['parameter']).toBe(parameter);
  });

  it('a 400 carries no Basic challenge', async () => {
    const res = await send('GET', `${feed}?limit=0`, { accept: 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it.each(['limit=1', 'limit=1000', 'limit=', 'marker=last', 'marker=last&direction=backward', 'direction=forward', 'search=', 'limit=25&search=&direction=backward'])(
    '%s is served',
    async (query) => {
      for (const accept of [...JSON_ACCEPTS, ...XML_ACCEPTS]) {
        const res = await send('GET', `${feed}?${query}`, { accept });
        expect(res.statusCode, `${accept}: ${res.body}`).toBe(200);
      }
    },
  );

  it('a well-formed marker of no entry is a 400 in the feeds shape (FEED_MARKER_NOT_FOUND)', async () => {
    await expectFaultAnyForm((accept) => send('GET', `${feed}?marker=urn:uuid:00000000-0000-4000-8000-000000000000`, { accept }), 400, 'FEED_MARKER_NOT_FOUND');
  });
});

describe('feeds credentials', () => {
  const CHALLENGE = /^Basic realm="[^"]+"/;
  const bad: [string, Record<string, string>][] = [
    ['no credentials', {}],
    ['a wrong API key', basic('alice', 'wrong-key-0123456789')],
    ['an unknown user', basic('nobody', 'x'.repeat(24))],
    ['malformed basic credentials', { authorization: 'Basic !!!' }],
    ['basic credentials without a colon', { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` }],
    ['an unknown token', { 'x-auth-token': 'f'.repeat(32) }],
  ];

  it.each(bad)('%s: 401 with WWW-Authenticate Basic realm, in JSON and XML, on reads and publishes', async (_name, auth) => {
    const requests: ((accept: string | undefined) => Promise<LightMyRequestResponse>)[] = [
      (accept) => send('GET', FEED, { auth, accept }),
      (accept) => send('GET', '/feeds/t1/', { auth, accept }),
      (accept) => send('POST', FEED, { auth, accept, raw: atomEntry('x'), type: ATOM }),
    ];
    for (const request of requests) {
      await expectFaultAnyForm(request, 401, /^AUTH_[A-Z_]+$/);
      for (const accept of [...JSON_ACCEPTS, ...XML_ACCEPTS]) expect((await request(accept)).headers['www-authenticate']).toMatch(CHALLENGE);
    }
  });

  it('a request without credentials is AUTH_TOKEN_MISSING', async () => {
    expectJsonFault(await send('GET', FEED, { auth: {}, accept: 'application/json' }), 401, 'AUTH_TOKEN_MISSING');
  });

  it('a 403 (another tenant, an observer publishing) carries no Basic challenge', async () => {
    const bob = await tokenOf(h, 'bob');
    const cases = [
      send('GET', FEED, { auth: { 'x-auth-token': bob }, accept: 'application/json' }),
      send('GET', FEED, { auth: basic('bob', KEYS.bob), accept: 'application/json' }),
      send('POST', FEED, { auth: basic('olga', KEYS.olga), accept: 'application/json', raw: atomEntry('x'), type: ATOM }),
    ];
    for (const res of await Promise.all(cases)) {
      expectJsonFault(res, 403, /^AUTH_(TENANT|ROLE)_FORBIDDEN$/);
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
  });
});

describe('publishing bad entries', () => {
  const badAtom: [string, string][] = [
    ['truncated XML', '<entry'],
    ['mismatched tags', '<entry><title>x</titel></entry>'],
    ['a DOCTYPE', '<!DOCTYPE x [<!ENTITY a "b">]><entry xmlns="http://www.w3.org/2005/Atom"><title>&a;</title></entry>'],
    ['a feed, not an entry', '<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>'],
    ['no title', '<entry xmlns="http://www.w3.org/2005/Atom"><content>x</content></entry>'],
    ['a title holding markup', atomEntry('<b>bold</b>')],
    ['an empty title', atomEntry('')],
    ['a title over 256 characters', atomEntry('t'.repeat(257))],
    ['33 categories', atomEntry('x', Array.from({ length: 33 }, (_, i) => `<category term="c${i}"/>`).join(''))],
    ['JSON content that is not Base64', atomEntry('x', '<content type="application/json">not base64!</content>')],
    ['XML content', atomEntry('x', '<content type="application/xml"><a>1</a></content>')],
    ['an empty body', ''],
    ['JSON sent as Atom', '{"entry":{"title":"x"}}'],
  ];

  it.each(badAtom)('Atom with %s is a 400 FEED_ENTRY_INVALID in JSON and XML, and publishes nothing', async (_name, raw) => {
    const before = await entryCount();
    await expectFaultAnyForm((accept) => send('POST', FEED, { raw, type: ATOM, accept }), 400, 'FEED_ENTRY_INVALID');
    expect(await entryCount()).toBe(before);
  });

  const badJson: [string, string][] = [
    ['unparsable JSON', '{"entry": {"title": "x"'],
    ['an empty body', ''],
    ['null', 'null'],
    ['an array', '[{"entry":{"title":"x"}}]'],
    ['no entry', '{"title":"x"}'],
    ['an entry array', '{"entry":[{"title":"x"}]}'],
    ['a number title', '{"entry":{"title":5}}'],
    ['no title', '{"entry":{"content":"x"}}'],
    ['a title over 256 characters', JSON.stringify({ entry: { title: 't'.repeat(257) } })],
    ['category as a string', '{"entry":{"title":"x","category":"a"}}'],
    ['content text as a number', '{"entry":{"title":"x","content":{"type":"text","@text":5}}}'],
    ['Atom sent as JSON', atomEntry('x')],
  ];

  it.each(badJson)('JSON with %s is a 400 FEED_ENTRY_INVALID under both JSON types, and publishes nothing', async (_name, raw) => {
    const before = await entryCount();
    for (const type of ['application/json', ATOM_JSON]) {
      await expectFaultAnyForm((accept) => send('POST', FEED, { raw, type, accept }), 400, 'FEED_ENTRY_INVALID');
    }
    expect(await entryCount()).toBe(before);
  });

  it('good Atom and good JSON entries are published (201)', async () => {
    const before = await entryCount();
    for (const [raw, type] of [
      [atomEntry('ok atom', '<category term="a.b"/>'), ATOM],
      [JSON.stringify({ entry: { title: 'ok json', category: [{ term: 'a.b' }], content: { type: 'text', '@text': 'hi' } } }), 'application/json'],
      [JSON.stringify({ entry: { title: { '@text': 'ok atom+json' } } }), ATOM_JSON],
    ] as const) {
      const res = await send('POST', FEED, { raw, type, accept: 'application/json' });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await entryCount()).toBe(before + 3);
  });
});

describe('feeds media types and URLs', () => {
  it.each([
    ['text/plain', 'title: x'],
    ['application/xml', atomEntry('x')],
    ['text/xml', atomEntry('x')],
    ['application/x-www-form-urlencoded', 'title=x'],
    ['application/octet-stream', 'x'],
  ])('publishing %s is a 415 in the feeds shape, and publishes nothing', async (type, raw) => {
    const before = await entryCount();
    await expectFaultAnyForm((accept) => send('POST', FEED, { raw, type, accept }), 415, 'HTTP_CONTENT_TYPE_UNSUPPORTED');
    expect(await entryCount()).toBe(before);
  });

  it('no body and no Content-Type is a 400 FEED_ENTRY_INVALID (no parser ran, so there is no entry), and publishes nothing', async () => {
    const before = await entryCount();
    for (const path of FEEDS) await expectFaultAnyForm((accept) => send('POST', path, { accept }), 400, 'FEED_ENTRY_INVALID');
    expect(await entryCount()).toBe(before);
  });

  it('a body without Content-Type is a 415 in the feeds shape', async () => {
    await expectFaultAnyForm((accept) => send('POST', FEED, { raw: atomEntry('x'), accept }), 415, 'HTTP_CONTENT_TYPE_UNSUPPORTED');
  });

  it.each(['/feeds/t1/no/such/feed', '/feeds/t1/usagesummary/bigdata', '/feeds/t1/usagesummary/bigdata/events/extra', '/feeds/t1/usagesummary/bigdata/events/entries/a/b'])(
    'GET %s is a 404 in the feeds shape, with or without credentials',
    async (path) => {
      await expectFaultAnyForm((accept) => send('GET', path, { accept }), 404, 'HTTP_ROUTE_NOT_FOUND');
      await expectFaultAnyForm((accept) => send('GET', path, { accept, auth: {} }), 404, 'HTTP_ROUTE_NOT_FOUND');
    },
  );

  it('GET /feeds/ (no tenant at all) is a 404 in the feeds shape, not a 401 or 403 about an empty tenant', async () => {
    await expectFaultAnyForm((accept) => send('GET', '/feeds/', { accept }), 404, 'HTTP_ROUTE_NOT_FOUND');
    await expectFaultAnyForm((accept) => send('GET', '/feeds/', { accept, auth: {} }), 404, 'HTTP_ROUTE_NOT_FOUND');
  });

  it('an entry id of no entry is a 404 in the feeds shape', async () => {
    await expectFaultAnyForm((accept) => send('GET', `${FEED}/entries/urn:uuid:00000000-0000-4000-8000-000000000000`, { accept }), 404, 'HTTP_ROUTE_NOT_FOUND');
  });

  it('a method a feed does not have is a 405 with Allow in the feeds shape', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      await expectFaultAnyForm((accept) => send(method, FEED, { accept }), 405, 'HTTP_METHOD_NOT_ALLOWED');
      expect((await send(method, FEED)).headers['allow']).toBe('GET, HEAD, POST');
    }
    expect((await send('POST', '/feeds/t1/', { accept: 'application/json' })).headers['allow']).toBe('GET, HEAD');
  });
});
