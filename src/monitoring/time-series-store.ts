// Owns the SQL shape every monitoring time series pages by (changelogs, suppression logs, notification history, audits): a window, then (timestamp_ms, id) from the page's first entry on.
import type { SeriesQuery } from './time-series.js';

/**
 * The WHERE terms of one page, after the table's own scope terms: inside [from, to) and at or
 * after the first entry in (timestamp_ms, id) order. Every such table has an index on its scope
 * columns then (timestamp_ms, id), so a page is one index range. Its five parameters are
 * seriesParams(query), in this order.
 */
export const SERIES_PAGE_SQL = 'timestamp_ms >= ? AND timestamp_ms < ? AND (timestamp_ms > ? OR (timestamp_ms = ? AND id >= ?))';

/** The parameters of SERIES_PAGE_SQL for a query: without a first entry the page starts at the window's start. */
export function seriesParams(q: SeriesQuery): [number, number, number, number, string] {
  const after = q.after ?? { timestampMs: q.fromMs, id: '' };
  return [q.fromMs, q.toMs, after.timestampMs, after.timestampMs, after.id];
}
