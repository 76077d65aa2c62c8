// Checks the entry rules and the service terms added to every entry.
import { describe, expect, it } from 'vitest';
import { BIGDATA_USAGE_FEED, MONITORING_ALERTS_FEED } from '../../src/feeds/feed-catalog.js';
import { atomContentEncoding, checkNewEntry, entryCategories } from '../../src/feeds/feed-entry.js';
import { FEED_CATEGORIES_MAX, FEED_CONTENT_LENGTH_MAX, FEED_TITLE_LENGTH_MAX } from '../../src/feeds/feeds-limits.js';

const invalid = expect.objectContaining({ code: 'FEED_ENTRY_INVALID' });

describe('checkNewEntry', () => {
  it('accepts a titled entry with text or media-type content', () => {
    expect(() => checkNewEntry({ title: 'ok', categories: ['a'], content: { type: 'text', text: 'line 1\nline 2' } })).not.toThrow();
    expect(() => checkNewEntry({ title: 'ok', categories: [], content: { type: 'application/json', text: '{}' } })).not.toThrow();
  });

  it.each([
    ['an empty title', { title: ' ', categories: [] }],
    ['a long title', { title: 'x'.repeat(FEED_TITLE_LENGTH_MAX + 1), categories: [] }],
    ['a title with a newline', { title: 'a\nb', categories: [] }],
    ['an empty category', { title: 't', categories: [''] }],
    ['XML content', { title: 't', categories: [], content: { type: 'application/xml', text: '<a/>' } }],
    ['xhtml content', { title: 't', categories: [], content: { type: 'xhtml', text: 'x' } }],
    ['a malformed content type', { title: 't', categories: [], content: { type: 'not a type', text: 'x' } }],
    ['long content', { title: 't', categories: [], content: { type: 'text', text: 'x'.repeat(FEED_CONTENT_LENGTH_MAX + 1) } }],
    ['control characters', { title: 't', categories: [], content: { type: 'text', text: 'a\u0001' } }],
  ])('refuses %s', (_name, entry) => {
    expect(() => checkNewEntry(entry)).toThrow(invalid);
  });
});

describe('entryCategories', () => {
  it('adds tid, rgn and type; drops forged service terms and duplicates', () => {
    expect(entryCategories({ title: 't', categories: ['tid:evil', 'a.b', 'a.b', 'rid:1', 'type:x'] }, BIGDATA_USAGE_FEED, 't1', 'ORD')).toEqual([
      'a.b',
      'rid:1',
      'tid:t1',
      'rgn:ORD',
      'type:a.b',
    ]);
  });

  it("uses the feed's default type when no plain term is given", () => {
    expect(entryCategories({ title: 't', categories: ['rid:1'] }, MONITORING_ALERTS_FEED, 't', 'R').at(-1)).toBe('type:monitoring.alerts');
  });

  it('refuses more than FEED_CATEGORIES_MAX in all', () => {
    const many = Array.from({ length: FEED_CATEGORIES_MAX - 2 }, (_, i) => `c${i}`);
    expect(() => entryCategories({ title: 't', categories: many }, BIGDATA_USAGE_FEED, 't', 'R')).toThrow(invalid);
    expect(entryCategories({ title: 't', categories: many.slice(1) }, BIGDATA_USAGE_FEED, 't', 'R')).toHaveLength(FEED_CATEGORIES_MAX);
  });
});

describe('atomContentEncoding', () => {
  it('follows RFC 4287 4.1.3.3', () => {
    expect(atomContentEncoding('text')).toBe('text');
    expect(atomContentEncoding('html')).toBe('text');
    expect(atomContentEncoding('text/csv')).toBe('text');
    expect(atomContentEncoding('application/json')).toBe('base64');
    expect(atomContentEncoding('application/atom+xml')).toBe('unsupported');
    expect(atomContentEncoding('xhtml')).toBe('unsupported');
  });
});
