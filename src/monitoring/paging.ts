// Owns the page shapes of monitoring lists: a marker (the id a page starts at) and a size.

/** A page request: where the page starts (inclusive id) and how many items it holds. */
export interface PageRequest {
  /** Id of the first item of the page; absent for the first page. */
  readonly marker?: string;
  readonly limit: number;
}

/** A page: its items and the id of the first item of the next page (null on the last page). */
export interface Page<T> {
  readonly values: readonly T[];
  readonly nextMarker: string | null;
}

/** Splits rows fetched with `limit + 1` into a page and the next page's marker. */
export function pageOf<T>(rows: readonly T[], limit: number, idOf: (row: T) => string): Page<T> {
  if (rows.length <= limit) return { values: rows, nextMarker: null };
  return { values: rows.slice(0, limit), nextMarker: idOf(rows[limit] as T) };
}
