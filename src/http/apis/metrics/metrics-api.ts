// Owns the metrics query API (cloudMetrics): one metric's view, many metrics' views, metric search.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import type { QueryResult } from '../../../store-types.js';
import { httpError } from '../../http-errors.js';
import { VIEWS_BODY_BYTES_MAX, VIEWS_METRICS_MAX } from '../../http-limits.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { parsePlotParams, type PlotParams, type QueryString } from './plot-params.js';
import { searchMetrics } from './metric-search.js';

const READ_RULES: RouteRules = { access: 'read', work: 'query' };
// Reading many views is a read, whatever the method: observers may do it.
const MULTI_READ_RULES: RouteRules = { access: 'read', bodyTypes: [JSON_TYPE], work: 'query' };
/** The unit Blueflood reports when none was ever written. */
const UNKNOWN_UNIT = 'unknown';
/** The paging metadata of a view: views are never paged (the 1440-point cap splits them instead). */
const VIEW_METADATA = { limit: null, marker: null, next_marker: null, next_href: null } as const;

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

function query(context: ServerContext, tenant: string, metric: string, params: PlotParams): Promise<QueryResult> {
  return context.store.query({ tenant, metric, ...params });
}

async function viewOne(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tenant, metricName } = request.params as { tenant: string; metricName: string };
  const params = parsePlotParams(request.query as QueryString);
  const result = await context.admission.run('query', () => query(context, tenant, metricName, params));
  return sendJson(reply, 200, {
    unit: result.unit ?? UNKNOWN_UNIT,
    values: result.values,
    metadata: { count: result.values.length, ...VIEW_METADATA },
  });
}

/** The metric names of a multi-view body: a JSON array of 1 to VIEWS_METRICS_MAX non-empty strings. */
export function parseMetricNames(raw: unknown): string[] {
  let names: unknown;
  try {
    names = Buffer.isBuffer(raw) ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    names = undefined;
  }
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === 'string' && name !== '')) {
    throw httpError('HTTP_BODY_INVALID', 'The body must be a JSON array of metric names, e.g. ["a.b","c.d"].');
  }
  if (names.length > VIEWS_METRICS_MAX) {
    throw httpError('QUERY_METRICS_TOO_MANY', `Too many metrics fetch in a single call. Max limit is ${VIEWS_METRICS_MAX}.`, {
      metrics: names.length,
      limit: VIEWS_METRICS_MAX,
    });
  }
  return names as string[];
}

async function viewMany(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tenant } = request.params as { tenant: string };
  const params = parsePlotParams(request.query as QueryString);
  const names = parseMetricNames(request.body);
  // One admission slot for the whole batch: it is one request's work.
  const results = await context.admission.run('query', () => Promise.all(names.map((name) => query(context, tenant, name, params))));
  const metrics = names.map((metric, i) => {
    const result = results[i] as QueryResult;
    return { metric, unit: result.unit ?? UNKNOWN_UNIT, type: 'number', data: result.values };
  });
  return sendJson(reply, 200, { metrics });
}

async function search(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tenant } = request.params as { tenant: string };
  const glob = (request.query as QueryString)['query'];
  if (typeof glob !== 'string' || glob === '') throw new StrataError('QUERY_INVALID', "parameter 'query' (a glob) is required", { parameter: 'query' });
  const found = await context.admission.run('query', async () => searchMetrics(context.store, tenant, glob));
  return sendJson(reply, 200, found.map((metric) => (metric.unit === null ? { metric: metric.name } : { metric: metric.name, unit: metric.unit })));
}

/** Registers the views and search routes under /metrics/v2.0/:tenant. */
export function registerViewsRoutes(app: FastifyInstance, context: ServerContext): void {
  defineResource(app, '/metrics/v2.0/:tenant/views/:metricName', {
    GET: { rules: READ_RULES, handler: (request, reply) => viewOne(context, request, reply) },
  });
  defineResource(app, '/metrics/v2.0/:tenant/views', {
    POST: { rules: MULTI_READ_RULES, bodyLimit: VIEWS_BODY_BYTES_MAX, handler: (request, reply) => viewMany(context, request, reply) },
  });
  defineResource(app, '/metrics/v2.0/:tenant/metrics/search', {
    GET: { rules: READ_RULES, handler: (request, reply) => search(context, request, reply) },
  });
}
