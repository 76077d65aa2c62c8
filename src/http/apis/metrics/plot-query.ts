// Owns the plot parameters on the wire (from, to, points, resolution, select): their schema, their mapping onto a query, and the values' response schema.
import { QUERY_POINTS_MAX } from '../../../core/limits.js';
import { RESOLUTIONS } from '../../../model/resolution.js';
import type { QueryRequest } from '../../../store-types.js';

/** The plot parameters as the query-string schema leaves them: integers coerced, select always a list. */
export interface PlotQuery {
  readonly from: number;
  readonly to: number;
  readonly points?: number;
  readonly resolution?: string;
  readonly select?: readonly string[];
}

/**
 * The query string of a plot (metrics views, monitoring operation 6). It only describes the wire:
 * which parameters exist, that times and points are integers, that select may repeat. Every rule
 * about their values (from < to, points or resolution, the resolutions, the select names, the
 * 1440-point cap, retention) is the planner's, for the embedded and the HTTP path alike.
 */
export const PLOT_QUERY_SCHEMA = {
  type: 'object',
  required: ['from', 'to'],
  properties: {
    from: { type: 'integer', description: 'Range start, integer milliseconds since 1970-01-01 (inclusive).' },
    to: { type: 'integer', description: 'Range end, integer milliseconds since 1970-01-01 (exclusive); must be after from.' },
    points: {
      type: 'integer',
      description: `Desired number of points; the planner picks the resolution (3168+ FULL, 360 MIN5, 96 MIN20, 30 MIN60, 7 MIN240, 0 MIN1440 over 48 h). Wins over resolution. At most ${QUERY_POINTS_MAX} are returned.`,
    },
    resolution: { type: 'string', description: `One of ${RESOLUTIONS.join(', ')} (any case); used when points is absent.` },
    select: {
      type: 'array',
      items: { type: 'string' },
      description: 'Statistics besides numPoints: average (default), variance, min, max; repeated or comma-separated, any case. numPoints is accepted and always returned.',
    },
  },
} as const;

/** The query a plot's parameters ask for; the planner validates it. Resolution names are case-insensitive on the wire. */
export function plotRequest(tenant: string, metric: string, query: PlotQuery): QueryRequest {
  return {
    tenant,
    metric,
    from: query.from,
    to: query.to,
    ...(query.points !== undefined ? { points: query.points } : {}),
    ...(query.resolution !== undefined ? { resolution: query.resolution.toUpperCase() } : {}),
    ...(query.select !== undefined ? { select: query.select } : {}),
  };
}

const nullableNumber = { type: ['number', 'null'] } as const;

/** One value of a plot: spec 2.4 (average, variance, min, max present only when selected; value for a string point). */
export const PLOT_VALUE_SCHEMA = {
  type: 'object',
  required: ['timestamp', 'numPoints'],
  properties: {
    timestamp: { type: 'integer', description: 'Bucket start (or the point time), integer ms.' },
    numPoints: { type: 'integer', description: 'Points in the bucket.' },
    average: nullableNumber,
    variance: nullableNumber,
    min: nullableNumber,
    max: nullableNumber,
    value: { type: 'string', description: 'The value of a string point (its statistics are null).' },
  },
} as const;

/** The metadata of a plot: plots are never paged (the 1440-point cap splits them instead). */
export const PLOT_METADATA_SCHEMA = {
  type: 'object',
  required: ['count', 'limit', 'marker', 'next_marker', 'next_href'],
  properties: {
    count: { type: 'integer' },
    limit: { type: 'null' },
    marker: { type: 'null' },
    next_marker: { type: 'null' },
    next_href: { type: 'null' },
  },
} as const;

/** The paging metadata of a plot (never paged). */
export function plotMetadata(count: number): { count: number; limit: null; marker: null; next_marker: null; next_href: null } {
  return { count, limit: null, marker: null, next_marker: null, next_href: null };
}
