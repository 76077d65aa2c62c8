// Checks that names reserved in JavaScript objects (__proto__, constructor, ...) in published entries are refused in the feeds' error shape or kept as plain data, never a 500, and never touch Object.prototype.
import { XMLParser } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../harness.js';
import { tokenOf } from '../../inject.js';
import { guardPrototypes } from '../../prototype-guard.js';

const FEED = '/feeds/t1/usagesummary/bigdata/events';
const ATOM = 'application/atom+xml';
const ATOM_JSON = 'application/vnd.rackspace.atom+json';
/** Names an object key or XML element may not safely become: the parser refuses the first three. */
const CRITICAL = ['__proto__', 'constructor', 'prototype'] as const;
const RESERVED = [...CRITICAL, 'hasOwnProperty', 'toString'] as const;
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' });

let h: Harness;
let alice: string;

async function publish(body: string, type: string, accept = 'application/json'): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url: FEED, headers: { 'x-auth-token': alice, 'content-type': type, accept }, payload: body });
}

function atomEntry(inner: string, rootAttributes = ''): string {
  return `<?xml version="1.0"?><entry xmlns="http://www.w3.org/2005/Atom"${rootAttributes}>${inner}</entry>`;
}

/** Ids of the feed's entries, newest first. */
async function entryIds(): Promise<string[]> {
  const res = await h.app.inject({ method: 'GET', url: `${FEED}?limit=1000`, headers: { 'x-auth-token': alice, accept: 'application/json' } });
  expect(res.statusCode, res.body).toBe(200);
  return ((res.json() as { feed: { entry?: { id: string }[] } }).feed.entry ?? []).map((entry) => entry.id);
}

/** Asserts the JSON feeds error {"error": {code: "400", message, details: {code: FEED_ENTRY_INVALID}}}. */
function expectJsonRefusal(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as { error: Record<string, any> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message']);
  expect(body.error['code']).toBe('400');
  expect(body.error['details']['code']).toBe('FEED_ENTRY_INVALID');
}

/** Asserts the XML feeds error <error xmlns="http://abdera.apache.org"> with FEED_ENTRY_INVALID. */
function expectXmlRefusal(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  const doc = xml.parse(res.body) as Record<string, any>;
  expect(doc['error']['@_xmlns']).toBe('http://abdera.apache.org');
  expect(doc['error']['code']).toBe(400);
  expect(doc['error']['details']).toBe('FEED_ENTRY_INVALID');
}

/** Publishes a body that must be refused: 400 in JSON and in XML, and the feed holds no new entry. */
async function expectRefused(body: string, type: string): Promise<void> {
  const before = await entryIds();
  expectJsonRefusal(await publish(body, type));
  expectXmlRefusal(await publish(body, type, ATOM));
  expect(await entryIds()).toEqual(before);
}

/** Publishes a body that must be taken: 201, and the entry reads back with `title` and `terms` among its categories. */
async function expectPublished(body: string, type: string, title: string, terms: readonly string[] = [], content?: { type: string; text: string }): Promise<void> {
  const before = await entryIds();
  const res = await publish(body, type);
  expect(res.statusCode, res.body).toBe(201);
  const entry = (res.json() as { entry: Record<string, any> }).entry;
  expect(entry['title']).toEqual({ type: 'text', '@text': title });
  const categories = (entry['category'] as { term: string }[]).map((c) => c.term);
  for (const term of terms) expect(categories).toContain(term);
  if (content !== undefined) expect(entry['content']).toEqual({ type: content.type, '@text': content.text });
  expect(await entryIds()).toEqual([entry['id'], ...before]);
  const again = await h.app.inject({ method: 'GET', url: String(res.headers['location']).replace(/^https?:\/\/[^/]+/, ''), headers: { 'x-auth-token': alice, accept: 'application/json' } });
  expect(again.statusCode, again.body).toBe(200);
  expect((again.json() as { entry: unknown }).entry).toEqual(entry);
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
});
afterAll(async () => h.close());
guardPrototypes();

