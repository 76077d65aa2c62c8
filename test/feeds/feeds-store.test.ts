// Checks feeds.sqlite: entries persist across reopening, each read is confined to one tenant's feed, and seq paging walks every entry once.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedEntry } from '../../src/feeds/feed-entry.js';
import { FEEDS_FILE_NAME, FeedsStore } from '../../src/feeds/feeds-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function row(tenant: string, title: string) {
  return { id: `urn:uuid:${crypto.randomUUID()}`, tenant, feed: 'f/events', title, categories: ['tid:' + tenant], content: undefined, updatedMs: 1 };
}

/** The mode of every data file a store creates, -wal and -shm included: read and write by the owner only (it may hold secrets). */
const PRIVATE_FILE_MODE = 0o600;

function titles(entries: readonly FeedEntry[]): string[] {
  return entries.map((e) => e.title);
}

/** Pages from the newest entry toward older ones, each next page starting before the oldest shown. */
function walkOlder(store: FeedsStore, tenant: string, feed: string, limit: number): FeedEntry[][] {
  const pages = [store.newest(tenant, feed, limit)];
  for (let guard = 0; guard < 1_000; guard++) {
    const oldest = pages[pages.length - 1]?.at(-1);
    if (oldest === undefined || !store.hasOlder(tenant, feed, oldest.seq)) break;
    pages.push(store.olderThan(tenant, feed, oldest.seq, limit));
  }
  return pages;
}

/** Pages from the oldest entries toward newer ones, each next page starting after the newest shown. */
function walkNewer(store: FeedsStore, tenant: string, feed: string, limit: number): FeedEntry[][] {
  const pages = [store.oldest(tenant, feed, limit)];
  for (let guard = 0; guard < 1_000; guard++) {
    const newest = pages[pages.length - 1]?.[0];
    if (newest === undefined) break;
    const page = store.newerThan(tenant, feed, newest.seq, limit);
    if (page.length === 0) break;
    pages.push(page);
  }
  return pages;
}

