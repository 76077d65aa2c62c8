// Owns the in-memory index of due rollup work, mirrored from catalog.sqlite's rollup_due table.
import { ROLLUP_TASK_SERIES_MAX } from '../core/limits.js';
import { alignDown } from '../core/time.js';
import { coarserOf, LAYOUT, RESOLUTIONS, type Resolution, type RollupResolution } from '../model/resolution.js';
import type { DueRow } from '../storage/catalog.js';

interface DueEntry {
  readonly gen: number;
  readonly addedMs: number;
}

/** A group of due work that one task can do: one target chunk, some series. */
export interface DueGroup {
  readonly sourceRes: Resolution;
  readonly targetRes: RollupResolution;
  readonly targetStartMs: number;
  readonly series: { readonly id: number; readonly sourceStartsMs: number[] }[];
  /** The due rows the task consumes (with the generations it saw). */
  readonly rows: DueRow[];
}

/** Due rollup work by source resolution, series and source chunk start. */
export class DueIndex {
  private readonly bySource = new Map<Resolution, Map<number, Map<number, DueEntry>>>();
  private gen = 0;
  /**
   * Groups per source resolution, built on first ask and dropped on any change: the scheduler asks
   * every second and after every finished task, and building them walks every due entry.
   */
  private readonly built = new Map<Resolution, DueGroup[]>();
  /** oldestAddedMs's answer until an entry goes; null when it must be recomputed. */
  private oldest: number | undefined | null = null;

  constructor(rows: readonly DueRow[], nowMs: number) {
    for (const res of RESOLUTIONS) this.bySource.set(res, new Map());
    for (const row of rows) {
      this.put(row.sourceRes, row.seriesId, row.sourceStartMs, { gen: row.gen, addedMs: nowMs });
      this.gen = Math.max(this.gen, row.gen);
    }
  }

  private put(res: Resolution, seriesId: number, startMs: number, entry: DueEntry): void {
    const bySeries = this.bySource.get(res) as Map<number, Map<number, DueEntry>>;
    let windows = bySeries.get(seriesId);
    if (windows === undefined) {
      windows = new Map();
      bySeries.set(seriesId, windows);
    }
    const replaced = windows.get(startMs) !== undefined;
    windows.set(startMs, entry);
    this.built.delete(res);
    // A re-marked entry takes a later time, which may move the oldest: recompute then.
    if (replaced) this.oldest = null;
    else if (this.oldest !== null) this.oldest = this.oldest === undefined ? entry.addedMs : Math.min(this.oldest, entry.addedMs);
  }

  /** Forgets what was derived from the entries of `res` after some of them went. */
  private removed(res: Resolution): void {
    this.built.delete(res);
    this.oldest = null;
  }

  /** Marks source chunks as changed; returns the rows to persist (new generations). */
  add(sourceRes: Resolution, sourceStartMs: number, seriesIds: readonly number[], nowMs: number): DueRow[] {
    if (coarserOf(sourceRes) === undefined) return [];
    const rows: DueRow[] = [];
    for (const seriesId of seriesIds) {
      const gen = ++this.gen;
      this.put(sourceRes, seriesId, sourceStartMs, { gen, addedMs: nowMs });
      rows.push({ sourceRes, sourceStartMs, seriesId, gen });
    }
    return rows;
  }

  /** Forgets consumed rows, unless they were re-marked since (a newer generation stays due). */
  consume(rows: readonly DueRow[]): void {
    for (const row of rows) {
      const windows = this.bySource.get(row.sourceRes)?.get(row.seriesId);
      if (windows?.get(row.sourceStartMs)?.gen !== row.gen) continue;
      windows.delete(row.sourceStartMs);
      if (windows.size === 0) this.bySource.get(row.sourceRes)?.delete(row.seriesId);
      this.removed(row.sourceRes);
    }
  }

