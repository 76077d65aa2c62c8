// Owns query planning without reading data: validation, resolution choice, expected points against QUERY_POINTS_MAX, retention cut.
import { assert } from '../core/assert.js';
import { StrataError, valueText } from '../core/errors.js';
import { QUERY_POINTS_MAX } from '../core/limits.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS, alignDown, alignUp, isoOrMs } from '../core/time.js';
import {
  FULL_ASSUMED_INTERVAL_MS,
  RESOLUTIONS,
  bucketWidthMs,
  coarserOf,
  isResolution,
  type Resolution,
  type RetentionTable,
} from '../model/resolution.js';
import type { QueryPlan, QueryRequest, SelectStat } from '../store-types.js';

/** The statistics a query may select, in the order the API documents them. */
export const SELECT_STATS: readonly SelectStat[] = ['average', 'variance', 'min', 'max'];

/** A request that passed validation: the range is sound and exactly what to plan is known. */
export interface ValidatedQuery {
  readonly tenant: string;
  readonly metric: string;
  readonly from: number;
  readonly to: number;
  /** Desired point count, or null when only a resolution was given. */
  readonly points: number | null;
  /** Resolution as given, or null when only points were given. */
  readonly resolution: Resolution | null;
  readonly select: readonly SelectStat[];
}

/** The one select name that is accepted but asks for nothing: numPoints is in every value anyway. */
const ALWAYS_RETURNED = 'numpoints';

/**
 * The statistics a select list asks for: entries may hold comma-separated names, case does not
 * matter, duplicates collapse (first mention keeps its place), nothing given means ['average'].
 * `numPoints` is accepted and adds nothing, since every value carries it (Blueflood clients send
 * it). An unknown or empty name is refused (QUERY_SELECT_INVALID) rather than ignored as Blueflood
 * does, so a typo cannot silently drop a column. This is the one select parser, for the embedded
 * and the HTTP path alike.
 */
export function parseSelect(select: unknown): SelectStat[] {
  if (select === undefined || select === null) return ['average'];
  const entries: readonly unknown[] = typeof select === 'string' ? [select] : Array.isArray(select) ? select : [select];
  const chosen: SelectStat[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      throw new StrataError('QUERY_SELECT_INVALID', `select entries must be strings; allowed: ${SELECT_STATS.join(', ')}`, {
        field: 'select',
      });
    }
    for (const piece of entry.split(',')) {
      const name = piece.trim().toLowerCase();
      if (name === ALWAYS_RETURNED) continue;
      const stat = SELECT_STATS.find((s) => s === name);
      if (stat === undefined) {
        throw new StrataError(
          'QUERY_SELECT_INVALID',
          `select ${JSON.stringify(piece.trim())} is not one of ${SELECT_STATS.join(', ')}`,
          { field: 'select', value: piece },
        );
      }
      if (!chosen.includes(stat)) chosen.push(stat);
    }
  }
  return chosen.length === 0 ? ['average'] : chosen;
}

function invalid(field: string, message: string): StrataError {
  return new StrataError('QUERY_INVALID', message, { field });
}

function requireName(value: unknown, field: 'tenant' | 'metric'): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(field, `${field} must be a non-empty string`);
  return value;
}

/**
 * Checks every field of a request and normalises it; throws a StrataError naming the broken rule.
 * A field that is present but malformed is refused even when the other of points and resolution
 * would have decided the plan, so bad input never passes unnoticed.
 */
export function validateQuery(request: QueryRequest): ValidatedQuery {
  if (typeof request !== 'object' || request === null) throw invalid('request', 'a query must be an object');
  const tenant = requireName(request.tenant, 'tenant');
  const metric = requireName(request.metric, 'metric');
  const { from, to } = request;
  for (const [field, bound] of [['from', from], ['to', to]] as const) {
    if (!Number.isSafeInteger(bound)) {
      throw new StrataError('QUERY_RANGE_INVALID', `${field} must be an integer number of milliseconds, got ${valueText(bound)}`, {
        field,
      });
    }
  }
  if (from >= to) {
    throw new StrataError('QUERY_RANGE_INVALID', `from (${from}) must be less than to (${to})`, { field: 'to', from, to });
  }
  const points = request.points ?? null;
  if (points !== null && (!Number.isSafeInteger(points) || points < 0)) {
    throw invalid('points', `points must be a non-negative integer, got ${valueText(points)}`);
  }
  const given = request.resolution ?? null;
  if (given !== null && !isResolution(given)) {
    throw new StrataError(
      'QUERY_RESOLUTION_INVALID',
      `resolution ${valueText(given)} is not valid; allowed values: ${RESOLUTIONS.join(', ')}`,
      { field: 'resolution', allowed: [...RESOLUTIONS] },
    );
  }
  if (points === null && given === null) {
    throw new StrataError('QUERY_POINTS_OR_RESOLUTION_REQUIRED', 'either points or resolution is required', {
      field: 'points',
    });
  }
  return { tenant, metric, from, to, points, resolution: given, select: parseSelect(request.select) };
}

