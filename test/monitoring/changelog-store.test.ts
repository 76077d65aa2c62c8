// Checks alarm changelogs and declared metric types through ChangelogStore: the half-open window, (time, id) paging, tenant isolation.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangelogQuery, ChangelogRow, ChangelogStore } from '../../src/monitoring/changelog-store.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const T0_MS = 1_790_000_000_000;

function change(id: string, timestampMs: number, entityId = 'enA', overrides: Partial<ChangelogRow> = {}): ChangelogRow {
  return { id, timestampMs, entityId, alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', previousState: 'OK', zoneId: null, ...overrides };
}

function byTimeThenId(a: ChangelogRow, b: ChangelogRow): number {
  return a.timestampMs - b.timestampMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Walks pages the way the changelog service does: read limit + 1, the extra row is where the next page starts. */
function walk(changelogs: ChangelogStore, tenant: string, query: Omit<ChangelogQuery, 'after' | 'limit'>, limit: number): ChangelogRow[][] {
  const pages: ChangelogRow[][] = [];
  let after: ChangelogQuery['after'] = undefined;
  for (let guard = 0; guard < 1_000; guard++) {
    const rows = changelogs.page(tenant, { ...query, limit: limit + 1, ...(after !== undefined ? { after } : {}) });
    pages.push(rows.slice(0, limit));
    const next = rows[limit];
    if (next === undefined) break;
    after = { timestampMs: next.timestampMs, id: next.id };
  }
  return pages;
}

describe('ChangelogStore', () => {
  let store: MonitoringStore;
  let changelogs: ChangelogStore;

  beforeEach(() => {
    store = new MonitoringStore(undefined);
    changelogs = store.changelogs;
  });
  afterEach(() => store.close());

  it('round-trips an entry by id, nulls included, per tenant', () => {
    const full = change('c1', T0_MS, 'enA', { previousState: null, zoneId: 'mzord' });
    changelogs.append('t1', full);
    expect(changelogs.entry('t1', 'c1')).toEqual(full);
    expect(changelogs.entry('t1', 'c2')).toBeUndefined();
    expect(changelogs.entry('t2', 'c1')).toBeUndefined();
    changelogs.append('t2', change('c1', T0_MS + 5, 'enB'));
    expect(changelogs.entry('t1', 'c1')).toEqual(full);
    expect(changelogs.entry('t2', 'c1')?.entityId).toBe('enB');
  });

  it('refuses a second entry with the same id in a tenant', () => {
    changelogs.append('t1', change('c1', T0_MS));
    expect(() => changelogs.append('t1', change('c1', T0_MS + 1))).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
    expect(changelogs.entry('t1', 'c1')?.timestampMs).toBe(T0_MS);
  });

  it('pages oldest first by (time, id) inside the half-open window, optionally one entity', () => {
    changelogs.append('t1', change('b', T0_MS + 10));
    changelogs.append('t1', change('a', T0_MS + 10, 'enB'));
    changelogs.append('t1', change('z', T0_MS));
    changelogs.append('t1', change('before', T0_MS - 1));
    changelogs.append('t1', change('atEnd', T0_MS + 20));
    changelogs.append('t2', change('other', T0_MS + 5));
    const ids = (q: Partial<ChangelogQuery>) => changelogs.page('t1', { fromMs: T0_MS, toMs: T0_MS + 20, limit: 10, ...q }).map((row) => row.id);
    expect(ids({})).toEqual(['z', 'a', 'b']);
    expect(ids({ entityId: 'enA' })).toEqual(['z', 'b']);
    expect(ids({ entityId: 'enZ' })).toEqual([]);
    expect(ids({ limit: 2 })).toEqual(['z', 'a']);
    expect(ids({ toMs: T0_MS + 21 })).toEqual(['z', 'a', 'b', 'atEnd']);
    expect(ids({ fromMs: T0_MS - 1, toMs: T0_MS })).toEqual(['before']);
    expect(changelogs.page('t2', { fromMs: T0_MS, toMs: T0_MS + 20, limit: 10 }).map((row) => row.id)).toEqual(['other']);
  });

  it('starts a page at its marker entry (inclusive), and never before the window', () => {
    for (const [id, t] of [['a', 0], ['b', 5], ['c', 5], ['d', 9]] as const) changelogs.append('t1', change(id, T0_MS + t));
    const window = { fromMs: T0_MS, toMs: T0_MS + 100, limit: 10 };
    expect(changelogs.page('t1', { ...window, after: { timestampMs: T0_MS + 5, id: 'c' } }).map((r) => r.id)).toEqual(['c', 'd']);
    expect(changelogs.page('t1', { ...window, after: { timestampMs: T0_MS + 5, id: 'b' } }).map((r) => r.id)).toEqual(['b', 'c', 'd']);
    // A marker older than the window does not reach outside it.
    changelogs.append('t1', change('old', T0_MS - 50));
    expect(changelogs.page('t1', { ...window, after: { timestampMs: T0_MS - 50, id: 'old' } }).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    // Past the last entry the page is empty.
    expect(changelogs.page('t1', { ...window, after: { timestampMs: T0_MS + 9, id: 'd~' } })).toEqual([]);
    expect(changelogs.page('t1', { ...window, after: { timestampMs: T0_MS + 10, id: '' } })).toEqual([]);
  });

  it('property: pages concatenate to the window\'s entries in (time, id) order, without repeats or other tenants', () => {
    const entryArb = fc.record({ id: fc.stringMatching(/^[a-f0-9-]{1,6}$/), t: fc.integer({ min: -3, max: 12 }), entity: fc.constantFrom('enA', 'enB') });
    fc.assert(
      fc.property(
        fc.uniqueArray(entryArb, { maxLength: 40, selector: (e) => e.id }),
        fc.uniqueArray(entryArb, { maxLength: 10, selector: (e) => e.id }),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.constantFrom('enA', 'enB'), { nil: undefined }),
        (mine, theirs, limit, entityId) => {
          const s = new MonitoringStore(undefined);
          try {
            for (const e of theirs) s.changelogs.append('t2', change(e.id, T0_MS + e.t, e.entity));
            for (const e of mine) s.changelogs.append('t1', change(e.id, T0_MS + e.t, e.entity));
            const query = { fromMs: T0_MS, toMs: T0_MS + 10, ...(entityId !== undefined ? { entityId } : {}) };
            const pages = walk(s.changelogs, 't1', query, limit);
            const expected = mine
              .map((e) => change(e.id, T0_MS + e.t, e.entity))
              .filter((row) => row.timestampMs >= query.fromMs && row.timestampMs < query.toMs && (entityId === undefined || row.entityId === entityId))
              .sort(byTimeThenId);
            expect(pages.flat()).toEqual(expected);
            expect(new Set(pages.flat().map((row) => row.id)).size).toBe(expected.length);
            expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
            const last = expected[expected.length - 1];
            if (last !== undefined) {
              expect(s.changelogs.page('t1', { ...query, limit, after: { timestampMs: last.timestampMs, id: `${last.id}~` } })).toEqual([]);
            }
          } finally {
            s.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  describe('metric types', () => {
    it('declares, replaces and reads the types of one check', () => {
      changelogs.putMetricType('t1', 'enA', 'chA', 'load', 'n');
      changelogs.putMetricType('t1', 'enA', 'chA', 'host', 's');
      changelogs.putMetricType('t1', 'enA', 'chA', 'load', 'I');
      expect(changelogs.metricTypes('t1', 'enA', 'chA')).toEqual(new Map([['host', 's'], ['load', 'I']]));
      expect(changelogs.metricTypes('t1', 'enA', 'chB')).toEqual(new Map());
    });

    it('keeps types apart per tenant, entity and check, and drops only the named check', () => {
      changelogs.putMetricType('t1', 'enA', 'chA', 'm', 'i');
      changelogs.putMetricType('t2', 'enA', 'chA', 'm', 'l');
      changelogs.putMetricType('t1', 'enB', 'chA', 'm', 'L');
      changelogs.putMetricType('t1', 'enA', 'chB', 'm', 'n');
      expect(changelogs.metricTypes('t2', 'enA', 'chA').get('m')).toBe('l');
      expect(changelogs.metricTypes('t1', 'enB', 'chA').get('m')).toBe('L');
      changelogs.dropMetricTypes('t1', 'enA', 'chA');
      expect(changelogs.metricTypes('t1', 'enA', 'chA').size).toBe(0);
      expect(changelogs.metricTypes('t2', 'enA', 'chA').get('m')).toBe('l');
      expect(changelogs.metricTypes('t1', 'enB', 'chA').get('m')).toBe('L');
      expect(changelogs.metricTypes('t1', 'enA', 'chB').get('m')).toBe('n');
    });

    it('refuses a type outside i, I, l, L, n, s', () => {
      for (const type of ['i', 'I', 'l', 'L', 'n', 's']) changelogs.putMetricType('t1', 'enA', 'chA', `m${type}`, type);
      expect(changelogs.metricTypes('t1', 'enA', 'chA').size).toBe(6);
      for (const bad of ['x', 'N', '', 'ii']) {
        expect(() => changelogs.putMetricType('t1', 'enA', 'chA', 'bad', bad)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_CHECK' }));
      }
      expect(changelogs.metricTypes('t1', 'enA', 'chA').has('bad')).toBe(false);
    });
  });
});
