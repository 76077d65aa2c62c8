// Owns the tests of the partition ledger and its catalog tables: counts that only grow, a first seq that stays unknown once unknown, the cheap check at open, adoption of unlisted files, damage recorded and logged once, and forgetting.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { Catalog } from '../../src/storage/catalog.js';
import { PartitionLedger } from '../../src/storage/partition-ledger.js';
import { PartitionSet } from '../../src/storage/partition-set.js';

let dir: string;
let catalog: Catalog;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-ledger-'));
  catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
});
afterEach(() => {
  catalog.close();
  rmSync(dir, { recursive: true, force: true });
});

function ledger(): { ledger: PartitionLedger; errors: object[] } {
  const errors: object[] = [];
  const l = new PartitionLedger({ dataDir: dir, catalog, clock: new ManualClock(1_000), logger: { info: () => {}, warn: () => {}, error: (obj) => errors.push(obj) } });
  return { ledger: l, errors };
}

/** Writes `n` chunks into the FULL partition at `startMs` through a plain set. */
function fullFile(startMs: number, n: number): string {
  const parts = new PartitionSet(dir, 'normal');
  parts.writeChunks('FULL', startMs, Array.from({ length: n }, (_, i) => ({ seriesId: i, chunkStartMs: startMs, data: Uint8Array.of(i) })));
  parts.close();
  return parts.pathOf('FULL', startMs);
}

describe('catalog partition records', () => {
  it('keeps the highest count, the lowest first seq, and an unknown first seq unknown', () => {
    catalog.commitSeal(0, 5, [], { res: 'FULL', startMs: 0, chunks: 4, firstSeq: 3 });
    catalog.commitSeal(7_200_000, 9, [], { res: 'FULL', startMs: 0, chunks: 6, firstSeq: 7 });
    catalog.recordPartitions([{ res: 'FULL', startMs: 0, chunks: 2, firstSeq: 1 }]);
    expect(catalog.loadPartitions()).toEqual([{ res: 'FULL', startMs: 0, chunks: 6, firstSeq: 1 }]);
    catalog.recordPartitions([{ res: 'FULL', startMs: 21_600_000, chunks: 1, firstSeq: null }]);
    catalog.commitSeal(21_600_000, 12, [], { res: 'FULL', startMs: 21_600_000, chunks: 2, firstSeq: 10 });
    expect(catalog.loadPartitions()[1]).toEqual({ res: 'FULL', startMs: 21_600_000, chunks: 2, firstSeq: null });
    catalog.commitRollup([], [], { res: 'MIN5', startMs: 0, chunks: 3, firstSeq: null });
    expect(catalog.loadPartitions().map((r) => r.res)).toEqual(['FULL', 'FULL', 'MIN5']);
  });

  it('records, replaces and clears damage; forgetting a partition drops both rows', () => {
    catalog.recordPartitions([{ res: 'MIN5', startMs: 0, chunks: 3, firstSeq: null }]);
    catalog.markDamaged({ res: 'MIN5', startMs: 0, reason: 'empty', detail: 'a', detectedMs: 1 });
    catalog.markDamaged({ res: 'MIN5', startMs: 0, reason: 'lost', detail: 'b', detectedMs: 2 });
    expect(catalog.loadDamaged()).toEqual([{ res: 'MIN5', startMs: 0, reason: 'lost', detail: 'b', detectedMs: 2 }]);
    catalog.clearDamaged('MIN5', 0);
    expect(catalog.loadDamaged()).toEqual([]);
    catalog.markDamaged({ res: 'MIN5', startMs: 0, reason: 'empty', detail: 'a', detectedMs: 1 });
    catalog.forgetPartition('MIN5', 0);
    expect([catalog.loadPartitions(), catalog.loadDamaged()]).toEqual([[], []]);
  });

  it('deletes the sealed markers of a range, and hands out due rows above the highest generation', () => {
    catalog.commitSeal(0, 1, [{ sourceRes: 'FULL', sourceStartMs: 0, seriesId: 1, gen: 41 }]);
    catalog.commitSeal(7_200_000, 2, []);
    catalog.commitSeal(21_600_000, 3, []);
    catalog.forgetSealedIn(0, 21_600_000);
    expect([...catalog.loadSealed()]).toEqual([[21_600_000, 3]]);
    expect(catalog.maxDueGen()).toBe(41);
    catalog.addDue([{ sourceRes: 'MIN5', sourceStartMs: 0, seriesId: 2, gen: 42 }]);
    expect(catalog.loadDue()).toHaveLength(2);
  });
});

