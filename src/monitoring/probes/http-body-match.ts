// Owns the body_match metrics of a remote.http result: details.body and details.body_matches run over the body read.
import { isStrataError } from '../../core/errors.js';
import type { ResultMetric } from '../check-result.js';
import type { CheckDetails } from '../check-types.js';
import { fieldError } from '../monitoring-errors.js';
import { HTTP_CHECK_BODY_MATCH_LENGTH_MAX } from '../monitoring-limits.js';
import { compileSafePattern, execSafe } from '../safe-pattern.js';

/** The patterns a remote.http check's details ask for, by metric name (`body_match`, `body_match_<key>`). */
export function bodyPatterns(details: CheckDetails): ReadonlyMap<string, string> {
  const patterns = new Map<string, string>();
  const body = details['body'];
  if (typeof body === 'string') patterns.set('body_match', body);
  const named = details['body_matches'];
  if (typeof named === 'object' && named !== null) {
    for (const [key, source] of Object.entries(named)) if (typeof source === 'string') patterns.set(`body_match_${key}`, source);
  }
  return patterns;
}

/** The body key a pattern's metric comes from: `details.body` or `details.body_matches.<key>`. */
function detailKey(metric: string): string {
  return metric === 'body_match' ? 'details.body' : `details.body_matches.${metric.slice('body_match_'.length)}`;
}

/**
 * Checks the body and body_matches patterns of remote.http details when a check is saved: one
 * compileSafePattern refuses is MONITORING_FIELD_INVALID naming its key (a 400), so every stored
 * pattern is one the probe can run on any body without holding the event loop.
 */
export function checkBodyPatterns(details: CheckDetails): void {
  for (const [metric, source] of bodyPatterns(details)) {
    try {
      compileSafePattern(source);
    } catch (error) {
      if (isStrataError(error) && error.code === 'MONITORING_PATTERN_UNSAFE') throw fieldError(detailKey(metric), error.message);
      throw error;
    }
  }
}

/** The text `source` first matches in `text`, cut to HTTP_CHECK_BODY_MATCH_LENGTH_MAX characters, or '' when none. */
function firstMatch(source: string, text: string): string {
  let pattern: RegExp;
  try {
    pattern = compileSafePattern(source);
  } catch {
    // A pattern refused now (stored before patterns were checked, or under older limits) matches nothing.
    return '';
  }
  const match = execSafe(pattern, text);
  return match === null ? '' : match[0].slice(0, HTTP_CHECK_BODY_MATCH_LENGTH_MAX);
}

/**
 * The body_match metrics (type 's', unit 'unknown') of `body` (decoded as UTF-8) for the check's
 * patterns: the text each first matches, or '' when it does not match; empty when the check has
 * none. Like every user pattern, each runs on V8's linear-time engine over the part of the body
 * execSafe lets it see (the first PATTERN_SUBJECT_LENGTH_MAX characters, fewer for heavy
 * patterns), so no pattern and body can hold the event loop.
 */
export function bodyMatchMetrics(details: CheckDetails, body: Buffer): Record<string, ResultMetric> {
  const patterns = bodyPatterns(details);
  const metrics: Record<string, ResultMetric> = {};
  if (patterns.size === 0) return metrics;
  const text = body.toString('utf8');
  for (const [name, source] of patterns) metrics[name] = { type: 's', data: firstMatch(source, text), unit: 'unknown' };
  return metrics;
}
