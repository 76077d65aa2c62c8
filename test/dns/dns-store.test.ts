// Checks dns.sqlite through DnsStore: all-or-nothing imports, account ids, tenant isolation, offset paging, reopening and the file mode.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DNS_FILE_NAME, DnsStore } from '../../src/dns/dns-store.js';
import type { ImportDomain, ImportRecord, Page, PageWindow } from '../../src/dns/dns-types.js';

const NOW_MS = 1_790_000_000_000;

function record(name: string, overrides: Partial<ImportRecord> = {}): ImportRecord {
  return { type: 'A', name, data: '192.0.2.1', ttl: 300, priority: undefined, comment: undefined, ...overrides };
}

function domain(name: string, records: readonly ImportRecord[] = [], subdomains: readonly ImportDomain[] = [], comment?: string): ImportDomain {
  return { name, emailAddress: `hostmaster@${name}`, ttl: 3600, comment, records, subdomains };
}

/** The mode of every data file a store creates, -wal and -shm included: read and write by the owner only (it may hold secrets). */
const PRIVATE_FILE_MODE = 0o600;

/** Reads every page of an offset-paged collection, `limit` at a time, until a page comes back short. */
function walkOffsets<T>(read: (window: PageWindow) => Page<T>, limit: number): { pages: T[][]; totals: number[] } {
  const pages: T[][] = [];
  const totals: number[] = [];
  for (let offset = 0; offset < 10_000; offset += limit) {
    const page = read({ limit, offset });
    pages.push([...page.items]);
    totals.push(page.totalEntries);
    if (page.items.length < limit) break;
  }
  return { pages, totals };
}

