// Tests catalog.sqlite's bookkeeping: series, sealed markers, due rollup work and what may be forgotten.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/storage/catalog.js';
import { WalLog } from '../../src/storage/wal-log.js';

let dir: string;
let catalog: Catalog;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-catalog-'));
  catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
});
afterEach(() => {
  catalog.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('catalog', () => {
  it('persists series, unit changes, sealed markers and due rows across a reopen', () => {
    catalog.saveSeries([{ id: 0, tenant: 't', metric: 'a', unit: null }], []);
    catalog.saveSeries([], [{ id: 0, tenant: 't', metric: 'a', unit: 'ms' }]);
    catalog.commitSeal(7_200_000, 12, [{ sourceRes: 'FULL', sourceStartMs: 7_200_000, seriesId: 0, gen: 3 }]);
    catalog.close();
    catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
    expect(catalog.loadSeries()).toEqual([{ id: 0, tenant: 't', metric: 'a', unit: 'ms' }]);
    expect([...catalog.loadSealed()]).toEqual([[7_200_000, 12]]);
    expect(catalog.loadDue()).toEqual([{ sourceRes: 'FULL', sourceStartMs: 7_200_000, seriesId: 0, gen: 3 }]);
  });

  it('clears a consumed due row only at the generation the task saw', () => {
    catalog.commitSeal(0, 1, [{ sourceRes: 'FULL', sourceStartMs: 0, seriesId: 1, gen: 1 }]);
    catalog.commitSeal(0, 2, [{ sourceRes: 'FULL', sourceStartMs: 0, seriesId: 1, gen: 2 }]);
    catalog.commitRollup([{ sourceRes: 'MIN5', sourceStartMs: 0, seriesId: 1, gen: 3 }], [{ sourceRes: 'FULL', sourceStartMs: 0, seriesId: 1, gen: 1 }]);
    expect(catalog.loadDue().map((d) => [d.sourceRes, d.gen])).toEqual([
      ['FULL', 2],
      ['MIN5', 3],
    ]);
  });

  it('forgets a sealed marker of an expired window only once no WAL record it covers is on disk', () => {
    catalog.commitSeal(0, 5, []);
    catalog.commitSeal(7_200_000, 9, []);
    catalog.forgetBefore(10_000_000, 6, new Map());
    expect([...catalog.loadSealed()]).toEqual([[7_200_000, 9]]);
    catalog.forgetBefore(10_000_000, 10, new Map());
    expect([...catalog.loadSealed()]).toEqual([]);
  });
});

describe('WalLog.oldestSeqOnDisk', () => {
  it('stays at the first seq of the oldest surviving segment, released records included', () => {
    const walDir = join(dir, 'wal');
    const wal = new WalLog(walDir, 'normal');
    wal.replay(() => {});
    const batch = { length: 1, seriesIds: Uint32Array.of(0), timestampsMs: Float64Array.of(1000), values: Float64Array.of(1), strings: null };
    const first = wal.append(batch);
    const second = wal.append(batch);
    wal.release(first);
    // The segment still holds `second`, so the released `first` would be replayed too.
    expect(wal.oldestSeqOnDisk()).toBe(first);
    wal.release(second);
    wal.close();
    const reopened = new WalLog(walDir, 'normal');
    const replayed: number[] = [];
    reopened.replay((r) => replayed.push(r.seq));
    expect(replayed).toEqual([]);
    expect(reopened.oldestSeqOnDisk()).toBe(second + 1);
    reopened.close();
  });
});
