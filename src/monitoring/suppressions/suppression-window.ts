// Owns when one suppression is active and whether it is still to come: its window, intersected with the occurrences of its recurrence when it has one.
import type { CompiledRecurrence } from './suppression-recurrence.js';

/** A suppression's time rule: [startMs, endMs), and the recurrence inside it if any. */
export interface SuppressionWindow {
  readonly startMs: number;
  readonly endMs: number;
  readonly recurrence: CompiledRecurrence | null;
}

/**
 * Whether the suppression is active at `t`. Without a recurrence: startMs <= t < endMs. With one:
 * `t` also lies in [occ, occ + duration) of an occurrence occ of the recurrence: the suppression
 * covers the intersection of [startMs, endMs) with the occurrences, so a daily 02:00-06:00 window
 * created at 03:00 covers 03:00-06:00 at once, and setting end_time to now ends it at once. The
 * occurrences all last the same duration, so only the latest one at or before `t` can cover `t`:
 * one bounded lookup answers.
 */
export function windowActiveAt(window: SuppressionWindow, t: number): boolean {
  if (t < window.startMs || t >= window.endMs) return false;
  const recurrence = window.recurrence;
  if (recurrence === null) return true;
  const occurrence = recurrence.latestAtOrBefore(t);
  return occurrence !== null && t < occurrence + recurrence.durationMs;
}

/**
 * Whether the suppression will start covering some time after `nowMs`: a window that has not
 * started (and covers something), or a recurrence whose next coverage inside [startMs, endMs)
 * begins after `nowMs` (an occurrence already running at startMs counts when startMs is still to
 * come). A recurring suppression can be active and scheduled at once.
 */
export function windowScheduledAfter(window: SuppressionWindow, nowMs: number): boolean {
  if (nowMs < window.startMs && windowActiveAt(window, window.startMs)) return true;
  const recurrence = window.recurrence;
  if (recurrence === null) return false;
  const from = Math.max(window.startMs, nowMs + 1);
  if (from >= window.endMs) return false;
  const occurrence = recurrence.earliestAtOrAfter(from);
  return occurrence !== null && occurrence < window.endMs;
}

/** Whether the suppression covers any time in [startMs, endMs) (a create, or an update before the start, must). */
export function windowHasOccurrence(window: SuppressionWindow): boolean {
  if (windowActiveAt(window, window.startMs)) return true;
  if (window.recurrence === null) return false;
  const occurrence = window.recurrence.earliestAtOrAfter(window.startMs);
  return occurrence !== null && occurrence < window.endMs;
}

/**
 * A window with the last answers remembered: a page of records asks every suppression at the
 * same `nowMs`, and the alarms of one check change at the same timestamp, so most asks repeat.
 */
export class MemoizedWindow {
  private activeT = Number.NaN;
  private active = false;
  private scheduledT = Number.NaN;
  private scheduled = false;

  constructor(readonly window: SuppressionWindow) {}

  /** windowActiveAt, remembered for the last `t`. */
  activeAt(t: number): boolean {
    if (t !== this.activeT) {
      this.active = windowActiveAt(this.window, t);
      this.activeT = t;
    }
    return this.active;
  }

  /** windowScheduledAfter, remembered for the last `nowMs`. */
  scheduledAfter(nowMs: number): boolean {
    if (nowMs !== this.scheduledT) {
      this.scheduled = windowScheduledAfter(this.window, nowMs);
      this.scheduledT = nowMs;
    }
    return this.scheduled;
  }
}
