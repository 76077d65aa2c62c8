// Owns the unit tests of the due index: generations, grouping finest level first, per-target tasks, splitting, forgetting.
import { describe, expect, it } from 'vitest';
import { ROLLUP_TASK_SERIES_MAX } from '../../src/core/limits.js';
import { DueIndex } from '../../src/rollup/due-index.js';
import type { DueRow } from '../../src/storage/catalog.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A day boundary (MIN5 chunks are one day wide). */
const D0 = Date.UTC(2024, 0, 10);
const NOW = D0 + 3 * DAY;

describe('add and consume', () => {
  it('hands out rows with increasing generations and lists the windows due', () => {
    const due = new DueIndex([], NOW);
    expect(due.isEmpty()).toBe(true);
    const rows = due.add('FULL', D0, [1, 2], NOW);
    expect(rows).toEqual([
      { sourceRes: 'FULL', sourceStartMs: D0, seriesId: 1, gen: 1 },
      { sourceRes: 'FULL', sourceStartMs: D0, seriesId: 2, gen: 2 },
    ]);
    expect(due.add('FULL', D0 + 2 * HOUR, [1], NOW)[0]?.gen).toBe(3);
    expect([...due.windowsOf('FULL', 1)].sort()).toEqual([D0, D0 + 2 * HOUR]);
    expect([...due.windowsOf('FULL', 3)]).toEqual([]);
    expect([...due.windowsOf('MIN5', 1)]).toEqual([]);
    expect(due.isEmpty()).toBe(false);
  });

  it('continues generations after the rows it was loaded with', () => {
    const loaded: DueRow[] = [
      { sourceRes: 'FULL', sourceStartMs: D0, seriesId: 1, gen: 40 },
      { sourceRes: 'MIN5', sourceStartMs: D0, seriesId: 1, gen: 12 },
    ];
    const due = new DueIndex(loaded, NOW);
    expect(due.add('FULL', D0, [1], NOW)[0]?.gen).toBe(41);
    expect([...due.windowsOf('MIN5', 1)]).toEqual([D0]);
  });

  it('has nothing coarser than MIN1440 to roll up into', () => {
    const due = new DueIndex([], NOW);
    expect(due.add('MIN1440', D0, [1], NOW)).toEqual([]);
    expect(due.isEmpty()).toBe(true);
  });

  it('forgets consumed rows', () => {
    const due = new DueIndex([], NOW);
    const rows = due.add('FULL', D0, [1, 2], NOW);
    due.consume(rows);
    expect(due.isEmpty()).toBe(true);
    expect(due.groups()).toEqual([]);
  });

  it('keeps an entry re-marked after a task saw it: consuming the older generation leaves it due', () => {
    const due = new DueIndex([], NOW);
    const older = due.add('FULL', D0, [1, 2], NOW);
    const [group] = due.groups();
    expect(group?.rows).toEqual(older);
    // A late point lands in series 1's window while the task runs.
    const newer = due.add('FULL', D0, [1], NOW + 1);
    due.consume(group!.rows);
    expect([...due.windowsOf('FULL', 1)]).toEqual([D0]);
    expect([...due.windowsOf('FULL', 2)]).toEqual([]);
    const again = due.groups();
    expect(again).toHaveLength(1);
    expect(again[0]?.rows).toEqual(newer);
    due.consume(again[0]!.rows);
    expect(due.isEmpty()).toBe(true);
  });

  it('ignores rows it does not hold', () => {
    const due = new DueIndex([], NOW);
    due.add('FULL', D0, [1], NOW);
    due.consume([
      { sourceRes: 'FULL', sourceStartMs: D0 + HOUR, seriesId: 1, gen: 1 },
      { sourceRes: 'MIN5', sourceStartMs: D0, seriesId: 1, gen: 1 },
      { sourceRes: 'FULL', sourceStartMs: D0, seriesId: 9, gen: 1 },
    ]);
    expect([...due.windowsOf('FULL', 1)]).toEqual([D0]);
  });
});

