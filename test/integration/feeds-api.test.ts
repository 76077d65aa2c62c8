// Checks the event-feed API over real HTTP: catalog, pages, publishing, both auth methods, errors, isolation.
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishAlert } from '../../src/feeds/feeds-service.js';
import { call, KEYS, startHarness, type CallResult, type Harness } from '../http/harness.js';

const FEED = '/feeds/t1/usagesummary/bigdata/events';
const ALERTS = '/feeds/t1/monitoring/alerts/events';
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => ['link', 'entry', 'category', 'workspace'].includes(name) });

function basic(user: keyof typeof KEYS, key: string = KEYS[user]): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` };
}

function atomEntryBody(title: string, categories: string[] = [], content?: { type: string; text: string }): string {
  const cats = categories.map((c) => `<category term="${c}"/>`).join('');
  const body = content === undefined ? '' : `<content type="${content.type}">${content.text}</content>`;
  return `<?xml version="1.0"?><entry xmlns="http://www.w3.org/2005/Atom"><title>${title}</title>${cats}${body}</entry>`;
}

/** Links of an Atom page by rel, parsed with a real XML parser. */
function linksOf(res: CallResult): Record<string, string> {
  const feed = xml.parse(res.text).feed as { link: { '@_rel': string; '@_href': string }[] };
  return Object.fromEntries(feed.link.map((l) => [l['@_rel'], l['@_href']]));
}

describe('event feeds over HTTP', () => {
  let h: Harness;
  let alice: string;

  beforeEach(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
  });
  afterEach(async () => h.close());

  const publish = (title: string, headers: Record<string, string> = {}) =>
    call(h, 'POST', FEED, { token: alice, body: atomEntryBody(title, ['bigdata.usage']), type: 'application/atom+xml', headers });

  it('serves the catalog as an Atom service document by default and as JSON on request, to both auth methods', async () => {
    const atom = await call(h, 'GET', '/feeds/t1/', { token: alice });
    expect(atom.status).toBe(200);
    expect(atom.headers.get('content-type')).toMatch(/^application\/atomsvc\+xml/);
    const service = xml.parse(atom.text).service;
    expect(service['@_xmlns']).toBe('http://www.w3.org/2007/app');
    expect(service.workspace.map((w: { collection: { '@_href': string } }) => w.collection['@_href'])).toEqual([`${h.url}${FEED}`, `${h.url}${ALERTS}`]);
    for (const accept of ['application/json', 'application/vnd.rackspace.atomsvc+json']) {
      const json = await call(h, 'GET', '/feeds/t1/', { headers: { ...basic('olga'), accept } });
      expect(json.status).toBe(200);
      expect(json.json.service.workspace[0]).toEqual({ collection: { href: `${h.url}${FEED}`, title: 'bigdata_usagesummary_events' }, title: 'bigdata_usagesummary_events' });
    }
  });

  it('publishes Atom and JSON entries (id, time, tid/rgn/type terms added) and serves valid Atom a real feed parser reads', async () => {
    const first = await publish('first');
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toMatch(new RegExp(`^${h.url}${FEED}/entries/urn:uuid:[0-9a-f-]{36}$`));
    const json = await call(h, 'POST', FEED, {
      headers: basic('alice'),
      json: { entry: { title: 'second', category: [{ term: 'tid:forged' }], content: { type: 'application/json', '@text': '{"a":1}' } } },
    });
    expect(json.status).toBe(201);
    const page = await call(h, 'GET', FEED, { headers: basic('alice') });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const feed = parseFeed(page.text);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('bigdata_usagesummary_events');
    expect(feed.items.map((i) => i.title)).toEqual(['second', 'first']);
    expect(feed.items[0]?.id).toMatch(/^urn:uuid:/);
    expect(feed.items[0]?.categories.map((c) => c.term)).toEqual(['tid:t1', 'rgn:LOCAL', 'type:usagesummary.bigdata.events']);
    expect(feed.items[1]?.categories.map((c) => c.term)).toEqual(['bigdata.usage', 'tid:t1', 'rgn:LOCAL', 'type:bigdata.usage']);
    expect(feed.items[0]?.updated).toBeInstanceOf(Date);
    // Non-text content travels Base64 in Atom (RFC 4287) and as text in JSON.
    const jsonPage = await call(h, 'GET', FEED, { token: alice, headers: { accept: 'application/json' } });
    expect(jsonPage.json.feed.entry[0].content).toEqual({ type: 'application/json', '@text': '{"a":1}' });
    const raw = xml.parse(page.text).feed.entry[0].content;
    expect(Buffer.from(raw['#text'], 'base64').toString()).toBe('{"a":1}');
    const self = await call(h, 'GET', new URL(first.headers.get('location') as string).pathname, { token: alice });
    expect(self.status).toBe(200);
    expect(xml.parse(self.text).entry[0].title['#text']).toBe('first');
  });

  it('pages newest first with marker, direction and limit, and the reference links', async () => {
    for (let i = 0; i < 7; i++) expect((await publish(`e${i}`)).status).toBe(201);
    const head = await call(h, 'GET', `${FEED}?limit=3`, { token: alice });
    expect(parseFeed(head.text).items.map((i) => i.title)).toEqual(['e6', 'e5', 'e4']);
    const links = linksOf(head);
    expect(Object.keys(links).sort()).toEqual(['current', 'last', 'next', 'previous', 'self']);
    expect(links['current']).toBe(`${h.url}${FEED}`);
    expect(links['last']).toBe(`${h.url}${FEED}?marker=last&limit=3&search=&direction=backward`);
    expect(links['next']).toMatch(/\?marker=urn%3Auuid%3A[0-9a-f-]+&limit=3&search=&direction=backward$/);
    const seen: string[] = [];
    let url: string | undefined = `${h.url}${FEED}?limit=3`;
    while (url !== undefined) {
      const res = await call(h, 'GET', new URL(url).pathname + new URL(url).search, { headers: basic('olga') });
      seen.push(...parseFeed(res.text).items.map((i) => i.title as string));
      url = linksOf(res)['next'];
    }
    expect(seen).toEqual(['e6', 'e5', 'e4', 'e3', 'e2', 'e1', 'e0']);
    const last = await call(h, 'GET', `${FEED}?marker=last&limit=3`, { token: alice });
    expect(parseFeed(last.text).items.map((i) => i.title)).toEqual(['e2', 'e1', 'e0']);
    expect(linksOf(last)['next']).toBeUndefined();
    const newer = await call(h, 'GET', new URL(linksOf(last)['previous'] as string).search.replace(/^/, FEED), { token: alice });
    expect(parseFeed(newer.text).items.map((i) => i.title)).toEqual(['e5', 'e4', 'e3']);
    const json = await call(h, 'GET', `${FEED}?limit=2`, { token: alice, headers: { accept: 'application/vnd.rackspace.atom+json' } });
    expect(json.headers.get('content-type')).toMatch(/^application\/vnd\.rackspace\.atom\+json/);
    expect(json.json.feed.entry.map((e: { title: { '@text': string } }) => e.title['@text'])).toEqual(['e6', 'e5']);
    expect(json.json.feed.link.map((l: { rel: string }) => l.rel)).toEqual(['current', 'self', 'last', 'previous', 'next']);
  });

  it('an empty feed is valid Atom with current, self and last links only', async () => {
    const res = await call(h, 'GET', FEED, { token: alice });
    const feed = parseFeed(res.text);
    expect(feed.items).toEqual([]);
    expect(Object.keys(linksOf(res)).sort()).toEqual(['current', 'last', 'self']);
  });

  it('answers 401 with a Basic challenge for missing, wrong or malformed credentials', async () => {
    const cases: Record<string, string>[] = [{}, basic('alice', 'wrong-key-0123456789'), { authorization: 'Basic !!!' }, { authorization: 'Basic ' + Buffer.from('nocolon').toString('base64') }, basic('nobody' as 'alice', 'x'.repeat(20)), { 'x-auth-token': 'f'.repeat(32) }];
    for (const headers of cases) {
      const res = await call(h, 'GET', FEED, { headers: { ...headers, accept: 'application/json' } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
      expect(res.json.error.code).toBe('401');
    }
    const xmlError = await call(h, 'GET', '/feeds/t1/', {});
    expect(xmlError.status).toBe(401);
    expect(xml.parse(xmlError.text).error.code).toBe(401);
  });

  it('answers an unknown URL under /feeds with a 404 in the feeds error shape, not another API’s', async () => {
    const json = await call(h, 'GET', '/feeds/t1/no/such/feed', { headers: { ...basic('alice', KEYS.alice), accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(json.json).toMatchObject({ error: { code: '404', details: { code: 'HTTP_ROUTE_NOT_FOUND' } } });
    const asXml = await call(h, 'GET', '/feeds/t1/no/such/feed', { headers: basic('alice', KEYS.alice) });
    expect(asXml.status).toBe(404);
    expect(xml.parse(asXml.text).error.code).toBe(404);
  });

  it('answers 400 for bad page parameters, unknown markers and bad entries', async () => {
    const bad = ['limit=0', 'limit=1001', 'limit=x', 'direction=sideways', 'marker=bogus', 'marker=urn:uuid:00000000-0000-4000-8000-000000000000', 'search=(cat=x)', 'startingAt=2020-01-01T00:00:00Z'];
    for (const query of bad) {
      const res = await call(h, 'GET', `${FEED}?${query}`, { token: alice, headers: { accept: 'application/json' } });
      expect(res.status, query).toBe(400);
      expect(res.json.error.details.code).toMatch(/^FEED_(QUERY_INVALID|MARKER_NOT_FOUND)$/);
    }
    const bodies = ['<entry', atomEntryBody(''), '<!DOCTYPE x [<!ENTITY a "b">]><entry><title>x</title></entry>', atomEntryBody('t', [], { type: 'application/json', text: 'not base64!' })];
    for (const body of bodies) {
      const res = await call(h, 'POST', FEED, { token: alice, body, type: 'application/atom+xml', headers: { accept: 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.json.error.details.code).toBe('FEED_ENTRY_INVALID');
    }
    const wrongType = await call(h, 'POST', FEED, { token: alice, body: 'x', type: 'text/plain' });
    expect(wrongType.status).toBe(415);
    const put = await call(h, 'PUT', FEED, { token: alice });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('keeps tenants apart: no one reads or writes another tenant feed, and markers do not cross', async () => {
    const entry = await publish('secret');
    const bob = await h.token('bob');
    expect((await call(h, 'GET', FEED, { token: bob })).status).toBe(403);
    expect((await call(h, 'GET', FEED, { headers: basic('bob') })).status).toBe(403);
    expect((await call(h, 'GET', '/feeds/t1/', { headers: basic('bob') })).status).toBe(403);
    expect((await call(h, 'POST', FEED, { headers: basic('bob'), body: atomEntryBody('x'), type: 'application/atom+xml' })).status).toBe(403);
    const own = await call(h, 'GET', '/feeds/t2/usagesummary/bigdata/events', { headers: basic('bob') });
    expect(parseFeed(own.text).items).toEqual([]);
    const marker = new URL(entry.headers.get('location') as string).pathname.split('/').pop() as string;
    const crossed = await call(h, 'GET', `/feeds/t2/usagesummary/bigdata/events?marker=${marker}`, { token: bob });
    expect(crossed.status).toBe(400);
    expect((await call(h, 'GET', `/feeds/t2/usagesummary/bigdata/events/entries/${marker}`, { token: bob })).status).toBe(404);
    const olga = await call(h, 'POST', FEED, { headers: basic('olga'), body: atomEntryBody('x'), type: 'application/atom+xml' });
    expect(olga.status).toBe(403);
  });

  it('the monitoring alerts feed receives eventFeed notifications under monitoring.alerts.<category>', async () => {
    publishAlert(h.app.strata.feeds, 't1', 'cpu', { title: 'CRITICAL on cpu', content: { type: 'application/json', text: '{"state":"CRITICAL"}' } });
    const res = await call(h, 'GET', ALERTS, { headers: basic('olga') });
    const feed = parseFeed(res.text);
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]?.categories.map((c) => c.term)).toEqual(['monitoring.alerts.cpu', 'tid:t1', 'rgn:LOCAL', 'type:monitoring.alerts.cpu']);
    expect(parseFeed((await call(h, 'GET', FEED, { token: alice })).text).items).toEqual([]);
  });
});
