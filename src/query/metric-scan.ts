// Owns the paging rule of listMetrics: scan a tenant's names in order from a marker, stop at a full page or at the scan budget.
import { StrataError } from '../core/errors.js';
import { METRICS_PAGE_DEFAULT, METRICS_PAGE_MAX } from '../core/limits.js';
import type { GlobMatcher } from '../model/glob.js';
import type { SortedNameView } from '../storage/sorted-names.js';

/** What one scan looks for. */
export interface MetricScanRequest {
  /** Names must match it; undefined lists every name. */
  readonly matcher: GlobMatcher | undefined;
  /** The scan starts strictly after this name; undefined starts at the first. */
  readonly after: string | undefined;
  /** Most names the page holds (at least 1). */
  readonly limit: number;
  /** Most names tested against the matcher (at least 1), so one call's work is bounded whatever the glob. */
  readonly scanNamesMax: number;
}

/** One page of a scan. */
export interface MetricScanPage {
  /** Matching names, in order, at most `limit`. */
  readonly names: readonly string[];
  /**
   * Where the next page starts (exclusive), null when no name after the page can match. When the
   * page is full it is the page's last name; when the scan budget ran out first it is the last
   * name tested, and the page may be short or even empty.
   */
  readonly nextAfter: string | null;
}

/**
 * One page of the names in `names` that match, after `after`. The scan starts at the later of
 * `after` and the glob's literal prefix and ends where names stop starting with that prefix (they
 * are sorted, so no later one can match); a glob like `web.*` thus touches only its own range.
 */
export function scanMetricNames(names: SortedNameView, request: MetricScanRequest): MetricScanPage {
  const { matcher, after, limit, scanNamesMax } = request;
  const prefix = matcher?.literalPrefix ?? '';
  const fromPrefix = after === undefined || after < prefix;
  const found: string[] = [];
  let tested = 0;
  let lastTested: string | null = null;
  for (const name of names.namesFrom(fromPrefix ? prefix : after, fromPrefix)) {
    if (!name.startsWith(prefix)) break;
    // Checked only once another name is waiting, so a scan that reaches the end says so (null).
    if (tested === scanNamesMax) return { names: found, nextAfter: lastTested };
    tested++;
    lastTested = name;
    if (matcher !== undefined && !matcher.matches(name)) continue;
    if (found.length === limit) return { names: found, nextAfter: found[limit - 1] as string };
    found.push(name);
  }
  return { names: found, nextAfter: null };
}

/** The page size a listMetrics call asked for (default METRICS_PAGE_DEFAULT); throws LIST_LIMIT_INVALID outside 1..METRICS_PAGE_MAX. Every backend's one owner of that rule. */
export function metricsPageLimit(limit: number | undefined): number {
  const value = limit ?? METRICS_PAGE_DEFAULT;
  if (!Number.isSafeInteger(value) || value < 1 || value > METRICS_PAGE_MAX) {
    throw new StrataError('LIST_LIMIT_INVALID', `limit must be an integer from 1 to ${METRICS_PAGE_MAX}`);
  }
  return value;
}