/**
 * The resolution whose point count over `rangeMs` is nearest to `points`: Blueflood's LINEAR
 * selection, which reproduces the published 48 h table (3168+ FULL, 360 MIN5, 96 MIN20, 30 MIN60,
 * 7 MIN240, 0 MIN1440). Distances are truncated to integers and a tie keeps the finer resolution.
 */
export function resolutionForPoints(points: number, rangeMs: number): Resolution {
  let closest = Infinity;
  let chosen: Resolution = 'FULL';
  for (const resolution of RESOLUTIONS) {
    const diff = Math.trunc(Math.abs(points - rangeMs / bucketWidthMs(resolution)));
    if (diff >= closest) break;
    closest = diff;
    chosen = resolution;
  }
  return chosen;
}

/**
 * Points `resolution` yields over [fromMs, toMs): one per 30 s for FULL (rounded up), otherwise
 * the buckets whose start lies in [alignDown(fromMs, width), toMs).
 */
export function expectedPointsFor(resolution: Resolution, fromMs: number, toMs: number): number {
  if (resolution === 'FULL') return Math.ceil((toMs - fromMs) / FULL_ASSUMED_INTERVAL_MS);
  const widthMs = bucketWidthMs(resolution);
  return Math.floor((toMs - 1) / widthMs) - Math.floor(fromMs / widthMs) + 1;
}

/** Longest range one query may cover at `resolution` within QUERY_POINTS_MAX (rollup pieces aligned to their width). */
export function maxRangeMsFor(resolution: Resolution): number {
  return QUERY_POINTS_MAX * bucketWidthMs(resolution);
}

const DURATION_UNITS: readonly (readonly [number, string])[] = [
  [DAY_MS, 'day'],
  [HOUR_MS, 'h'],
  [MINUTE_MS, 'min'],
  [SECOND_MS, 's'],
];

/** "2 days", "12 h", "5 min": exact in the largest whole unit, else "about 1.3 days". */
function formatDuration(ms: number): string {
  for (const [sizeMs, unit] of DURATION_UNITS) {
    if (ms >= sizeMs && ms % sizeMs === 0) return `${ms / sizeMs} ${unit === 'day' && ms !== sizeMs ? 'days' : unit}`;
  }
  const fit = DURATION_UNITS.find(([sizeMs]) => ms >= sizeMs);
  if (fit === undefined) return `${ms} ms`;
  const [sizeMs, unit] = fit;
  return `about ${(ms / sizeMs).toFixed(1)} ${unit === 'day' ? 'days' : unit}`;
}

/** ISO text of an instant, or its ms where Date cannot represent it (beyond ±8.64e15 ms, yet a safe integer). */
function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** The message of QUERY_POINTS_OVER_LIMIT for an over-limit plan: the count, the limit, and how to fit. */
export function overLimitMessage(plan: QueryPlan): string {
  const alignment = plan.resolution === 'FULL' ? '' : `, each starting on a ${formatDuration(bucketWidthMs(plan.resolution))} boundary`;
  return (
    `${plan.resolution} would return ${plan.expectedPoints} points over this range, more than the limit of ` +
    `${QUERY_POINTS_MAX}; split the range into pieces of at most ${formatDuration(maxRangeMsFor(plan.resolution))}` +
    `${alignment}, or ask for a coarser resolution`
  );
}

function pointsReason(points: number, rangeMs: number, chosen: Resolution): string {
  const offers = RESOLUTIONS.map((r) => `${r} ${formatCount(rangeMs / bucketWidthMs(r))}`).join(', ');
  return (
    `${points} points asked over ${formatDuration(rangeMs)}: ${chosen} is nearest ` +
    `(${offers}; FULL counted at one point per 30 s, ties go to the finer)`
  );
}

