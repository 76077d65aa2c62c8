// Checks the Atom and JSON views: valid documents a real feed parser reads, escaping, and the catalog shapes.
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { atomEntry, atomFeed, atomService } from '../../src/feeds/atom-view.js';
import { BIGDATA_USAGE_FEED, FEEDS } from '../../src/feeds/feed-catalog.js';
import type { FeedEntry } from '../../src/feeds/feed-entry.js';
import type { FeedAddress } from '../../src/feeds/feed-links.js';
import { jsonFeed, jsonService } from '../../src/feeds/json-view.js';

const ADDRESS: FeedAddress = { tenant: 't1', feedUrl: 'http://h/feeds/t1/usagesummary/bigdata/events', feedPath: BIGDATA_USAGE_FEED.path };
const ENTRY: FeedEntry = {
  seq: 1,
  id: 'urn:uuid:0b5a1c2e-3f4d-4a5b-8c6d-7e8f9a0b1c2d',
  tenant: 't1',
  feed: BIGDATA_USAGE_FEED.path,
  title: 'a < b & "c"',
  categories: ['x&y', 'tid:t1'],
  content: { type: 'text', text: '<not markup>' },
  updatedMs: Date.UTC(2024, 0, 2, 3, 4, 5, 678),
};
const PAGE = { entries: [ENTRY], links: [{ rel: 'current' as const, request: undefined }, { rel: 'self' as const, request: { limit: 5, marker: 'last', direction: 'backward' as const } }] };

describe('atomFeed', () => {
  it('is a valid Atom feed whose text survives escaping', () => {
    const feed = parseFeed(atomFeed(ADDRESS, BIGDATA_USAGE_FEED, PAGE, 0));
    expect(feed.meta.type).toBe('atom');
    expect(feed.items[0]?.title).toBe('a < b & "c"');
    expect(feed.items[0]?.id).toBe(ENTRY.id);
    expect(feed.items[0]?.categories.map((c) => c.term)).toEqual(['x&y', 'tid:t1']);
    expect(feed.items[0]?.updated?.toISOString()).toBe('2024-01-02T03:04:05.678Z');
    expect(feed.updated?.toISOString()).toBe('2024-01-02T03:04:05.678Z');
  });

  it('carries the links with their query and an updated time even when empty', () => {
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(atomFeed(ADDRESS, BIGDATA_USAGE_FEED, { entries: [], links: PAGE.links }, 86_400_000)).feed;
    expect(parsed.link).toEqual([
      { href: ADDRESS.feedUrl, rel: 'current' },
      { href: `${ADDRESS.feedUrl}?marker=last&limit=5&search=&direction=backward`, rel: 'self' },
    ]);
    expect(parsed.updated).toBe('1970-01-02T00:00:00.000Z');
    expect(parsed.id).toBe('urn:strata:feeds:t1:usagesummary/bigdata/events');
  });

  it('renders one entry as an Atom entry document', () => {
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(atomEntry(ADDRESS, ENTRY)).entry;
    expect(parsed.xmlns).toBe('http://www.w3.org/2005/Atom');
    expect(parsed.content).toEqual({ '#text': '<not markup>', type: 'text' });
    expect(parsed.link).toEqual({ href: `${ADDRESS.feedUrl}/entries/${ENTRY.id}`, rel: 'self' });
  });
});

describe('service documents and JSON', () => {
  it('lists one workspace per feed, in XML and JSON', () => {
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(atomService('http://h/feeds/t1', FEEDS)).service;
    expect(parsed.workspace).toHaveLength(FEEDS.length);
    expect(parsed.workspace[0]).toEqual({ 'atom:title': FEEDS[0]?.title, collection: { href: `http://h/feeds/t1/${FEEDS[0]?.path}`, 'atom:title': FEEDS[0]?.title } });
    expect(jsonService('http://h/feeds/t1', FEEDS)).toEqual({
      service: { workspace: FEEDS.map((f) => ({ collection: { href: `http://h/feeds/t1/${f.path}`, title: f.title }, title: f.title })) },
    });
  });

  it('shapes a page as the reference JSON form', () => {
    const json = jsonFeed(ADDRESS, BIGDATA_USAGE_FEED, PAGE, 0) as { feed: Record<string, any> };
    expect(json.feed['@type']).toBe('http://www.w3.org/2005/Atom');
    expect(json.feed.entry[0].category).toEqual([{ term: 'x&y' }, { term: 'tid:t1' }]);
    expect(json.feed.entry[0].title).toEqual({ type: 'text', '@text': ENTRY.title });
  });
});