describe('FeedsStore', () => {
  it('keeps entries in the data directory across reopening, in seq order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-feeds-'));
    dirs.push(dir);
    const store = new FeedsStore(dir);
    const a = store.append(row('t1', 'a'));
    store.append({ ...row('t1', 'b'), content: { type: 'text', text: 'body' } });
    store.close();
    const reopened = new FeedsStore(dir);
    expect(reopened.newest('t1', 'f/events', 10).map((e) => e.title)).toEqual(['b', 'a']);
    expect(reopened.newest('t1', 'f/events', 10)[0]?.content).toEqual({ type: 'text', text: 'body' });
    expect(reopened.entry('t1', 'f/events', a.id)?.categories).toEqual(['tid:t1']);
    reopened.close();
  });

  it("never returns another tenant's or another feed's entries", () => {
    const store = new FeedsStore(undefined);
    const mine = store.append(row('t1', 'mine'));
    const theirs = store.append(row('t2', 'theirs'));
    expect(store.entry('t2', 'f/events', mine.id)).toBeUndefined();
    expect(store.entry('t1', 'other/events', mine.id)).toBeUndefined();
    expect(store.newest('t1', 'f/events', 5).map((e) => e.title)).toEqual(['mine']);
    expect(store.olderThan('t1', 'f/events', theirs.seq + 1, 5).map((e) => e.title)).toEqual(['mine']);
    expect(store.hasOlder('t2', 'f/events', theirs.seq)).toBe(false);
    store.close();
  });

  it('round-trips every field in memory, assigning increasing seqs; empty content text is kept', () => {
    const store = new FeedsStore(undefined);
    try {
      const first = { id: 'urn:uuid:1', tenant: 't1', feed: 'f/events', title: 'é ✓ 𝄞', categories: ['b', 'a', 'tid:t1'], content: undefined, updatedMs: 1_790_000_000_123 };
      const second = { ...first, id: 'urn:uuid:2', categories: [], content: { type: 'application/json', text: '{"a":1}' } };
      const third = { ...first, id: 'urn:uuid:3', content: { type: 'text', text: '' } };
      const stored = [first, second, third].map((entry) => store.append(entry));
      expect(stored.map((e) => e.seq)).toEqual([...stored.map((e) => e.seq)].sort((a, b) => a - b));
      expect(new Set(stored.map((e) => e.seq)).size).toBe(3);
      for (const entry of stored) expect(store.entry('t1', 'f/events', entry.id)).toEqual(entry);
      expect(store.entry('t1', 'f/events', 'urn:uuid:1')?.content).toBeUndefined();
      expect(store.entry('t1', 'f/events', 'urn:uuid:3')?.content).toEqual({ type: 'text', text: '' });
      expect(store.entry('t1', 'f/events', 'urn:uuid:9')).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('refuses an entry id used before, in any tenant or feed', () => {
    const store = new FeedsStore(undefined);
    try {
      const first = store.append(row('t1', 'a'));
      expect(() => store.append({ ...row('t2', 'b'), id: first.id, feed: 'other/events' })).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }));
      expect(store.newest('t2', 'other/events', 5)).toEqual([]);
      expect(titles(store.newest('t1', 'f/events', 5))).toEqual(['a']);
    } finally {
      store.close();
    }
  });

  it('reads newest, oldest, strictly older and strictly newer entries, newest first', () => {
    const store = new FeedsStore(undefined);
    try {
      const e = ['e0', 'e1', 'e2', 'e3', 'e4'].map((title) => store.append(row('t1', title)));
      const seq = (i: number) => e[i]?.seq ?? -1;
      expect(titles(store.newest('t1', 'f/events', 2))).toEqual(['e4', 'e3']);
      expect(titles(store.oldest('t1', 'f/events', 2))).toEqual(['e1', 'e0']);
      expect(titles(store.oldest('t1', 'f/events', 9))).toEqual(['e4', 'e3', 'e2', 'e1', 'e0']);
      expect(titles(store.olderThan('t1', 'f/events', seq(3), 2))).toEqual(['e2', 'e1']);
      expect(titles(store.newerThan('t1', 'f/events', seq(1), 2))).toEqual(['e3', 'e2']);
      expect(titles(store.newerThan('t1', 'f/events', seq(1), 9))).toEqual(['e4', 'e3', 'e2']);
      expect(store.olderThan('t1', 'f/events', seq(0), 5)).toEqual([]);
      expect(store.newerThan('t1', 'f/events', seq(4), 5)).toEqual([]);
      expect(store.hasOlder('t1', 'f/events', seq(0))).toBe(false);
      expect(store.hasOlder('t1', 'f/events', seq(1))).toBe(true);
      expect(store.newest('t1', 'f/events', 0)).toEqual([]);
      expect(store.newest('t1', 'empty/feed', 5)).toEqual([]);
      expect(store.oldest('t1', 'empty/feed', 5)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('property: paging older from the newest, or newer from the oldest, visits each entry of the feed once', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('mine', 'otherTenant', 'otherFeed'), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), (owners, limit) => {
        const store = new FeedsStore(undefined);
        try {
          const mine: string[] = [];
          owners.forEach((owner, i) => {
            const entry = { ...row(owner === 'otherTenant' ? 't2' : 't1', `${owner}${i}`), feed: owner === 'otherFeed' ? 'g/events' : 'f/events' };
            store.append(entry);
            if (owner === 'mine') mine.push(entry.title);
          });
          const newestFirst = [...mine].reverse();
          const older = walkOlder(store, 't1', 'f/events', limit);
          expect(older.flat().map((e) => e.title)).toEqual(newestFirst);
          expect(older.every((page) => page.length <= limit)).toBe(true);
          expect(older.slice(0, -1).every((page) => page.length === limit)).toBe(true);
          const newer = walkNewer(store, 't1', 'f/events', limit);
          // Pages run oldest to newest, each newest first: reversing the page order gives the feed newest first.
          expect([...newer].reverse().flat().map((e) => e.title)).toEqual(newestFirst);
          expect(newer.every((page) => page.length <= limit)).toBe(true);
          const all = store.newest('t1', 'f/events', 1_000);
          const first = all.at(-1);
          const last = all[0];
          if (first !== undefined && last !== undefined) {
            expect(store.olderThan('t1', 'f/events', first.seq, limit)).toEqual([]);
            expect(store.newerThan('t1', 'f/events', last.seq, limit)).toEqual([]);
            expect(store.hasOlder('t1', 'f/events', first.seq)).toBe(false);
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('continues seqs after a reopen, and gives each in-memory store its own entries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-feeds-'));
    dirs.push(dir);
    const store = new FeedsStore(dir);
    const before = store.append(row('t1', 'a'));
    store.close();
    store.close(); // closing twice is harmless
    const reopened = new FeedsStore(dir);
    const after = reopened.append(row('t1', 'b'));
    expect(after.seq).toBeGreaterThan(before.seq);
    expect(titles(reopened.newest('t1', 'f/events', 5))).toEqual(['b', 'a']);
    reopened.close();
    expect(() => reopened.newest('t1', 'f/events', 5)).toThrowError(/not open/);
    const a = new FeedsStore(undefined);
    const b = new FeedsStore(undefined);
    a.append(row('t1', 'only-in-a'));
    expect(b.newest('t1', 'f/events', 5)).toEqual([]);
    a.close();
    b.close();
  });

  it('creates the data directory and the file, readable and writable by its owner only (0600)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-feeds-'));
    dirs.push(dir);
    const nested = join(dir, 'data', 'feeds');
    const store = new FeedsStore(nested);
    try {
      store.append(row('t1', 'a'));
      const file = join(nested, FEEDS_FILE_NAME);
      expect(existsSync(file)).toBe(true);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(path).mode & 0o777).toBe(PRIVATE_FILE_MODE);
    } finally {
      store.close();
    }
  });
});