/** Steps a points-chosen resolution coarser while `from` is past its retention (Blueflood GEOMETRIC's TTL rule). */
function coarsenForRetention(
  linear: Resolution,
  from: number,
  nowMs: number,
  retention: RetentionTable,
): { resolution: Resolution; reason: string | null } {
  let resolution = linear;
  const expired: Resolution[] = [];
  for (let next = coarserOf(resolution); next !== undefined && from < nowMs - retention[resolution]; next = coarserOf(next)) {
    expired.push(resolution);
    resolution = next;
  }
  if (expired.length === 0) return { resolution, reason: null };
  const keeps = expired.map((r) => `${r} keeps ${formatDuration(retention[r])}`).join(' and ');
  return { resolution, reason: `${keeps}; from is older, so ${resolution}` };
}

/**
 * Where the reader starts: for FULL the served start itself; for a rollup the first bucket start
 * that is both in the range (buckets are counted from the one holding `from`) and not expired (a
 * bucket is served only when its start is within the retention), at most `to`.
 */
function readStartMs(resolution: Resolution, from: number, to: number, cutoffMs: number): number {
  if (resolution === 'FULL') return Math.min(to, Math.max(from, cutoffMs));
  const widthMs = bucketWidthMs(resolution);
  return Math.min(to, Math.max(alignDown(from, widthMs), alignUp(cutoffMs, widthMs)));
}

/**
 * The plan for a request at `nowMs`: `points` picks the resolution (LINEAR, then stepped coarser
 * while `from` is past that resolution's retention) and wins over `resolution`, as in Blueflood;
 * `resolution` alone is used as given. servedFrom cuts off expired data (clamped to `to`: an empty
 * served range means an empty result). Throws a StrataError for invalid input; an over-limit plan
 * is returned, not thrown, so `plan()` can explain it.
 */
export function planQuery(request: QueryRequest, nowMs: number, retention: RetentionTable): QueryPlan {
  assert(Number.isSafeInteger(nowMs), `nowMs must be an integer, got ${nowMs}`);
  const query = validateQuery(request);
  const { from, to } = query;
  const rangeMs = to - from;
  const reasons: string[] = [];
  let resolution: Resolution;
  if (query.points !== null) {
    const linear = resolutionForPoints(query.points, rangeMs);
    reasons.push(pointsReason(query.points, rangeMs, linear));
    if (query.resolution !== null) reasons.push(`points wins over resolution ${query.resolution}`);
    const stepped = coarsenForRetention(linear, from, nowMs, retention);
    resolution = stepped.resolution;
    if (stepped.reason !== null) reasons.push(stepped.reason);
  } else {
    resolution = query.resolution as Resolution;
    reasons.push(`resolution ${resolution} as requested`);
  }

  const cutoffMs = nowMs - retention[resolution];
  const servedFrom = Math.min(to, Math.max(from, cutoffMs));
  if (servedFrom >= to) {
    reasons.push(`${resolution} keeps ${formatDuration(retention[resolution])}; the whole range has expired, so the result is empty`);
  } else if (servedFrom > from) {
    reasons.push(`${resolution} keeps ${formatDuration(retention[resolution])}; data before ${isoOrMs(servedFrom)} has expired and is not served`);
  }

  const expectedPoints = expectedPointsFor(resolution, from, to);
  const overLimit = expectedPoints > QUERY_POINTS_MAX;
  reasons.push(`${resolution} yields ${expectedPoints} points over the range`);
  const readFrom = readStartMs(resolution, from, to, cutoffMs);
  const plan: QueryPlan = { resolution, from, to, servedFrom, readFrom, expectedPoints, overLimit, select: query.select, reason: '' };
  if (overLimit) reasons.push(overLimitMessage(plan));
  return { ...plan, reason: `${reasons.join('. ')}.` };
}

/** The plan of a query that is to run: throws QUERY_POINTS_OVER_LIMIT when it would return too many points (every backend's one owner of that refusal). */
export function runnablePlan(request: QueryRequest, nowMs: number, retention: RetentionTable): QueryPlan {
  const plan = planQuery(request, nowMs, retention);
  if (plan.overLimit) {
    throw new StrataError('QUERY_POINTS_OVER_LIMIT', overLimitMessage(plan), { expectedPoints: plan.expectedPoints, resolution: plan.resolution });
  }
  return plan;
}