  /** Source chunk starts of a series that are due at `sourceRes`. */
  windowsOf(sourceRes: Resolution, seriesId: number): Iterable<number> {
    return this.bySource.get(sourceRes)?.get(seriesId)?.keys() ?? [];
  }

  /** True when nothing is due at any resolution. */
  isEmpty(): boolean {
    for (const bySeries of this.bySource.values()) if (bySeries.size > 0) return false;
    return true;
  }

  /** Clock time the oldest due entry was recorded, or undefined. */
  oldestAddedMs(): number | undefined {
    if (this.oldest !== null) return this.oldest;
    let oldest: number | undefined;
    for (const bySeries of this.bySource.values()) {
      for (const windows of bySeries.values()) {
        for (const e of windows.values()) if (oldest === undefined || e.addedMs < oldest) oldest = e.addedMs;
      }
    }
    this.oldest = oldest;
    return oldest;
  }

  /** Drops entries of source windows that start before `beforeMs` (their data expired). */
  forgetBefore(sourceRes: Resolution, beforeMs: number): void {
    const bySeries = this.bySource.get(sourceRes) as Map<number, Map<number, DueEntry>>;
    for (const [id, windows] of bySeries) {
      for (const start of windows.keys()) if (start < beforeMs) windows.delete(start);
      if (windows.size === 0) bySeries.delete(id);
    }
    this.removed(sourceRes);
  }

  /**
   * Groups the due work of the finest source resolution that has any into tasks: one target chunk
   * each, at most ROLLUP_TASK_SERIES_MAX series. Working finest-first means a coarse level is
   * recomputed once from finished finer data rather than once per finer change. Groups for which
   * `blocked` says yes (a task that keeps failing, backing off, or one whose source or target
   * partition is damaged) are left out, and a level left with
   * none gives way to the next: one failing chunk must not hold back every coarser level. Rolling a
   * coarse level up early is only extra work; the finer task marks it due again when it succeeds.
   */
  groups(blocked?: (targetRes: RollupResolution, targetStartMs: number, group: DueGroup) => boolean): DueGroup[] {
    for (const sourceRes of RESOLUTIONS) {
      const level = this.levelGroups(sourceRes);
      const open = blocked === undefined ? level : level.filter((g) => !blocked(g.targetRes, g.targetStartMs, g));
      if (open.length > 0) return open;
    }
    return [];
  }

  /** The groups of one source resolution, sorted by target start (built once per change). */
  private levelGroups(sourceRes: Resolution): DueGroup[] {
    const cached = this.built.get(sourceRes);
    if (cached !== undefined) return cached;
    const targetRes = coarserOf(sourceRes);
    const bySeries = this.bySource.get(sourceRes) as Map<number, Map<number, DueEntry>>;
    if (targetRes === undefined || bySeries.size === 0) return [];
    const targetWidth = LAYOUT[targetRes].chunkWidthMs;
    const byTarget = new Map<number, DueGroup[]>();
    for (const [id, windows] of bySeries) {
      const perTarget = new Map<number, number[]>();
      for (const start of windows.keys()) {
        const target = alignDown(start, targetWidth);
        const list = perTarget.get(target);
        if (list === undefined) perTarget.set(target, [start]);
        else list.push(start);
      }
      for (const [target, starts] of perTarget) {
        const groups = byTarget.get(target) ?? [];
        byTarget.set(target, groups);
        let group = groups[groups.length - 1];
        if (group === undefined || group.series.length >= ROLLUP_TASK_SERIES_MAX) {
          group = { sourceRes, targetRes, targetStartMs: target, series: [], rows: [] };
          groups.push(group);
        }
        starts.sort((a, b) => a - b);
        group.series.push({ id, sourceStartsMs: starts });
        for (const s of starts) group.rows.push({ sourceRes, sourceStartMs: s, seriesId: id, gen: (windows.get(s) as DueEntry).gen });
      }
    }
    const level = [...byTarget.values()].flat().sort((a, b) => a.targetStartMs - b.targetStartMs);
    this.built.set(sourceRes, level);
    return level;
  }
}
