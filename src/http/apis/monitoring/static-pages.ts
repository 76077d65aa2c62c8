// Owns paging lists held in memory (notification types, monitoring zones) by the same marker rules as stored lists.
import { pageOf, type Page, type PageRequest } from '../../../monitoring/paging.js';

/** The page of `items` (sorted by id) starting at the first id >= marker. */
export function pageOfSorted<T>(items: readonly T[], page: PageRequest, idOf: (item: T) => string): Page<T> {
  const marker = page.marker;
  const start = marker === undefined ? 0 : items.findIndex((item) => idOf(item) >= marker);
  if (start === -1) return { values: [], nextMarker: null };
  return pageOf(items.slice(start, start + page.limit + 1), page.limit, idOf);
}
