// Owns the unit tests of the series registry: dense ids, tenants kept apart, units, persist before use, discarding a rejected batch, reopen, names in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/storage/catalog.js';
import { SeriesRegistry } from '../../src/storage/series-registry.js';

let dir: string;
let catalog: Catalog;
let open: Catalog[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-registry-'));
  catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  open = [catalog];
});
afterEach(() => {
  for (const c of open) c.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A registry over a fresh connection to the same catalog file, as after a restart. */
function reopened(): SeriesRegistry {
  const again = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  open.push(again);
  return new SeriesRegistry(again);
}

/** The series rows on disk, read over a fresh connection. */
function savedSeries(): ReturnType<Catalog['loadSeries']> {
  const again = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  open.push(again);
  return again.loadSeries();
}

describe('resolve and lookup', () => {
  it('hands out dense ids from 0 and finds each series again by tenant and metric', () => {
    const reg = new SeriesRegistry(catalog);
    expect(reg.resolve('acme', 'cpu', undefined)).toBe(0);
    expect(reg.resolve('acme', 'mem', 'bytes')).toBe(1);
    expect(reg.resolve('acme', 'cpu', undefined)).toBe(0);
    expect(reg.lookup('acme', 'mem')).toBe(1);
    expect(reg.lookup('acme', 'disk')).toBeUndefined();
    expect(reg.row(1)).toEqual({ id: 1, tenant: 'acme', metric: 'mem', unit: 'bytes' });
    expect(reg.row(0)?.unit).toBeNull();
    expect(reg.row(2)).toBeUndefined();
  });

  it('keeps tenants apart: the same metric name is a different series per tenant', () => {
    const reg = new SeriesRegistry(catalog);
    const a = reg.resolve('acme', 'cpu', undefined);
    const b = reg.resolve('globex', 'cpu', undefined);
    expect(a).not.toBe(b);
    expect([...reg.metricsOf('acme')]).toEqual([['cpu', a]]);
    expect([...reg.metricsOf('globex')]).toEqual([['cpu', b]]);
    expect(reg.lookup('initech', 'cpu')).toBeUndefined();
  });

  it('answers metricsOf for an unknown tenant with an empty map, and liveMetricsOf with a map that follows new series', () => {
    const reg = new SeriesRegistry(catalog);
    expect(reg.metricsOf('nobody').size).toBe(0);
    const live = reg.liveMetricsOf('acme');
    expect(live.size).toBe(0);
    const id = reg.resolve('acme', 'cpu', undefined);
    expect(live.get('cpu')).toBe(id);
    expect(reg.liveMetricsOf('acme')).toBe(live);
    expect(reg.metricsOf('acme')).toBe(live);
  });
});

describe('units', () => {
  it('changes a unit when a write names another one, and keeps it when a write names none', () => {
    const reg = new SeriesRegistry(catalog);
    const id = reg.resolve('acme', 'lat', 'ms');
    reg.persist();
    expect(reg.resolve('acme', 'lat', undefined)).toBe(id);
    expect(reg.row(id)?.unit).toBe('ms');
    expect(reg.resolve('acme', 'lat', 's')).toBe(id);
    expect(reg.row(id)?.unit).toBe('s');
    reg.persist();
    expect(reopened().row(id)).toEqual({ id, tenant: 'acme', metric: 'lat', unit: 's' });
  });

  it('persists a unit changed in the same batch that registered the series', () => {
    const reg = new SeriesRegistry(catalog);
    const id = reg.resolve('acme', 'lat', 'ms');
    reg.resolve('acme', 'lat', 'us');
    reg.persist();
    expect(reopened().row(id)?.unit).toBe('us');
  });
});

describe('persist and discard', () => {
  it('persists new series so a reopened registry knows them and continues their ids', () => {
    const reg = new SeriesRegistry(catalog);
    reg.resolve('acme', 'a', undefined);
    reg.resolve('globex', 'b', 'req');
    reg.persist();
    const again = reopened();
    expect(again.lookup('acme', 'a')).toBe(0);
    expect(again.row(1)).toEqual({ id: 1, tenant: 'globex', metric: 'b', unit: 'req' });
    expect(again.resolve('acme', 'c', undefined)).toBe(2);
  });

  it('keeps nothing of a series registered but not persisted', () => {
    const reg = new SeriesRegistry(catalog);
    reg.resolve('acme', 'a', undefined);
    expect(reopened().lookup('acme', 'a')).toBeUndefined();
    expect(savedSeries()).toEqual([]);
  });

  it('discards pending series: gone from lookups, their ids reused, nothing reaches the catalog', () => {
    const reg = new SeriesRegistry(catalog);
    const kept = reg.resolve('acme', 'kept', undefined);
    reg.persist();
    const live = reg.liveMetricsOf('acme');
    reg.resolve('acme', 'x', undefined);
    reg.resolve('globex', 'y', undefined);
    reg.discardPending();
    expect(reg.lookup('acme', 'x')).toBeUndefined();
    expect(reg.lookup('globex', 'y')).toBeUndefined();
    expect(reg.row(1)).toBeUndefined();
    expect([...live.keys()]).toEqual(['kept']);
    expect(reg.resolve('acme', 'z', undefined)).toBe(kept + 1);
    reg.persist();
    const again = reopened();
    expect(again.lookup('acme', 'z')).toBe(1);
    expect(again.lookup('acme', 'x')).toBeUndefined();
    expect(again.row(2)).toBeUndefined();
  });

  it('restores units a discarded batch changed, even when it changed one twice', () => {
    const reg = new SeriesRegistry(catalog);
    const id = reg.resolve('acme', 'lat', 'ms');
    reg.persist();
    reg.resolve('acme', 'lat', 's');
    reg.resolve('acme', 'lat', 'min');
    const fresh = reg.resolve('acme', 'new', 'x');
    reg.resolve('acme', 'new', 'y');
    reg.discardPending();
    expect(reg.row(id)?.unit).toBe('ms');
    expect(reg.row(fresh)).toBeUndefined();
    reg.persist();
    expect(reopened().row(id)?.unit).toBe('ms');
  });

  it('leaves the catalog alone when nothing is pending', () => {
    const reg = new SeriesRegistry(catalog);
    reg.resolve('acme', 'a', 'ms');
    reg.persist();
    reg.resolve('acme', 'a', 'ms');
    catalog.close();
    open = [];
    // A closed catalog throws on any statement: persisting nothing must not touch it.
    expect(() => reg.persist()).not.toThrow();
    reg.resolve('acme', 'b', undefined);
    expect(() => reg.persist()).toThrow();
  });

  it('keeps a failed persist pending, so discarding it afterwards rolls the batch back', () => {
    const reg = new SeriesRegistry(catalog);
    // Another registry on the same file takes id 0 first: this one's insert of id 0 must fail.
    const rival = reopened();
    rival.resolve('globex', 'first', undefined);
    rival.persist();
    reg.resolve('acme', 'late', undefined);
    expect(() => reg.persist()).toThrow(/UNIQUE|PRIMARY KEY|constraint/i);
    reg.discardPending();
    expect(reg.lookup('acme', 'late')).toBeUndefined();
    expect(savedSeries()).toEqual([{ id: 0, tenant: 'globex', metric: 'first', unit: null }]);
  });
});

describe('sorted names', () => {
  const names = (reg: SeriesRegistry, tenant: string): string[] => [...reg.namesOf(tenant).namesFrom('', true)];

  it('lists each tenant its own names in code unit order as series register, and none for an unknown tenant', () => {
    const reg = new SeriesRegistry(catalog);
    for (const metric of ['web.mem', 'Web.cpu', 'db.cpu', 'web.cpu']) reg.resolve('acme', metric, undefined);
    reg.resolve('globex', 'zeta', 'ms');
    expect(names(reg, 'acme')).toEqual(['Web.cpu', 'db.cpu', 'web.cpu', 'web.mem']);
    expect(names(reg, 'globex')).toEqual(['zeta']);
    expect(names(reg, 'nobody')).toEqual([]);
    expect(reg.namesOf('nobody').size).toBe(0);
  });

  it('drops discarded series from the order and keeps persisted ones', () => {
    const reg = new SeriesRegistry(catalog);
    reg.resolve('acme', 'b', undefined);
    reg.persist();
    reg.resolve('acme', 'a', undefined);
    reg.resolve('acme', 'c', undefined);
    reg.resolve('globex', 'x', undefined);
    reg.discardPending();
    expect(names(reg, 'acme')).toEqual(['b']);
    expect(names(reg, 'globex')).toEqual([]);
  });

  it('rebuilds the order from the catalog on reopen, and keeps it as new series register', () => {
    const reg = new SeriesRegistry(catalog);
    for (const metric of ['m3', 'm1', 'm2']) reg.resolve('acme', metric, undefined);
    reg.persist();
    const again = reopened();
    expect(names(again, 'acme')).toEqual(['m1', 'm2', 'm3']);
    again.resolve('acme', 'm0', undefined);
    expect(names(again, 'acme')).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('answers unitOf with the current unit, or null', () => {
    const reg = new SeriesRegistry(catalog);
    reg.resolve('acme', 'lat', 'ms');
    reg.resolve('acme', 'count', undefined);
    expect(reg.unitOf('acme', 'lat')).toBe('ms');
    expect(reg.unitOf('acme', 'count')).toBeNull();
    expect(reg.unitOf('acme', 'nothing')).toBeNull();
    expect(reg.unitOf('globex', 'lat')).toBeNull();
  });
});
