// Owns the unit tests of the retention sweeper: which partition files go and when, files a rollup reads, callbacks and idempotence.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import { DEFAULT_RETENTION_MS, LAYOUT, RESOLUTIONS, type Resolution } from '../../src/model/resolution.js';
import { resolveRetention } from '../../src/retention/policy.js';
import { sweepExpired, type SweepDeps } from '../../src/retention/sweeper.js';
import { PartitionSet, partitionStartOf } from '../../src/storage/partition-set.js';

/** A day boundary far from zero, so every resolution has whole partitions before it. */
const D0 = Date.UTC(2024, 0, 10);
const FULL_PART_MS = LAYOUT.FULL.partitionWidthMs;

let dir: string;
let parts: PartitionSet;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-sweeper-'));
  parts = new PartitionSet(dir, 'normal');
});
afterEach(() => {
  parts.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Creates a partition file of `res` at each start, holding one chunk. */
function create(res: Resolution, ...starts: number[]): void {
  for (const start of starts) expect(partitionStartOf(res, start)).toBe(start);
  for (const start of starts) parts.writeChunks(res, start, [{ seriesId: 0, chunkStartMs: start, data: Uint8Array.of(1) }]);
}

interface Recorded {
  readonly dropped: [Resolution, number, number][];
  readonly forgotten: [number, Map<Resolution, number>][];
}

/** Sweep dependencies over the real partition set, recording every callback. */
function deps(nowMs: number, more: Partial<SweepDeps> = {}): SweepDeps & Recorded {
  const dropped: [Resolution, number, number][] = [];
  const forgotten: [number, Map<Resolution, number>][] = [];
  return {
    nowMs,
    retention: DEFAULT_RETENTION_MS,
    partitions: parts,
    isReading: () => false,
    onDropped: (res, start, end) => dropped.push([res, start, end]),
    forget: (fullBeforeMs, dueBefore) => forgotten.push([fullBeforeMs, new Map(dueBefore)]),
    dropped,
    forgotten,
    ...more,
  };
}

describe('sweepExpired', () => {
  it('drops a partition the moment its whole window is past the cutoff, not a millisecond before', () => {
    create('FULL', D0, D0 + FULL_PART_MS);
    const expiresAt = D0 + FULL_PART_MS + DEFAULT_RETENTION_MS.FULL;
    const early = deps(expiresAt - 1);
    expect(sweepExpired(early)).toBe(0);
    expect(early.dropped).toEqual([]);
    expect(parts.starts('FULL')).toEqual([D0, D0 + FULL_PART_MS]);
    const due = deps(expiresAt);
    expect(sweepExpired(due)).toBe(1);
    expect(due.dropped).toEqual([['FULL', D0, D0 + FULL_PART_MS]]);
    expect(parts.starts('FULL')).toEqual([D0 + FULL_PART_MS]);
    expect(existsSync(parts.pathOf('FULL', D0))).toBe(false);
    expect(existsSync(parts.pathOf('FULL', D0 + FULL_PART_MS))).toBe(true);
  });

  it("applies each resolution's own retention", () => {
    // At D0 + 11 days: FULL (2 d) and MIN5 (10 d) files of day D0 have expired; MIN20 (20 d) has not.
    create('FULL', D0);
    create('MIN5', D0);
    create('MIN20', D0);
    const d = deps(D0 + 11 * DAY_MS);
    expect(sweepExpired(d)).toBe(2);
    expect(d.dropped.map(([res]) => res)).toEqual(['FULL', 'MIN5']);
    expect(parts.starts('MIN20')).toEqual([D0]);
  });

  it('follows a custom retention table', () => {
    create('FULL', D0);
    const retention = resolveRetention({ FULL: HOUR_MS });
    expect(sweepExpired(deps(D0 + FULL_PART_MS + HOUR_MS - 1, { retention }))).toBe(0);
    expect(sweepExpired(deps(D0 + FULL_PART_MS + HOUR_MS, { retention }))).toBe(1);
  });

  it('drops every expired file in ascending order and reports each with its window', () => {
    const starts = [0, 1, 2, 3].map((i) => D0 + i * FULL_PART_MS);
    create('FULL', ...starts.slice().reverse());
    const d = deps(D0 + 3 * FULL_PART_MS + DEFAULT_RETENTION_MS.FULL);
    expect(sweepExpired(d)).toBe(3);
    expect(d.dropped).toEqual(starts.slice(0, 3).map((s) => ['FULL', s, s + FULL_PART_MS]));
    expect(parts.starts('FULL')).toEqual([starts[3]]);
  });

  it('keeps a file a rollup task is reading, drops the expired ones after it, and takes it on a later sweep', () => {
    const starts = [0, 1, 2].map((i) => D0 + i * FULL_PART_MS);
    create('FULL', ...starts);
    const now = D0 + 3 * FULL_PART_MS + DEFAULT_RETENTION_MS.FULL;
    const reading = new Set([starts[0]]);
    const first = deps(now, { isReading: (res, start) => res === 'FULL' && reading.has(start) });
    expect(sweepExpired(first)).toBe(2);
    expect(parts.starts('FULL')).toEqual([starts[0]]);
    reading.clear();
    const second = deps(now, { isReading: () => false });
    expect(sweepExpired(second)).toBe(1);
    expect(second.dropped).toEqual([['FULL', starts[0], (starts[0] as number) + FULL_PART_MS]]);
  });

  it('asks to forget bookkeeping only when it dropped something, with each bound one chunk before the cutoff', () => {
    const now = D0 + 400 * DAY_MS;
    const idle = deps(now);
    expect(sweepExpired(idle)).toBe(0);
    expect(idle.forgotten).toEqual([]);
    create('FULL', D0);
    const d = deps(now);
    sweepExpired(d);
    expect(d.forgotten).toHaveLength(1);
    const [fullBeforeMs, dueBefore] = d.forgotten[0]!;
    // A due source chunk [s, s + width) is forgotten when it ends at or before the cutoff: s < cutoff - width + 1.
    expect(fullBeforeMs).toBe(now - DEFAULT_RETENTION_MS.FULL - LAYOUT.FULL.chunkWidthMs + 1);
    expect([...dueBefore.keys()]).toEqual([...RESOLUTIONS]);
    for (const res of RESOLUTIONS) expect(dueBefore.get(res)).toBe(now - DEFAULT_RETENTION_MS[res] - LAYOUT[res].chunkWidthMs + 1);
  });

  it('is idempotent: a second sweep at the same time drops nothing and forgets nothing', () => {
    create('FULL', D0, D0 + FULL_PART_MS);
    create('MIN5', D0);
    const now = D0 + 30 * DAY_MS;
    expect(sweepExpired(deps(now))).toBe(3);
    const again = deps(now);
    expect(sweepExpired(again)).toBe(0);
    expect(again.dropped).toEqual([]);
    expect(again.forgotten).toEqual([]);
  });

  it('finds expired files a fresh partition set discovers on disk (after a restart)', () => {
    const width = LAYOUT.MIN60.partitionWidthMs;
    const p1 = partitionStartOf('MIN60', D0);
    create('MIN60', p1 - width, p1);
    parts.close();
    parts = new PartitionSet(dir, 'normal');
    const d = deps(p1 + DEFAULT_RETENTION_MS.MIN60);
    expect(sweepExpired(d)).toBe(1);
    expect(d.dropped).toEqual([['MIN60', p1 - width, p1]]);
    expect(existsSync(parts.pathOf('MIN60', p1 - width))).toBe(false);
    expect(parts.starts('MIN60')).toEqual([p1]);
  });
});
