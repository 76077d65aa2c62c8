// Owns a backtest's window: the asked range with its defaults and limit, and which part of it the stored FULL data can replay.
import { StrataError } from '../../core/errors.js';
import { BACKTEST_DEFAULT_SPAN_MS, BACKTEST_RANGE_MS_MAX } from '../monitoring-limits.js';
import { resolveWindow, type TimeWindow } from '../time-series.js';

/** What a backtest may exceed: its range (ms), the observations or the engine series it would read. */
export type BacktestBound = 'range' | 'observations' | 'series';

/** A part of the asked range that was not replayed, and why. */
export interface UnreplayedPart {
  readonly fromMs: number;
  readonly toMs: number;
  readonly reason: string;
}

/** The split of an asked window into what is replayed and what is not. */
export interface ReplayedPart {
  /** The replayed range: [max(from, FULL retention cut), to); empty (from = to) when all of it is past the retention. */
  readonly replayed: TimeWindow;
  readonly unreplayed: readonly UnreplayedPart[];
}

/** Why the part before the FULL retention cut is not replayed. */
export const BEYOND_FULL_RETENTION = 'beyond FULL retention';

/** MONITORING_BACKTEST_TOO_LARGE: the backtest would pass `limit` of `bound`. */
export function backtestTooLarge(bound: BacktestBound, limit: number): StrataError {
  const what = bound === 'range' ? `a range of ${limit} ms` : `${limit} ${bound}`;
  return new StrataError('MONITORING_BACKTEST_TOO_LARGE', `An alarm backtest replays at most ${what}; narrow the range.`, { bound, limit });
}

/**
 * The window a backtest asks for: `to` defaults to just after now, `from` to BACKTEST_DEFAULT_SPAN_MS before
 * `to` (MONITORING_FIELD_INVALID naming `from` when it is not before `to`); a range longer than
 * BACKTEST_RANGE_MS_MAX is MONITORING_BACKTEST_TOO_LARGE.
 */
export function backtestWindow(request: { readonly fromMs?: number; readonly toMs?: number }, nowMs: number): TimeWindow {
  const window = resolveWindow(request, nowMs, BACKTEST_DEFAULT_SPAN_MS);
  if (window.toMs - window.fromMs > BACKTEST_RANGE_MS_MAX) throw backtestTooLarge('range', BACKTEST_RANGE_MS_MAX);
  return window;
}

/** The part of `window` the FULL data can replay: from `servedFromMs` (the planner's FULL retention cut) on; the rest is unreplayed. */
export function replayedPart(window: TimeWindow, servedFromMs: number): ReplayedPart {
  const fromMs = Math.min(window.toMs, Math.max(window.fromMs, servedFromMs));
  const unreplayed = fromMs > window.fromMs ? [{ fromMs: window.fromMs, toMs: fromMs, reason: BEYOND_FULL_RETENTION }] : [];
  return { replayed: { fromMs, toMs: window.toMs }, unreplayed };
}
