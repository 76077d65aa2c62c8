// Checks feeds.sqlite: entries persist across reopening, and each read is confined to one tenant's feed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedsStore } from '../../src/feeds/feeds-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function row(tenant: string, title: string) {
  return { id: `urn:uuid:${crypto.randomUUID()}`, tenant, feed: 'f/events', title, categories: ['tid:' + tenant], content: undefined, updatedMs: 1 };
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
});