describe('groups', () => {
  it('returns only the finest source level that has work, then the next', () => {
    const due = new DueIndex([], NOW);
    due.add('MIN20', D0, [5], NOW);
    due.add('MIN5', D0, [4], NOW);
    due.add('FULL', D0 + 4 * HOUR, [3], NOW);
    const full = due.groups();
    expect(full.map((g) => [g.sourceRes, g.targetRes])).toEqual([['FULL', 'MIN5']]);
    due.consume(full.flatMap((g) => g.rows));
    const min5 = due.groups();
    expect(min5.map((g) => [g.sourceRes, g.targetRes])).toEqual([['MIN5', 'MIN20']]);
    due.consume(min5.flatMap((g) => g.rows));
    expect(due.groups().map((g) => [g.sourceRes, g.targetRes])).toEqual([['MIN20', 'MIN60']]);
  });

  it('leaves out blocked groups, and a level with only blocked groups gives way to the next', () => {
    const due = new DueIndex([], NOW);
    due.add('FULL', D0, [1], NOW);
    due.add('FULL', D0 + DAY, [2], NOW);
    due.add('MIN5', D0, [4], NOW);
    const fullLevel = (g: { sourceRes: string; targetStartMs: number }) => [g.sourceRes, g.targetStartMs];
    // One FULL target backing off: the other FULL target still goes first.
    expect(due.groups((res, start) => res === 'MIN5' && start === D0).map(fullLevel)).toEqual([['FULL', D0 + DAY]]);
    // Both FULL targets backing off (a chunk that keeps failing): MIN5 -> MIN20 is not held back.
    expect(due.groups((res) => res === 'MIN5').map(fullLevel)).toEqual([['MIN5', D0]]);
    // Nothing blocked: finest level first, as before.
    expect(due.groups().map(fullLevel)).toEqual([['FULL', D0], ['FULL', D0 + DAY]]);
    expect(due.groups(() => true)).toEqual([]);
  });

  it('makes one group per target chunk, sorted by target start, source starts ascending', () => {
    const due = new DueIndex([], NOW);
    // Series 1: three FULL windows on day 0 (added out of order) and one on day 1. Series 2: one on day 0.
    const added = [
      ...due.add('FULL', D0 + 6 * HOUR, [1], NOW),
      ...due.add('FULL', D0 + DAY + 2 * HOUR, [1], NOW),
      ...due.add('FULL', D0, [1, 2], NOW),
      ...due.add('FULL', D0 + 22 * HOUR, [1], NOW),
    ];
    const groups = due.groups();
    expect(groups.map((g) => g.targetStartMs)).toEqual([D0, D0 + DAY]);
    const [day0, day1] = groups;
    expect(day0?.targetRes).toBe('MIN5');
    expect(day0?.series).toEqual([
      { id: 1, sourceStartsMs: [D0, D0 + 6 * HOUR, D0 + 22 * HOUR] },
      { id: 2, sourceStartsMs: [D0] },
    ]);
    expect(day1?.series).toEqual([{ id: 1, sourceStartsMs: [D0 + DAY + 2 * HOUR] }]);
    // Each group carries exactly the rows of its series and windows, with their generations.
    expect(day0?.rows.map((r) => [r.seriesId, r.sourceStartMs]).sort()).toEqual(
      [[1, D0], [1, D0 + 6 * HOUR], [1, D0 + 22 * HOUR], [2, D0]].sort(),
    );
    const key = (r: DueRow): string => `${r.sourceRes}/${r.seriesId}/${r.sourceStartMs}/${r.gen}`;
    expect(groups.flatMap((g) => g.rows).map(key).sort()).toEqual(added.map(key).sort());
  });

  it('aligns targets of coarser levels to their chunk widths (MIN5 days into 4-day MIN20 chunks)', () => {
    const due = new DueIndex([], NOW);
    const base = Math.floor(D0 / (4 * DAY)) * 4 * DAY;
    due.add('MIN5', base + DAY, [1], NOW);
    due.add('MIN5', base + 3 * DAY, [1], NOW);
    due.add('MIN5', base + 4 * DAY, [1], NOW);
    const groups = due.groups();
    expect(groups.map((g) => [g.targetRes, g.targetStartMs, g.series[0]?.sourceStartsMs])).toEqual([
      ['MIN20', base, [base + DAY, base + 3 * DAY]],
      ['MIN20', base + 4 * DAY, [base + 4 * DAY]],
    ]);
  });

  it(`splits a target with more than ROLLUP_TASK_SERIES_MAX (${ROLLUP_TASK_SERIES_MAX}) series into several tasks`, () => {
    const due = new DueIndex([], NOW);
    const ids = Array.from({ length: 2 * ROLLUP_TASK_SERIES_MAX + 5 }, (_, i) => i);
    due.add('FULL', D0, ids, NOW);
    due.add('FULL', D0 + 2 * HOUR, ids.slice(0, 3), NOW);
    due.add('FULL', D0 + DAY, [7], NOW);
    const groups = due.groups();
    const day0 = groups.filter((g) => g.targetStartMs === D0);
    expect(day0.map((g) => g.series.length)).toEqual([ROLLUP_TASK_SERIES_MAX, ROLLUP_TASK_SERIES_MAX, 5]);
    for (const g of groups) expect(g.series.length).toBeLessThanOrEqual(ROLLUP_TASK_SERIES_MAX);
    // Every series of the target appears in exactly one of its tasks, with all its windows.
    const seen = day0.flatMap((g) => g.series.map((s) => s.id));
    expect(new Set(seen).size).toBe(ids.length);
    expect(seen).toHaveLength(ids.length);
    expect(day0.flatMap((g) => g.rows)).toHaveLength(ids.length + 3);
    for (const g of day0) {
      expect(g.rows.map((r) => r.seriesId).sort((a, b) => a - b)).toEqual(
        g.series.flatMap((s) => s.sourceStartsMs.map(() => s.id)).sort((a, b) => a - b),
      );
    }
    expect(groups.filter((g) => g.targetStartMs === D0 + DAY).map((g) => g.series)).toEqual([[{ id: 7, sourceStartsMs: [D0 + DAY] }]]);
    for (const g of groups) due.consume(g.rows);
    expect(due.isEmpty()).toBe(true);
  });

  it('is empty when nothing is due', () => {
    expect(new DueIndex([], NOW).groups()).toEqual([]);
  });
});

