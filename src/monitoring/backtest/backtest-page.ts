// Owns paging a backtest's changes: the marker is a change's ordinal (the replay is deterministic), the page starts at it.
import { fieldError } from '../monitoring-errors.js';
import type { Page, PageRequest } from '../paging.js';

/** Longest ordinal marker, in digits (BACKTEST_OBSERVATIONS_MAX has far fewer). */
const MARKER_DIGITS_MAX = 9;
const ORDINAL = new RegExp(`^(?:0|[1-9][0-9]{0,${MARKER_DIGITS_MAX - 1}})$`);

/** The ordinal a marker names: 0 without one; MONITORING_FIELD_INVALID naming `marker` for anything but a decimal ordinal. */
export function markerOrdinal(marker: string | undefined): number {
  if (marker === undefined) return 0;
  if (!ORDINAL.test(marker)) throw fieldError('marker', 'must be the next_marker of a page before: the ordinal of a change');
  return Number(marker);
}

/**
 * The page of `changes` a request asks for: `limit` changes from the marker's ordinal on; the next
 * marker is the ordinal after the page, null on the last page. A marker past the end is an empty
 * last page.
 */
export function pageOfChanges<T>(changes: readonly T[], page: PageRequest): Page<T> {
  const start = markerOrdinal(page.marker);
  const end = start + page.limit;
  return { values: changes.slice(start, end), nextMarker: end < changes.length ? String(end) : null };
}
