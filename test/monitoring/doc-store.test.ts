// Checks the document tables through DocStore: round trips, scoping by tenant and entity, references, plan members and marker paging.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocStore, DocTable, StoredDoc } from '../../src/monitoring/doc-store.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;
const UNSCOPED: readonly DocTable[] = ['mon_entity', 'mon_notification', 'mon_plan'];
const REFS = { checkId: 'chA', planId: 'npA' };

/** SQLite's BINARY collation: the order of the UTF-8 bytes. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Walks a marker-paged list the way the service does (read limit + 1; the extra row's id is the next marker). */
function walk(read: (marker: string, limit: number) => readonly { id: string }[], limit: number): string[][] {
  const pages: string[][] = [];
  let marker: string | undefined = '';
  for (let guard = 0; marker !== undefined && guard < 1_000; guard++) {
    const rows = read(marker, limit + 1);
    pages.push(rows.slice(0, limit).map((row) => row.id));
    marker = rows.length > limit ? rows[limit]?.id : undefined;
  }
  return pages;
}

describe('DocStore', () => {
  let store: MonitoringStore;
  let docs: DocStore;

  beforeEach(() => {
    store = new MonitoringStore(undefined);
    docs = store.docs;
  });
  afterEach(() => store.close());

  it.each(UNSCOPED)('round-trips a %s document with its times and no entity', (table) => {
    const doc = { label: 'web 1', nested: { list: [1, 'two', null], flag: true }, text: 'é ✓ 𝄞' };
    docs.insert(table, { tenant: 't1' }, 'id1', doc, NOW_MS);
    const got = docs.get<typeof doc>(table, { tenant: 't1' }, 'id1');
    expect(got).toEqual({ id: 'id1', entityId: null, doc, createdMs: NOW_MS, updatedMs: NOW_MS });
    expect(docs.get(table, { tenant: 't1' }, 'id2')).toBeUndefined();
    // The entity of a scope is ignored for tables that have none.
    expect(docs.get(table, { tenant: 't1', entityId: 'enX' }, 'id1')?.doc).toEqual(doc);
  });

  it('round-trips checks and alarms under their entity', () => {
    docs.insert('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA', { type: 'agent.cpu' }, NOW_MS);
    docs.insert('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA', { criteria: 'x' }, NOW_MS + 1, REFS);
    expect(docs.get('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA')).toEqual({ id: 'chA', entityId: 'enA', doc: { type: 'agent.cpu' }, createdMs: NOW_MS, updatedMs: NOW_MS });
    expect(docs.get('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA')).toEqual({ id: 'alA', entityId: 'enA', doc: { criteria: 'x' }, createdMs: NOW_MS + 1, updatedMs: NOW_MS + 1 });
    // Another entity, or no entity at all, does not find them.
    expect(docs.get('mon_check', { tenant: 't1', entityId: 'enB' }, 'chA')).toBeUndefined();
    expect(docs.get('mon_check', { tenant: 't1' }, 'chA')).toBeUndefined();
    expect(docs.count('mon_check', { tenant: 't1', entityId: 'enA' })).toBe(1);
    expect(docs.count('mon_check', { tenant: 't1', entityId: 'enB' })).toBe(0);
  });

  it('refuses a second object with the same id in the same scope, but not in another tenant or entity', () => {
    docs.insert('mon_entity', { tenant: 't1' }, 'enA', { label: 'a' }, NOW_MS);
    expect(() => docs.insert('mon_entity', { tenant: 't1' }, 'enA', { label: 'b' }, NOW_MS)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
    docs.insert('mon_entity', { tenant: 't2' }, 'enA', { label: 'theirs' }, NOW_MS);
    docs.insert('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA', {}, NOW_MS);
    docs.insert('mon_check', { tenant: 't1', entityId: 'enB' }, 'chA', {}, NOW_MS);
    expect(() => docs.insert('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA', {}, NOW_MS)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
    expect(docs.get('mon_entity', { tenant: 't1' }, 'enA')?.doc).toEqual({ label: 'a' });
    expect(docs.get('mon_entity', { tenant: 't2' }, 'enA')?.doc).toEqual({ label: 'theirs' });
  });

  it('updates the fields and updatedMs only, and only inside the scope', () => {
    docs.insert('mon_entity', { tenant: 't1' }, 'enA', { label: 'a' }, NOW_MS);
    docs.insert('mon_entity', { tenant: 't2' }, 'enA', { label: 'theirs' }, NOW_MS);
    expect(docs.update('mon_entity', { tenant: 't1' }, 'enA', { label: 'b' }, NOW_MS + 10)).toBe(true);
    expect(docs.get('mon_entity', { tenant: 't1' }, 'enA')).toEqual({ id: 'enA', entityId: null, doc: { label: 'b' }, createdMs: NOW_MS, updatedMs: NOW_MS + 10 });
    expect(docs.get('mon_entity', { tenant: 't2' }, 'enA')).toEqual({ id: 'enA', entityId: null, doc: { label: 'theirs' }, createdMs: NOW_MS, updatedMs: NOW_MS });
    expect(docs.update('mon_entity', { tenant: 't1' }, 'enZ', { label: 'z' }, NOW_MS)).toBe(false);
    expect(docs.update('mon_entity', { tenant: 't3' }, 'enA', { label: 'z' }, NOW_MS)).toBe(false);
    docs.insert('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA', { v: 1 }, NOW_MS);
    expect(docs.update('mon_check', { tenant: 't1', entityId: 'enB' }, 'chA', { v: 2 }, NOW_MS)).toBe(false);
    expect(docs.get('mon_check', { tenant: 't1', entityId: 'enA' }, 'chA')?.doc).toEqual({ v: 1 });
  });

  it('deletes once, only inside the scope', () => {
    docs.insert('mon_notification', { tenant: 't1' }, 'ntA', {}, NOW_MS);
    docs.insert('mon_notification', { tenant: 't2' }, 'ntA', {}, NOW_MS);
    docs.insert('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA', {}, NOW_MS, REFS);
    expect(docs.delete('mon_notification', { tenant: 't3' }, 'ntA')).toBe(false);
    expect(docs.delete('mon_alarm', { tenant: 't1', entityId: 'enB' }, 'alA')).toBe(false);
    expect(docs.delete('mon_notification', { tenant: 't1' }, 'ntA')).toBe(true);
    expect(docs.delete('mon_notification', { tenant: 't1' }, 'ntA')).toBe(false);
    expect(docs.get('mon_notification', { tenant: 't1' }, 'ntA')).toBeUndefined();
    expect(docs.get('mon_notification', { tenant: 't2' }, 'ntA')).toBeDefined();
    expect(docs.delete('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA')).toBe(true);
    expect(docs.alarmsReferring('t1', 'check_id', 'chA')).toBe(0);
  });

  it('counts objects per scope', () => {
    for (const id of ['a', 'b', 'c']) docs.insert('mon_plan', { tenant: 't1' }, id, {}, NOW_MS);
    docs.insert('mon_plan', { tenant: 't2' }, 'a', {}, NOW_MS);
    expect(docs.count('mon_plan', { tenant: 't1' })).toBe(3);
    expect(docs.count('mon_plan', { tenant: 't2' })).toBe(1);
    expect(docs.count('mon_plan', { tenant: 't3' })).toBe(0);
    docs.delete('mon_plan', { tenant: 't1' }, 'b');
    expect(docs.count('mon_plan', { tenant: 't1' })).toBe(2);
  });

  it('counts alarms naming a check or plan per tenant, following updates of the references', () => {
    docs.insert('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'al1', {}, NOW_MS, { checkId: 'ch1', planId: 'np1' });
    docs.insert('mon_alarm', { tenant: 't1', entityId: 'enB' }, 'al2', {}, NOW_MS, { checkId: 'ch1', planId: 'np2' });
    docs.insert('mon_alarm', { tenant: 't2', entityId: 'enA' }, 'al1', {}, NOW_MS, { checkId: 'ch1', planId: 'np1' });
    expect(docs.alarmsReferring('t1', 'check_id', 'ch1')).toBe(2);
    expect(docs.alarmsReferring('t1', 'plan_id', 'np1')).toBe(1);
    expect(docs.alarmsReferring('t1', 'plan_id', 'ch1')).toBe(0);
    expect(docs.alarmsReferring('t3', 'check_id', 'ch1')).toBe(0);
    expect(docs.update('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'al1', { v: 2 }, NOW_MS + 1, { checkId: 'ch9', planId: 'np2' })).toBe(true);
    expect(docs.alarmsReferring('t1', 'check_id', 'ch1')).toBe(1);
    expect(docs.alarmsReferring('t1', 'check_id', 'ch9')).toBe(1);
    expect(docs.alarmsReferring('t1', 'plan_id', 'np2')).toBe(2);
    expect(docs.alarmsReferring('t2', 'check_id', 'ch1')).toBe(1);
  });

  it('records plan members, replacing the previous set and ignoring repeats, per tenant', () => {
    docs.setPlanMembers('t1', 'np1', ['ntA', 'ntB', 'ntA']);
    docs.setPlanMembers('t1', 'np2', ['ntA']);
    docs.setPlanMembers('t2', 'np1', ['ntB']);
    expect(docs.plansNaming('t1', 'ntA')).toBe(2);
    expect(docs.plansNaming('t1', 'ntB')).toBe(1);
    expect(docs.plansNaming('t2', 'ntA')).toBe(0);
    docs.setPlanMembers('t1', 'np1', ['ntC']);
    expect([docs.plansNaming('t1', 'ntA'), docs.plansNaming('t1', 'ntB'), docs.plansNaming('t1', 'ntC')]).toEqual([1, 0, 1]);
    docs.setPlanMembers('t1', 'np2', []);
    expect(docs.plansNaming('t1', 'ntA')).toBe(0);
    expect(docs.plansNaming('t2', 'ntB')).toBe(1);
  });

  it('lists from the marker inclusive, by id; a marker past the last id gives an empty page', () => {
    for (const id of ['en3', 'en1', 'en2', 'en5']) docs.insert('mon_entity', { tenant: 't1' }, id, {}, NOW_MS);
    docs.insert('mon_entity', { tenant: 't2' }, 'en4', {}, NOW_MS);
    const ids = (marker: string, limit: number) => docs.list('mon_entity', { tenant: 't1' }, marker, limit).map((d) => d.id);
    expect(ids('', 10)).toEqual(['en1', 'en2', 'en3', 'en5']);
    expect(ids('en2', 2)).toEqual(['en2', 'en3']);
    // A marker that names no object starts at the next id.
    expect(ids('en4', 10)).toEqual(['en5']);
    expect(ids('en5~', 10)).toEqual([]);
    expect(ids('', 0)).toEqual([]);
  });

  it('property: marker pages of one scope concatenate to its ids in byte order, without repeats or other scopes', () => {
    const idArb = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.uniqueArray(idArb, { maxLength: 40 }),
        fc.uniqueArray(idArb, { maxLength: 10 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom<DocTable>('mon_entity', 'mon_check', 'mon_alarm'),
        (mine, theirs, limit, table) => {
          const s = new MonitoringStore(undefined);
          try {
            const scope = { tenant: 't1', entityId: 'enA' };
            const insert = (tenant: string, entityId: string, id: string) => s.docs.insert(table, { tenant, entityId }, id, { id }, NOW_MS, REFS);
            for (const id of theirs) {
              insert('t2', 'enA', id);
              if (table !== 'mon_entity') insert('t1', 'enB', id);
            }
            for (const id of mine) insert('t1', 'enA', id);
            const pages = walk((marker, n) => s.docs.list<{ id: string }>(table, scope, marker, n), limit);
            const expected = [...mine].sort(byteOrder);
            expect(pages.flat()).toEqual(expected);
            expect(new Set(pages.flat()).size).toBe(mine.length);
            expect(pages.every((page) => page.length <= limit)).toBe(true);
            expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
            expect(s.docs.count(table, scope)).toBe(mine.length);
            const last = expected[expected.length - 1];
            if (last !== undefined) expect(s.docs.list(table, scope, `${last}\u{10FFFF}`, limit + 1)).toEqual([]);
            const rows = s.docs.list<{ id: string }>(table, scope, '', mine.length + 1);
            expect(rows.every((row: StoredDoc<{ id: string }>) => row.doc.id === row.id)).toBe(true);
          } finally {
            s.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
