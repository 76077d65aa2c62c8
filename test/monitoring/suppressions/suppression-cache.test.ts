// Checks the suppression index: one entry per target item, kept in step by put and drop, the cache bounded by tenants and by entries, and stored recurrences compiled lazily (an unreadable one never occurs).
import { describe, expect, it } from 'vitest';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import { SuppressionCache, TenantSuppressions } from '../../../src/monitoring/suppressions/suppression-cache.js';
import type { SuppressionDoc } from '../../../src/monitoring/suppressions/suppression-rules.js';

const T0 = Date.parse('2025-06-02T00:00:00Z'); // a Monday
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A stored suppression active over [T0, T0 + 1 h) naming `entities` entity ids `e0`... (or the lists given). */
function stored(id: string, fields: Partial<SuppressionDoc> = {}): StoredDoc<SuppressionDoc> {
  const doc: SuppressionDoc = { label: null, start_time: T0, end_time: T0 + HOUR_MS, entities: [], checks: [], alarms: [], notification_plans: [], recurrence: null, ...fields };
  return { id, entityId: null, doc, createdMs: T0, updatedMs: T0 };
}

/** `n` entity ids. */
const entities = (n: number, prefix = 'en'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('TenantSuppressions', () => {
  it('holds one entry per target item and keeps them in step through put (add or replace) and drop', () => {
    const index = new TenantSuppressions([stored('spA', { entities: ['enA', 'enB'], checks: ['enA:chA'] }), stored('spB', { notification_plans: ['npA'], alarms: ['enA:alA'] })]);
    expect(index.entries).toBe(5);
    const alarm = { entityId: 'enA', checkId: 'chA', alarmId: 'alA', planId: 'npA' };
    expect(index.naming(alarm).map((one) => one.id).sort()).toEqual(['spA', 'spB']);
    index.put('spA', stored('spA', { entities: ['enB'] }).doc);
    expect(index.entries).toBe(3);
    expect(index.naming(alarm).map((one) => one.id)).toEqual(['spB']);
    expect(index.naming({ entityId: 'enB' }).map((one) => one.id)).toEqual(['spA']);
    index.drop('spB');
    index.drop('spNone');
    expect(index.entries).toBe(1);
    expect(index.naming(alarm)).toEqual([]);
    index.drop('spA');
    expect(index.entries).toBe(0);
    expect(index.naming({ entityId: 'enB' })).toEqual([]);
  });

  it('compiles a stored recurrence on first use; one this process cannot read never occurs, and the rest of the tenant still answers', () => {
    const recurring = stored('spR', { end_time: T0 + 14 * DAY_MS, entities: ['enA'], recurrence: { schedule: '0 1 * * MON', time_zone: 'Europe/Berlin', duration: 2 * HOUR_MS } });
    const broken = stored('spX', { end_time: T0 + 14 * DAY_MS, entities: ['enA'], recurrence: { schedule: '0 1 * * MON', time_zone: 'Mars/Olympus_Mons', duration: 2 * HOUR_MS } });
    const index = new TenantSuppressions([recurring, broken, stored('spO', { entities: ['enA'] })]);
    const active = (t: number): string[] => index.naming({ entityId: 'enA' }).filter((one) => one.window.activeAt(t)).map((one) => one.id).sort();
    // Monday 01:00 Berlin is 23:00 UTC the day before (summer time): the occurrence running at T0 covers it until 01:00 UTC, the next starts at T0 + 7 d - 1 h.
    expect(active(T0)).toEqual(['spO', 'spR']);
    expect(active(T0 + HOUR_MS)).toEqual([]);
    expect(active(T0 + 7 * DAY_MS - HOUR_MS)).toEqual(['spR']);
    expect(active(T0 + 7 * DAY_MS + HOUR_MS - 1)).toEqual(['spR']);
    expect(active(T0 + 7 * DAY_MS + HOUR_MS)).toEqual([]);
    expect(index.naming({ entityId: 'enA' }).some((one) => one.window.scheduledAfter(T0 + 8 * DAY_MS))).toBe(true);
  });
});

describe('SuppressionCache', () => {
  it('keeps at most its bound of index entries over every tenant, dropping the least recently used; a tenant alone past it is kept alone', () => {
    const sizes: Record<string, number> = { a: 4, b: 3, c: 2, big: 12 };
    const loads: string[] = [];
    const cache = new SuppressionCache((tenant) => (loads.push(tenant), [stored(`sp${tenant}`, { entities: entities(sizes[tenant] ?? 0) })]), 10, 8);
    cache.of('a');
    cache.of('b');
    expect([cache.size, cache.entries]).toEqual([2, 7]);
    cache.of('a');
    cache.of('c'); // 9 > 8: b, the least recently used, goes
    expect([cache.size, cache.entries]).toEqual([2, 6]);
    cache.of('a');
    cache.of('c');
    expect(loads).toEqual(['a', 'b', 'c']);
    cache.of('big');
    expect([cache.size, cache.entries]).toEqual([1, 12]);
    cache.of('a');
    expect([cache.size, cache.entries]).toEqual([1, 4]);
    expect(loads).toEqual(['a', 'b', 'c', 'big', 'a']);
  });

  it('applies changes to a loaded tenant in place (no reload), ignores tenants not loaded, and drops the index when a change throws', () => {
    const loads: string[] = [];
    const cache = new SuppressionCache((tenant) => (loads.push(tenant), [stored('spA', { entities: ['enA'] })]), 10, 100);
    cache.update('t1', () => {
      throw new Error('not called for a tenant not loaded');
    });
    expect(loads).toEqual([]);
    cache.of('t1');
    cache.update('t1', (index) => index.put('spB', stored('spB', { entities: entities(3) }).doc));
    expect(cache.entries).toBe(4);
    expect(cache.of('t1').naming({ entityId: 'en2' }).map((one) => one.id)).toEqual(['spB']);
    cache.update('t1', (index) => index.drop('spA'));
    expect(cache.entries).toBe(3);
    expect(() =>
      cache.update('t1', (index) => {
        index.drop('spB');
        throw new Error('half done');
      }),
    ).toThrow('half done');
    expect([cache.size, cache.entries]).toEqual([0, 0]);
    expect(cache.of('t1').entries).toBe(1);
    expect(loads).toEqual(['t1', 't1']);
  });

  it('a change that grows a tenant past the entry bound drops the others, never the tenant changed', () => {
    const cache = new SuppressionCache(() => [stored('spA', { entities: ['enA'] })], 10, 5);
    cache.of('t1');
    cache.of('t2');
    cache.of('t3');
    cache.update('t1', (index) => index.put('spB', stored('spB', { entities: entities(3) }).doc));
    expect([cache.size, cache.entries]).toEqual([2, 5]);
    cache.update('t1', (index) => index.put('spC', stored('spC', { entities: entities(4, 'x') }).doc));
    expect([cache.size, cache.entries]).toEqual([1, 8]);
    expect(cache.of('t1').naming({ entityId: 'x3' }).map((one) => one.id)).toEqual(['spC']);
  });
});