describe('DnsStore', () => {
  let store: DnsStore;

  beforeEach(() => {
    store = new DnsStore(undefined);
  });
  afterEach(() => store.close());

  it('imports a tree and reads every field back, subdomains under their parent', () => {
    const tree = domain('example.com', [record('www.example.com'), record('example.com', { type: 'MX', data: 'mx.example.com', priority: 10, comment: 'mail' })], [
      domain('sub.example.com', [record('a.sub.example.com')], [domain('deep.sub.example.com')]),
    ], 'main');
    expect(store.importDomains('t1', [tree], NOW_MS)).toEqual({ domains: 3, records: 3 });
    const [top, sub, deep] = store.domains('t1', undefined, { limit: 10, offset: 0 }).items;
    expect(top).toEqual({ id: top?.id, accountId: top?.accountId, parentId: undefined, name: 'example.com', emailAddress: 'hostmaster@example.com', ttl: 3600, comment: 'main', createdMs: NOW_MS, updatedMs: NOW_MS });
    expect(sub).toMatchObject({ name: 'sub.example.com', parentId: top?.id, comment: undefined });
    expect(deep).toMatchObject({ name: 'deep.sub.example.com', parentId: sub?.id });
    expect(store.domain('t1', top?.id ?? -1)).toEqual(top);
    const records = store.records(top?.id ?? -1, { limit: 10, offset: 0 });
    expect(records.totalEntries).toBe(2);
    expect(records.items.map((r) => [r.type, r.name, r.data, r.ttl, r.priority, r.comment, r.domainId])).toEqual([
      ['A', 'www.example.com', '192.0.2.1', 300, undefined, undefined, top?.id],
      ['MX', 'example.com', 'mx.example.com', 300, 10, 'mail', top?.id],
    ]);
    expect(records.items.every((r) => r.createdMs === NOW_MS && r.updatedMs === NOW_MS)).toBe(true);
    expect(store.records(sub?.id ?? -1, { limit: 10, offset: 0 }).items.map((r) => r.name)).toEqual(['a.sub.example.com']);
    expect(store.records(deep?.id ?? -1, { limit: 10, offset: 0 })).toEqual({ items: [], totalEntries: 0, window: { limit: 10, offset: 0 } });
  });

  it('lists direct subdomains only, and counts them', () => {
    store.importDomains('t1', [domain('a.com', [], [domain('x.a.com', [], [domain('y.x.a.com')]), domain('z.a.com')])], NOW_MS);
    const top = store.domains('t1', 'a.com', { limit: 1, offset: 0 }).items[0];
    const subs = store.subdomains('t1', top?.id ?? -1, { limit: 10, offset: 0 });
    expect(subs.items.map((d) => d.name)).toEqual(['x.a.com', 'z.a.com']);
    expect(subs.totalEntries).toBe(2);
    expect(store.subdomains('t1', top?.id ?? -1, { limit: 1, offset: 1 }).items.map((d) => d.name)).toEqual(['z.a.com']);
  });

  it('assigns one account id per tenant on its first import and keeps it', () => {
    store.importDomains('t1', [domain('a.com')], NOW_MS);
    store.importDomains('t2', [domain('a.com')], NOW_MS);
    store.importDomains('t1', [domain('b.com')], NOW_MS + 1_000);
    const t1 = store.domains('t1', undefined, { limit: 10, offset: 0 }).items;
    const t2 = store.domains('t2', undefined, { limit: 10, offset: 0 }).items;
    expect(t1.map((d) => d.name)).toEqual(['a.com', 'b.com']);
    expect(new Set(t1.map((d) => d.accountId)).size).toBe(1);
    expect(t2[0]?.accountId).not.toBe(t1[0]?.accountId);
    expect(t1[1]?.createdMs).toBe(NOW_MS + 1_000);
  });

  it("never returns another tenant's domains, subdomains or counts", () => {
    store.importDomains('t1', [domain('a.com', [record('a.com')], [domain('s.a.com')])], NOW_MS);
    store.importDomains('t2', [domain('b.com')], NOW_MS);
    const mine = store.domains('t1', undefined, { limit: 10, offset: 0 });
    const theirs = store.domains('t2', undefined, { limit: 10, offset: 0 });
    expect(mine.items.map((d) => d.name)).toEqual(['a.com', 's.a.com']);
    expect(theirs.items.map((d) => d.name)).toEqual(['b.com']);
    expect(theirs.totalEntries).toBe(1);
    const top = mine.items[0];
    expect(store.domain('t2', top?.id ?? -1)).toBeUndefined();
    expect(store.domains('t2', 'a.com', { limit: 10, offset: 0 })).toEqual({ items: [], totalEntries: 0, window: { limit: 10, offset: 0 } });
    expect(store.subdomains('t2', top?.id ?? -1, { limit: 10, offset: 0 })).toEqual({ items: [], totalEntries: 0, window: { limit: 10, offset: 0 } });
    expect(store.domains('t3', undefined, { limit: 10, offset: 0 }).totalEntries).toBe(0);
  });

  it('filters by exact name, subdomains included', () => {
    store.importDomains('t1', [domain('a.com', [], [domain('s.a.com')]), domain('b.com')], NOW_MS);
    expect(store.domains('t1', 's.a.com', { limit: 10, offset: 0 }).items.map((d) => d.name)).toEqual(['s.a.com']);
    expect(store.domains('t1', 's.a.com', { limit: 10, offset: 0 }).totalEntries).toBe(1);
    expect(store.domains('t1', 'a', { limit: 10, offset: 0 }).totalEntries).toBe(0);
  });

  it('refuses an import naming a domain the tenant has with DNS_IMPORT_INVALID, and writes nothing of it', () => {
    store.importDomains('t1', [domain('a.com', [], [domain('s.a.com')])], NOW_MS);
    let caught: unknown;
    try {
      store.importDomains('t1', [domain('new.com', [record('new.com')]), domain('b.com', [], [domain('s.a.com')])], NOW_MS);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'DNS_IMPORT_INVALID', kind: 'invalid', details: { messages: ['Domain s.a.com already exists.'] } });
    expect(store.domains('t1', undefined, { limit: 10, offset: 0 }).items.map((d) => d.name)).toEqual(['a.com', 's.a.com']);
    expect(store.domains('t1', 'new.com', { limit: 10, offset: 0 }).totalEntries).toBe(0);
    // The same names in another tenant are free.
    expect(store.importDomains('t2', [domain('a.com', [], [domain('s.a.com')])], NOW_MS)).toEqual({ domains: 2, records: 0 });
  });

  it('rolls back an import whose own names repeat (a constraint error), account included', () => {
    // dns-import.ts refuses repeated names before the store sees them; the store still writes nothing.
    expect(() => store.importDomains('t1', [domain('a.com', [record('a.com')]), domain('a.com')], NOW_MS)).toThrowError(
      expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }),
    );
    expect(store.domains('t1', undefined, { limit: 10, offset: 0 }).totalEntries).toBe(0);
    store.importDomains('t2', [domain('b.com')], NOW_MS);
    store.importDomains('t1', [domain('a.com')], NOW_MS);
    // Account ids are assigned in order of first successful import: the rolled-back one took none.
    const t2 = store.domains('t2', undefined, { limit: 1, offset: 0 }).items[0];
    const t1 = store.domains('t1', undefined, { limit: 1, offset: 0 }).items[0];
    expect(t1?.accountId).toBe((t2?.accountId ?? 0) + 1);
    expect(store.records(t1?.id ?? -1, { limit: 10, offset: 0 }).totalEntries).toBe(0);
  });

  it('gives an empty page with the true total for an offset past the end', () => {
    store.importDomains('t1', [domain('a.com', [record('a.com'), record('a.com', { data: '192.0.2.2' })]), domain('b.com')], NOW_MS);
    expect(store.domains('t1', undefined, { limit: 5, offset: 2 })).toEqual({ items: [], totalEntries: 2, window: { limit: 5, offset: 2 } });
    const top = store.domains('t1', 'a.com', { limit: 1, offset: 0 }).items[0];
    expect(store.records(top?.id ?? -1, { limit: 1, offset: 7 })).toEqual({ items: [], totalEntries: 2, window: { limit: 1, offset: 7 } });
  });

  it('property: offset pages of domains, subdomains and records concatenate to the full list by id, without other tenants', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ records: fc.nat(6), subdomains: fc.nat(4) }), { maxLength: 12 }),
        fc.nat(5),
        fc.integer({ min: 1, max: 7 }),
        (shapes, otherDomains, limit) => {
          const s = new DnsStore(undefined);
          try {
            // Another tenant's domains are imported first and in between, so ids interleave.
            s.importDomains('t2', Array.from({ length: otherDomains }, (_, i) => domain(`o${i}.net`, [record(`o${i}.net`)])), NOW_MS);
            shapes.forEach((shape, i) => {
              const name = `d${i}.com`;
              s.importDomains('t1', [domain(name, Array.from({ length: shape.records }, () => record(name)), Array.from({ length: shape.subdomains }, (_, j) => domain(`s${j}.${name}`)))], NOW_MS);
              s.importDomains('t2', [domain(`x${i}.net`, [record(`x${i}.net`)])], NOW_MS);
            });
            const all = s.domains('t1', undefined, { limit: 10_000, offset: 0 });
            const ids = all.items.map((d) => d.id);
            expect(ids).toEqual([...ids].sort((a, b) => a - b));
            expect(all.totalEntries).toBe(shapes.reduce((n, shape) => n + 1 + shape.subdomains, 0));
            expect(all.items.every((d) => d.name.endsWith('.com'))).toBe(true);
            const walked = walkOffsets((w) => s.domains('t1', undefined, w), limit);
            expect(walked.pages.flat()).toEqual(all.items);
            expect(walked.totals.every((n) => n === all.totalEntries)).toBe(true);
            expect(walked.pages.at(-1)?.length).toBeLessThan(limit);
            expect(s.domains('t1', undefined, { limit, offset: all.totalEntries }).items).toEqual([]);
            for (const [i, shape] of shapes.entries()) {
              const top = s.domains('t1', `d${i}.com`, { limit: 1, offset: 0 }).items[0];
              const subs = walkOffsets((w) => s.subdomains('t1', top?.id ?? -1, w), limit);
              expect(subs.pages.flat().map((d) => d.name)).toEqual(Array.from({ length: shape.subdomains }, (_, j) => `s${j}.d${i}.com`));
              expect(subs.totals.every((n) => n === shape.subdomains)).toBe(true);
              const recs = walkOffsets((w) => s.records(top?.id ?? -1, w), limit);
              const recIds = recs.pages.flat().map((r) => r.id);
              expect(recIds).toHaveLength(shape.records);
              expect(new Set(recIds).size).toBe(shape.records);
              expect(recIds).toEqual([...recIds].sort((a, b) => a - b));
              expect(recs.pages.flat().every((r) => r.domainId === top?.id)).toBe(true);
            }
          } finally {
            s.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  describe('on disk', () => {
    let dir: string;

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'strata-dns-store-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('keeps domains, records and account ids across close and reopen', () => {
      const nested = join(dir, 'data');
      const first = new DnsStore(nested);
      first.importDomains('t1', [domain('a.com', [record('a.com')], [domain('s.a.com')])], NOW_MS);
      const before = first.domains('t1', undefined, { limit: 10, offset: 0 });
      first.close();
      first.close(); // closing twice is harmless
      const second = new DnsStore(nested);
      try {
        expect(second.domains('t1', undefined, { limit: 10, offset: 0 })).toEqual(before);
        expect(second.records(before.items[0]?.id ?? -1, { limit: 10, offset: 0 }).totalEntries).toBe(1);
        // Names stay taken after the reopen.
        expect(() => second.importDomains('t1', [domain('s.a.com')], NOW_MS)).toThrowError(expect.objectContaining({ code: 'DNS_IMPORT_INVALID' }));
      } finally {
        second.close();
      }
    });

    it('creates the file readable and writable by its owner only (0600)', () => {
      const disk = new DnsStore(dir);
      try {
        disk.importDomains('t1', [domain('a.com')], NOW_MS);
        const file = join(dir, DNS_FILE_NAME);
        expect(existsSync(file)).toBe(true);
        for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(path).mode & 0o777).toBe(PRIVATE_FILE_MODE);
      } finally {
        disk.close();
      }
    });
  });
});