describe('Atom XML entries with reserved names', () => {
  it.each(CRITICAL)('an element named %s is a 400 FEED_ENTRY_INVALID (the parser refuses it), not a 500', async (name) => {
    await expectRefused(atomEntry(`<title>t</title><${name}>x</${name}>`), ATOM);
    await expectRefused(atomEntry(`<title>t</title><${name}><polluted>yes</polluted></${name}>`), ATOM);
    await expectRefused(atomEntry(`<title>t</title><x:${name} xmlns:x="urn:x">x</x:${name}>`), ATOM);
    await expectRefused(`<?xml version="1.0"?><${name}><title>t</title></${name}>`, ATOM);
    await expectRefused(atomEntry(`<title>t</title><content type="text"><${name}/></content>`), ATOM);
  });

  it('the refusal names the reserved element', async () => {
    const res = await publish(atomEntry('<title>t</title><__proto__>x</__proto__>'), ATOM);
    expect((res.json() as { error: { message: string } }).error.message).toContain('"__proto__"');
  });

  it.each(RESERVED)('an element named %s inside the title is markup, refused', async (name) => {
    await expectRefused(atomEntry(`<title><${name}>a</${name}></title>`), ATOM);
  });

  it.each(['hasOwnProperty', 'toString'])('an unknown element named %s is ignored as any extension element is', async (name) => {
    await expectPublished(atomEntry(`<title>ext ${name}</title><${name}>x</${name}>`), ATOM, `ext ${name}`);
  });

  it.each(RESERVED)('an attribute named %s on entry, title, category and content is ignored', async (name) => {
    const inner = `<title ${name}="x">attr ${name}</title><category term="c1" ${name}="x"/><content type="text" ${name}="x">body</content>`;
    await expectPublished(atomEntry(inner, ` ${name}="x"`), ATOM, `attr ${name}`, ['c1'], { type: 'text', text: 'body' });
  });

  it.each(RESERVED)('%s as a title, category term and content is plain data that round-trips', async (name) => {
    await expectPublished(atomEntry(`<title>${name}</title><category term="${name}"/><content type="text">${name}</content>`), ATOM, name, [name], { type: 'text', text: name });
  });
});

describe('JSON entries with reserved names', () => {
  const json = (value: string): string => value;

  it.each([
    ['__proto__ at the top', '{"__proto__": {"polluted": "yes"}, "entry": {"title": "t"}}'],
    ['__proto__ in the entry', '{"entry": {"title": "t", "__proto__": {"polluted": "yes"}}}'],
    ['__proto__ in the title', '{"entry": {"title": {"@text": "t", "__proto__": {"polluted": "yes"}}}}'],
    ['__proto__ in a category', '{"entry": {"title": "t", "category": [{"term": "a", "__proto__": {"term": "b"}}]}}'],
    ['constructor.prototype in the entry', '{"entry": {"title": "t", "constructor": {"prototype": {"polluted": "yes"}}}}'],
    ['the entry only under __proto__', '{"__proto__": {"entry": {"title": "t"}}}'],
  ])('%s is a 400 FEED_ENTRY_INVALID, as the server refuses such keys in every JSON body', async (_name, body) => {
    for (const type of ['application/json', ATOM_JSON]) await expectRefused(json(body), type);
  });

  it.each(['constructor', 'prototype', 'hasOwnProperty', 'toString'])('a key %s beside the title is ignored as any unknown key is', async (name) => {
    await expectPublished(JSON.stringify({ entry: { title: `key ${name}`, [name]: 'x' } }), 'application/json', `key ${name}`);
  });

  it.each(['constructor', 'prototype', 'hasOwnProperty', 'toString'])('a key %s inside the title object is refused (a title is text)', async (name) => {
    await expectRefused(JSON.stringify({ entry: { title: { '@text': 't', [name]: 'x' } } }), 'application/json');
  });

  it.each(RESERVED)('%s as a title, category term and content is plain data that round-trips', async (name) => {
    const body = JSON.stringify({ entry: { title: name, category: [{ term: name }], content: { type: 'text', '@text': name } } });
    await expectPublished(body, ATOM_JSON, name, [name], { type: 'text', text: name });
  });

  it('a category object whose only key is reserved has no term: refused', async () => {
    await expectRefused('{"entry": {"title": "t", "category": [{"constructor": "a"}]}}', 'application/json');
    await expectRefused('{"entry": {"title": "t", "category": [{"toString": "a"}]}}', 'application/json');
  });
});
