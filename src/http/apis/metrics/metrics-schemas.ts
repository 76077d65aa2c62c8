// Owns the JSON schemas of the metrics query API's URLs, bodies and answers (the plot parameters are plot-query.ts's).
import { TENANT_PARAM } from '../../common-schemas.js';
import { SEARCH_GLOB_LENGTH_MAX, VIEWS_METRICS_MAX } from '../../http-limits.js';
import { PLOT_METADATA_SCHEMA, PLOT_VALUE_SCHEMA } from './plot-query.js';


/** URLs naming one metric of a tenant (percent-encoded in the path). */
export const METRIC_PARAMS_SCHEMA = {
  type: 'object',
  required: ['tenant', 'metricName'],
  properties: { tenant: TENANT_PARAM, metricName: { type: 'string', minLength: 1, description: 'The metric name, percent-encoded.' } },
} as const;

/** The body of a multi-metric view: the metric names (Blueflood's batch query). */
export const METRIC_NAMES_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: VIEWS_METRICS_MAX,
  items: { type: 'string', minLength: 1 },
  description: `1 to ${VIEWS_METRICS_MAX} metric names.`,
  examples: [['web01.cpu', 'web01.mem']],
} as const;

/** A search's glob. */
export const SEARCH_QUERY_SCHEMA = {
  type: 'object',
  required: ['query'],
  properties: { query: { type: 'string', minLength: 1, maxLength: SEARCH_GLOB_LENGTH_MAX, description: 'A glob over metric names: * any run of characters, ? one character.' } },
} as const;

/** One metric's view: its unit, its values and the (never paged) metadata. */
export const VIEW_RESPONSE = {
  200: {
    type: 'object',
    required: ['unit', 'values', 'metadata'],
    properties: { unit: { type: 'string' }, values: { type: 'array', items: PLOT_VALUE_SCHEMA }, metadata: PLOT_METADATA_SCHEMA },
  },
} as const;

/** Many metrics' views, Blueflood's shape. */
export const VIEWS_RESPONSE = {
  200: {
    type: 'object',
    required: ['metrics'],
    properties: {
      metrics: {
        type: 'array',
        items: {
          type: 'object',
          required: ['metric', 'unit', 'type', 'data'],
          properties: { metric: { type: 'string' }, unit: { type: 'string' }, type: { type: 'string' }, data: { type: 'array', items: PLOT_VALUE_SCHEMA } },
        },
      },
    },
  },
} as const;

/** Search results: the matching names, with their unit when one was written. */
export const SEARCH_RESPONSE = {
  200: {
    type: 'array',
    items: { type: 'object', required: ['metric'], properties: { metric: { type: 'string' }, unit: { type: 'string' } } },
  },
} as const;

/** The planner's decision for a view, made without reading data: what a console shows beside a plot. */
export const PLAN_RESPONSE = {
  200: {
    type: 'object',
    required: ['resolution', 'from', 'to', 'servedFrom', 'readFrom', 'expectedPoints', 'overLimit', 'pointsMax', 'bucketWidthMs', 'reason'],
    properties: {
      resolution: { type: 'string', description: 'The resolution the planner picked (or was given).' },
      from: { type: 'integer' },
      to: { type: 'integer' },
      servedFrom: { type: 'integer', description: 'Start of the part of the range that is served; later than from when older data has expired (the retention cut).' },
      readFrom: { type: 'integer', description: 'Start of what is read: servedFrom for FULL, else the first unexpired bucket start in the range.' },
      expectedPoints: { type: 'integer', description: 'Points the resolution yields over the range (FULL counts one per 30 s).' },
      overLimit: { type: 'boolean', description: 'True when expectedPoints exceeds pointsMax: the view would be refused (QUERY_POINTS_OVER_LIMIT).' },
      pointsMax: { type: 'integer', description: 'Most points one view returns.' },
      bucketWidthMs: { type: 'integer', description: 'Width of one value of the resolution (FULL: the 30 s it is counted at).' },
      reason: { type: 'string', description: "The planner's account of its decision, in plain language." },
    },
  },
} as const;
