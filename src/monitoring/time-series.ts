// Owns the window rule of the monitoring API's time-series collections (changelogs, suppression logs, notification history, audits): to defaults to just after now, from to a default span before it.
import { fieldError } from './monitoring-errors.js';
import { pageOf, type Page, type PageRequest } from './paging.js';

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

/** Where an entry stands in a time series: its (timestamp, id) order key. */
export interface SeriesPosition {
  readonly timestampMs: number;
  readonly id: string;
}

/** What a time-series store reads for one page: the window, the page's first entry (absent: the window's start) and a row count. */
export interface SeriesQuery extends TimeWindow {
  readonly after?: SeriesPosition;
  readonly limit: number;
}

/**
 * The rows one page request reads: `limit + 1` from the marker's entry on (found by `entryOf`,
 * which answers undefined for an id not in the series' scope), or from the window's start without a
 * marker; undefined when the marker names no entry, whose page is empty.
 */
export function seriesRows<T extends SeriesPosition>(
  request: PageRequest,
  window: TimeWindow,
  entryOf: (id: string) => SeriesPosition | undefined,
  read: (query: SeriesQuery) => T[],
): T[] | undefined {
  let after: SeriesPosition | undefined;
  if (request.marker !== undefined) {
    const start = entryOf(request.marker);
    if (start === undefined) return undefined;
    after = { timestampMs: start.timestampMs, id: start.id };
  }
  return read({ ...window, limit: request.limit + 1, ...(after !== undefined ? { after } : {}) });
}

/** One page of a time series (seriesRows, split by pageOf); a marker naming no entry gives an empty page. */
export function seriesPage<T extends SeriesPosition>(
  request: PageRequest,
  window: TimeWindow,
  entryOf: (id: string) => SeriesPosition | undefined,
  read: (query: SeriesQuery) => T[],
): Page<T> {
  const rows = seriesRows(request, window, entryOf, read);
  return rows === undefined ? { values: [], nextMarker: null } : pageOf(rows, request.limit, (row) => row.id);
}
