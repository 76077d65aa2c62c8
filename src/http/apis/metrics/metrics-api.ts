// Owns the metrics query API (cloudMetrics) under /metrics/v2.0: one metric's view, many metrics' views, metric search.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QUERY_POINTS_MAX } from '../../../core/limits.js';
import { bucketWidthMs } from '../../../model/resolution.js';
import type { QueryResult } from '../../../store-types.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { METRICS_ERROR_SCHEMA } from '../../error-schemas.js';
import { httpError } from '../../http-errors.js';
import { VIEWS_BODY_BYTES_MAX, VIEWS_METRICS_MAX } from '../../http-limits.js';
import { jsonError, sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { bodyError, parameterError } from '../../validation-failure.js';
import { searchMetrics } from './metric-search.js';
import { metricsFaultBody } from './metrics-fault.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { METRIC_NAMES_SCHEMA, METRIC_PARAMS_SCHEMA, PLAN_RESPONSE, SEARCH_QUERY_SCHEMA, SEARCH_RESPONSE, VIEW_RESPONSE, VIEWS_RESPONSE } from './metrics-schemas.js';
import { plotMetadata, plotRequest, PLOT_QUERY_SCHEMA, type PlotQuery } from './plot-query.js';

const READ_RULES: RouteRules = { access: 'read', work: 'query' };
/** A plan reads no data: no admission queue. */
const PLAN_RULES: RouteRules = { access: 'read' };
/** The unit Blueflood reports when none was ever written. */
const UNKNOWN_UNIT = 'unknown';

/** The metrics and monitoring error shape; also the server's default for unmatched URLs and the operational routes. */
export const metricsErrors: ApiErrorShaper = {
  body: (view, request) => jsonError(metricsFaultBody(view, request.id)),
  fromValidation: (failure) => {
    if (failure.part !== 'body') return parameterError(failure);
    if (failure.errors[0]?.keyword === 'maxItems') {
      return httpError('QUERY_METRICS_TOO_MANY', `Too many metrics fetch in a single call. Max limit is ${VIEWS_METRICS_MAX}.`, { limit: VIEWS_METRICS_MAX });
    }
    return bodyError(failure, 'The body must be a JSON array of metric names, e.g. ["a.b","c.d"].');
  },
  fromUnparsableBody: () => httpError('HTTP_BODY_INVALID', 'The body must be a JSON array of metric names, e.g. ["a.b","c.d"].'),
};

function query(context: ServerContext, tenant: string, metric: string, params: PlotQuery): Promise<QueryResult> {
  return context.store.query(plotRequest(tenant, metric, params));
}

async function viewOne(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tenant, metricName } = request.params as { tenant: string; metricName: string };
  const params = request.query as PlotQuery;
  const result = await context.admission.run('query', () => query(context, tenant, metricName, params));
  // Sent as text: fastify's compiled serializer measured slower than JSON.stringify on plot values
  // (README, "The HTTP server"); the response schema still documents the shape.
  return sendJson(reply, { unit: result.unit ?? UNKNOWN_UNIT, values: result.values, metadata: plotMetadata(result.values.length) });
}

async function viewMany(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tenant } = request.params as { tenant: string };
  const params = request.query as PlotQuery;
  const names = request.body as string[];
  // One admission slot for the whole batch: it is one request's work.
  const results = await context.admission.run('query', () => Promise.all(names.map((name) => query(context, tenant, name, params))));
  const metrics = names.map((metric, i) => {
    const result = results[i] as QueryResult;
    return { metric, unit: result.unit ?? UNKNOWN_UNIT, type: 'number', data: result.values };
  });
  return sendJson(reply, { metrics });
}

/** The plan of a view: the same parameters, the planner's decision, no data read (so a console can show it beside the plot). */
function planOne(context: ServerContext, request: FastifyRequest): unknown {
  const { tenant, metricName } = request.params as { tenant: string; metricName: string };
  const plan = context.store.plan(plotRequest(tenant, metricName, request.query as PlotQuery));
  const { resolution, from, to, servedFrom, readFrom, expectedPoints, overLimit, reason } = plan;
  return { resolution, from, to, servedFrom, readFrom, expectedPoints, overLimit, pointsMax: QUERY_POINTS_MAX, bucketWidthMs: bucketWidthMs(resolution), reason };
}

async function search(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { tenant } = request.params as { tenant: string };
  const { query: glob } = request.query as { query: string };
  const found = await context.admission.run('query', () => searchMetrics(context.store, tenant, glob));
  void reply.code(200);
  return found.map((metric) => (metric.unit === null ? { metric: metric.name } : { metric: metric.name, unit: metric.unit }));
}

/** The metrics query API. */
export const metricsApi: ApiPlugin = {
  name: 'metrics',
  prefix: '/metrics/v2.0',
  errorSchema: METRICS_ERROR_SCHEMA,
  errors: metricsErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    defineResource(scope, '/:tenant/views/:metricName', {
      GET: {
        rules: READ_RULES,
        schema: { summary: "One metric's values over a range", params: METRIC_PARAMS_SCHEMA, querystring: PLOT_QUERY_SCHEMA, response: VIEW_RESPONSE },
        handler: (request, reply) => viewOne(context, request, reply),
      },
    });
    defineResource(scope, '/:tenant/views/:metricName/plan', {
      GET: {
        rules: PLAN_RULES,
        schema: { summary: "How a view would be served: the planner's resolution, expected count and retention cut, without reading data", params: METRIC_PARAMS_SCHEMA, querystring: PLOT_QUERY_SCHEMA, response: PLAN_RESPONSE },
        handler: async (request) => planOne(context, request),
      },
    });
    defineResource(scope, '/:tenant/views', {
      // Reading many views is a read, whatever the method: observers may do it.
      POST: {
        rules: READ_RULES,
        bodyLimit: VIEWS_BODY_BYTES_MAX,
        schema: { summary: "Many metrics' values over one range", params: TENANT_PARAMS_SCHEMA, querystring: PLOT_QUERY_SCHEMA, body: METRIC_NAMES_SCHEMA, response: VIEWS_RESPONSE },
        handler: (request, reply) => viewMany(context, request, reply),
      },
    });
    defineResource(scope, '/:tenant/metrics/search', {
      GET: {
        rules: READ_RULES,
        schema: { summary: 'Metric names matching a glob', params: TENANT_PARAMS_SCHEMA, querystring: SEARCH_QUERY_SCHEMA, response: SEARCH_RESPONSE },
        handler: (request, reply) => search(context, request, reply),
      },
    });
  },
};
