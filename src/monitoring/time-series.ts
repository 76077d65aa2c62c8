// Owns the window rule of the monitoring API's time-series collections (changelogs, suppression logs, notification history, audits): to defaults to just after now, from to a default span before it.
import { fieldError } from './monitoring-errors.js';
import type { PageRequest } from './paging.js';

/** A time-series read: an optional window [fromMs, toMs) and the page (marker: the id of the first entry). */
export interface TimeSeriesRequest extends PageRequest {
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** A resolved window, half-open [fromMs, toMs). */
export interface TimeWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * The window a request covers: `to` defaults to just after `nowMs` (so an entry written in the
 * request's own millisecond is in it: the window is half-open), `from` to `defaultSpanMs` before
 * `to`; MONITORING_FIELD_INVALID naming `from` when the window is empty or reversed.
 */
export function resolveWindow(request: Pick<TimeSeriesRequest, 'fromMs' | 'toMs'>, nowMs: number, defaultSpanMs: number): TimeWindow {
  const toMs = request.toMs ?? nowMs + 1;
  const fromMs = request.fromMs ?? toMs - defaultSpanMs;
  if (fromMs >= toMs) throw fieldError('from', "must be before 'to'");
  return { fromMs, toMs };
}