describe('PartitionLedger', () => {
  it('at open: listed files get the cheap check, a missing or empty one is damage, unlisted ones are verified and adopted', () => {
    fullFile(0, 3);
    const emptied = fullFile(21_600_000, 2);
    fullFile(43_200_000, 5);
    catalog.recordPartitions([
      { res: 'FULL', startMs: 0, chunks: 3, firstSeq: 1 },
      { res: 'FULL', startMs: 21_600_000, chunks: 2, firstSeq: 1 },
      { res: 'FULL', startMs: 64_800_000, chunks: 1, firstSeq: 1 },
      { res: 'MIN5', startMs: 0, chunks: 0, firstSeq: null },
    ]);
    truncateSync(emptied, 0);
    writeFileSync(join(dir, 'partitions', 'MIN20', '0.sqlite'), '');
    const { ledger: l, errors } = ledger();
    expect(l.open()).toEqual({ adopted: 2, damaged: 2 });
    expect(l.damages().map((d) => [d.res, d.startMs, d.reason])).toEqual([
      ['FULL', 21_600_000, 'empty'],
      ['FULL', 64_800_000, 'missing'],
    ]);
    expect(errors).toHaveLength(2);
    expect(l.state('FULL', 0)).toEqual({ chunks: 3, verified: false, damage: undefined });
    expect(l.state('FULL', 43_200_000)).toEqual({ chunks: 5, verified: true, damage: undefined });
    // The MIN5 row recorded empty and gone: forgotten, not damage. The unlisted empty MIN20 file: adopted empty.
    expect(catalog.loadPartitions().map((r) => [r.res, r.startMs, r.chunks])).toEqual([
      ['FULL', 0, 3],
      ['FULL', 21_600_000, 2],
      ['FULL', 43_200_000, 5],
      ['FULL', 64_800_000, 1],
      ['MIN20', 0, 0],
    ]);
    expect(catalog.loadDamaged().map((d) => d.reason)).toEqual(['empty', 'missing']);
  });

  it('learns counts as maxima, records damage once, and forgets a partition with its rows', () => {
    const { ledger: l, errors } = ledger();
    l.open();
    l.learn([{ res: 'MIN5', startMs: 0, chunks: 4 }]);
    l.learn([{ res: 'MIN5', startMs: 0, chunks: 2 }]);
    expect(l.note('MIN5', 0)).toEqual({ res: 'MIN5', startMs: 0, chunks: 4, verified: true });
    expect(l.note('MIN20', 0)).toEqual({ res: 'MIN20', startMs: 0, chunks: undefined, verified: false });
    const damage = { res: 'MIN5' as const, startMs: 0, reason: 'corrupt' as const, detail: 'x' };
    l.damaged(damage);
    l.damaged({ ...damage, detail: 'again' });
    expect(errors).toHaveLength(1);
    expect(catalog.loadDamaged()).toEqual([{ ...damage, detectedMs: 1_000 }]);
    expect(l.known()).toEqual([{ res: 'MIN5', startMs: 0 }]);
    l.forget('MIN5', 0);
    expect([l.damageOf('MIN5', 0), l.known(), catalog.loadDamaged()]).toEqual([undefined, [], []]);
  });
});
