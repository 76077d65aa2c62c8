// Owns the head: recent points per FULL chunk window and series, held in memory until sealed.
import { alignDown } from '../core/time.js';
import { LAYOUT } from '../model/resolution.js';
import type { BatchColumns } from '../storage/wal-record.js';
import { DoubleSlabs } from './double-slabs.js';
import { HeadBuffer } from './head-buffer.js';

const CHUNK_WIDTH_MS = LAYOUT.FULL.chunkWidthMs;

/** The head's points of one FULL chunk window. */
export class HeadWindow {
  readonly startMs: number;
  readonly series = new Map<number, HeadBuffer>();
  points = 0;
  /** Clock time of the last write into this window. */
  lastWriteMs = 0;
  /** WAL seqs with points in this window, ascending, without repeats. */
  readonly seqs: number[] = [];

  constructor(startMs: number) {
    this.startMs = startMs;
  }

  /** End of the window (exclusive). */
  get endMs(): number {
    return this.startMs + CHUNK_WIDTH_MS;
  }
}

/** Decides whether a replayed point of window `windowStartMs` from record `seq` is already sealed. */
export type SealedCheck = (windowStartMs: number, seq: number) => boolean;

/** The head: windows by start time. */
export class Head {
  readonly windows = new Map<number, HeadWindow>();
  points = 0;
  /** Where the head's buffers take their columns. */
  private readonly slabs = new DoubleSlabs();
  /** Points each series had in its last sealed window, by series id: the next buffer's size. */
  private capacityHints = new Uint32Array(1024);
  /**
   * The buffer a series last wrote to and its window's start, by series id: a batch of one window
   * finds each buffer with two array reads instead of a map lookup. Cleared when a window is taken.
   */
  private lastBuffers: (HeadBuffer | undefined)[] = [];
  private lastStarts = new Float64Array(1024).fill(NaN);

  /**
   * Applies a batch written (or replayed) as WAL record `seq`. Points of windows for which
   * `isSealed` says yes are skipped (replay after a seal). Returns how many points were applied and
   * how many windows now hold points of record `seq` (the record stays live until all are sealed).
   */
  apply(batch: BatchColumns, seq: number, nowMs: number, isSealed?: SealedCheck): { points: number; windows: number } {
    const { length, seriesIds, timestampsMs, values, strings } = batch;
    let window: HeadWindow | undefined;
    let windowStart = NaN;
    let skipWindow = false;
    let applied = 0;
    let windows = 0;
    for (let i = 0; i < length; i++) {
      const t = timestampsMs[i] as number;
      if (!(t >= windowStart && t < windowStart + CHUNK_WIDTH_MS)) {
        windowStart = alignDown(t, CHUNK_WIDTH_MS);
        skipWindow = isSealed !== undefined && isSealed(windowStart, seq);
        window = skipWindow ? undefined : this.windowAt(windowStart, nowMs);
        if (window !== undefined && window.seqs[window.seqs.length - 1] !== seq) {
          window.seqs.push(seq);
          windows++;
        }
      }
      if (window === undefined) continue;
      const id = seriesIds[i] as number;
      let buffer = this.lastStarts[id] === windowStart ? this.lastBuffers[id] : undefined;
      if (buffer === undefined) buffer = this.bufferOf(window, id);
      buffer.append(t, values[i] as number, strings === null ? undefined : strings.get(i));
      window.points++;
      applied++;
    }
    this.points += applied;
    return { points: applied, windows };
  }

  /** The series' buffer in a window, created when missing, and remembered as its last. */
  private bufferOf(window: HeadWindow, id: number): HeadBuffer {
    let buffer = window.series.get(id);
    if (buffer === undefined) {
      buffer = new HeadBuffer(this.capacityHint(id, window.startMs), this.slabs);
      window.series.set(id, buffer);
    }
    if (id >= this.lastStarts.length) {
      const grown = new Float64Array(Math.max(id + 1, this.lastStarts.length * 2)).fill(NaN);
      grown.set(this.lastStarts);
      this.lastStarts = grown;
    }
    this.lastStarts[id] = window.startMs;
    this.lastBuffers[id] = buffer;
    return buffer;
  }

  /** A new buffer's size: the series' size in the window before, or at its last seal. */
  private capacityHint(id: number, windowStartMs: number): number | undefined {
    const before = this.windows.get(windowStartMs - CHUNK_WIDTH_MS)?.series.get(id)?.length;
    return before ?? (id < this.capacityHints.length ? this.capacityHints[id] : undefined);
  }

  private windowAt(startMs: number, nowMs: number): HeadWindow {
    let window = this.windows.get(startMs);
    if (window === undefined) {
      window = new HeadWindow(startMs);
      this.windows.set(startMs, window);
    }
    window.lastWriteMs = nowMs;
    return window;
  }

  /** Removes and returns a window and lowers the point count (it is sealed in one go). */
  take(startMs: number): HeadWindow | undefined {
    const window = this.freeze(startMs);
    if (window !== undefined) this.release(window);
    return window;
  }

  /**
   * Takes a window out of the head for a seal in steps, in O(series): writes arriving afterwards
   * for its time range start a fresh window of the same start. Its points stay in `points` until
   * `release` (sealed) or `thaw` (put back), so the head's memory bound still sees them.
   */
  freeze(startMs: number): HeadWindow | undefined {
    const window = this.windows.get(startMs);
    if (window === undefined) return undefined;
    this.windows.delete(startMs);
    for (const [id, buffer] of window.series) {
      if (id >= this.capacityHints.length) {
        const grown = new Uint32Array(Math.max(id + 1, this.capacityHints.length * 2));
        grown.set(this.capacityHints);
        this.capacityHints = grown;
      }
      this.capacityHints[id] = buffer.length;
      if (this.lastStarts[id] === startMs) {
        this.lastStarts[id] = NaN;
        this.lastBuffers[id] = undefined;
      }
    }
    return window;
  }

  /** Forgets a frozen window's points: its seal is committed. */
  release(window: HeadWindow): void {
    this.points -= window.points;
  }

  /**
   * Puts a frozen window back (its seal was abandoned). A fresh window of the same start is merged
   * into it after the frozen points, so its newer writes win at an equal timestamp (a buffer keeps
   * the last write). Both windows' points are already counted; their seqs are disjoint and the
   * fresh ones later, so the merged list stays ascending and each record still counts this window once.
   */
  thaw(frozen: HeadWindow): void {
    const fresh = this.windows.get(frozen.startMs);
    this.windows.set(frozen.startMs, frozen);
    if (fresh === undefined) return;
    for (const [id, buffer] of fresh.series) {
      const into = frozen.series.get(id);
      if (into === undefined) {
        frozen.series.set(id, buffer);
        continue;
      }
      for (let i = 0; i < buffer.length; i++) into.append(buffer.timestampsMs[i] as number, buffer.values[i] as number, buffer.strings?.get(i));
      if (this.lastBuffers[id] === buffer) this.lastBuffers[id] = into;
    }
    frozen.points += fresh.points;
    frozen.lastWriteMs = Math.max(frozen.lastWriteMs, fresh.lastWriteMs);
    for (const seq of fresh.seqs) frozen.seqs.push(seq);
  }

  /** Window starts in the head, ascending. */
  starts(): number[] {
    return [...this.windows.keys()].sort((a, b) => a - b);
  }
}
