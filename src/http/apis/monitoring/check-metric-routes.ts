// Owns operations 5 and 6: a check's metrics and one metric's plot, read from the engine.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendJson } from '../../json-reply.js';
import { checkMetricSeries } from '../../../monitoring/check-metrics.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { plotMetadata, plotRequest, PLOT_METADATA_SCHEMA, PLOT_QUERY_SCHEMA, PLOT_VALUE_SCHEMA, type PlotQuery } from '../metrics/plot-query.js';
import { PAGE_QUERY_SCHEMA, pageRequest, param, sendList, tenantOf, LIST_RESPONSE } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** Both read the engine, so they run in the query admission queue. */
const METRIC_RULES: RouteRules = { access: 'read', work: 'query' };
const CHECK_PATH = '/:tenant/entities/:entityId/checks/:checkId';

/** Operation 6's answer: the values and the (never paged) metadata. */
const PLOT_RESPONSE = {
  200: {
    type: 'object',
    required: ['values', 'metadata'],
    properties: { values: { type: 'array', items: PLOT_VALUE_SCHEMA }, metadata: PLOT_METADATA_SCHEMA },
  },
} as const;

async function plot(context: ServerContext, monitoring: MonitoringService, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const [tenant, entityId, checkId] = [tenantOf(request), param(request, 'entityId'), param(request, 'checkId')];
  monitoring.entities.check(tenant, entityId, checkId);
  const metric = checkMetricSeries(entityId, checkId, param(request, 'metricName'));
  const result = await context.admission.run('query', () => context.store.query(plotRequest(tenant, metric, request.query as PlotQuery)));
  // Sent as text like the metrics views: JSON.stringify measured faster here than the compiled serializer.
  return sendJson(reply, { values: result.values, metadata: plotMetadata(result.values.length) });
}

/** Registers GET .../checks/:checkId/metrics and .../metrics/:metricName/plot. */
export function registerCheckMetricRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, `${CHECK_PATH}/metrics`, {
    GET: {
      rules: METRIC_RULES,
      schema: { summary: "A check's metrics (operation 5)", params: pathParams('entityId', 'checkId'), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        const [tenant, entityId, checkId] = [tenantOf(request), param(request, 'entityId'), param(request, 'checkId')];
        const found = await context.admission.run('query', () => monitoring.checkMetrics(context.store, tenant, entityId, checkId, page));
        return sendList(context, request, reply, found, page, (metric) => metric);
      },
    },
  });
  defineResource(app, `${CHECK_PATH}/metrics/:metricName/plot`, {
    GET: {
      rules: METRIC_RULES,
      schema: {
        summary: "One check metric's data points over a range (operation 6)",
        params: pathParams('entityId', 'checkId', 'metricName'),
        querystring: PLOT_QUERY_SCHEMA,
        response: PLOT_RESPONSE,
      },
      handler: (request, reply) => plot(context, monitoring, request, reply),
    },
  });
}