describe('forgetBefore and oldestAddedMs', () => {
  it('forgets entries of one level that start before the cut, and nothing else', () => {
    const due = new DueIndex([], NOW);
    due.add('FULL', D0, [1, 2], NOW);
    due.add('FULL', D0 + 2 * HOUR, [1], NOW);
    due.add('MIN5', D0, [1], NOW);
    due.forgetBefore('FULL', D0 + 2 * HOUR);
    expect([...due.windowsOf('FULL', 1)]).toEqual([D0 + 2 * HOUR]);
    expect([...due.windowsOf('FULL', 2)]).toEqual([]);
    expect([...due.windowsOf('MIN5', 1)]).toEqual([D0]);
    due.forgetBefore('FULL', D0 + 2 * HOUR + 1);
    due.forgetBefore('MIN5', D0 + 1);
    expect(due.isEmpty()).toBe(true);
    expect(due.groups()).toEqual([]);
  });

  it('reports the clock time of the oldest entry, undefined when none', () => {
    const due = new DueIndex([], NOW);
    expect(due.oldestAddedMs()).toBeUndefined();
    due.add('FULL', D0, [1], NOW + 500);
    due.add('MIN5', D0, [1], NOW + 100);
    due.add('FULL', D0 + 2 * HOUR, [2], NOW + 900);
    expect(due.oldestAddedMs()).toBe(NOW + 100);
    due.forgetBefore('MIN5', D0 + DAY);
    expect(due.oldestAddedMs()).toBe(NOW + 500);
  });

  it('dates loaded rows at the time the index was built', () => {
    const due = new DueIndex([{ sourceRes: 'FULL', sourceStartMs: D0, seriesId: 1, gen: 1 }], NOW - 7);
    expect(due.oldestAddedMs()).toBe(NOW - 7);
  });

  it('a re-mark refreshes the time of its entry', () => {
    const due = new DueIndex([], NOW);
    due.add('FULL', D0, [1], NOW);
    due.add('FULL', D0, [1], NOW + 50);
    expect(due.oldestAddedMs()).toBe(NOW + 50);
  });
});

describe('derived answers stay current', () => {
  it('rebuilds groups after every add, consume and forget, and keeps the oldest time right through re-marks', () => {
    const due = new DueIndex([], NOW);
    expect(due.oldestAddedMs()).toBeUndefined();
    due.add('FULL', D0, [1], NOW - 50);
    due.add('FULL', D0 + 4 * HOUR, [2], NOW - 40);
    const first = due.groups();
    expect(due.groups()).toBe(first);
    expect(first.flatMap((g) => g.rows.map((r) => r.seriesId))).toEqual([1, 2]);
    expect(due.oldestAddedMs()).toBe(NOW - 50);
    // Re-marking series 1 moves its time forward: the oldest is now series 2's.
    due.add('FULL', D0, [1], NOW - 10);
    expect(due.oldestAddedMs()).toBe(NOW - 40);
    const second = due.groups();
    expect(second).not.toBe(first);
    expect(second[0]?.rows.find((r) => r.seriesId === 1)?.gen).toBe(3);
    due.consume(second.flatMap((g) => g.rows).filter((r) => r.seriesId === 2));
    expect(due.groups().flatMap((g) => g.rows.map((r) => r.seriesId))).toEqual([1]);
    expect(due.oldestAddedMs()).toBe(NOW - 10);
    due.forgetBefore('FULL', D0 + DAY);
    expect(due.groups()).toEqual([]);
    expect(due.oldestAddedMs()).toBeUndefined();
  });
});

