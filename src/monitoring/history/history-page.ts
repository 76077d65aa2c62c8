// Owns the row budget of a history list page: records are taken in order while their worst-case reads fit, so one page reads a bounded number of rows.
import type { Page } from '../paging.js';

/**
 * Cuts `rows` (fetched with `limit + 1`) into a page: the first rows in order, at most `limit`,
 * while the sum of their `cost` stays within `budget`; the first row is always taken (a single
 * row's cost is bounded by its caller). `nextMarker` names the first row left out, or is null
 * when every row was taken. Walking pages by marker thus yields every row exactly once.
 */
export function budgetedPage<T>(rows: readonly T[], limit: number, budget: number, cost: (row: T) => number, idOf: (row: T) => string): Page<T> {
  let taken = 0;
  let spent = 0;
  while (taken < rows.length && taken < limit) {
    const next = cost(rows[taken] as T);
    if (taken > 0 && spent + next > budget) break;
    spent += next;
    taken += 1;
  }
  const first = rows[taken];
  return { values: rows.slice(0, taken), nextMarker: first === undefined ? null : idOf(first) };
}
