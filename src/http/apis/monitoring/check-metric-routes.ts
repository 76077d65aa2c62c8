// Owns operations 5 and 6: a check's metrics and one metric's plot, read from the engine.
import type { FastifyInstance } from 'fastify';
import { checkMetricSeries } from '../../../monitoring/check-metrics.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { parsePlotParams, type QueryString } from '../metrics/plot-params.js';
import { MONITORING_BASE, pageRequest, param, sendJson, sendList, tenantOf } from './monitoring-http.js';

/** Both read the engine, so they run in the query admission queue. */
const METRIC_RULES: RouteRules = { access: 'read', work: 'query' };
/** Plots are never paged (the 1440-point cap splits them instead), as the reference's metadata shows. */
const PLOT_METADATA = { limit: null, marker: null, next_marker: null, next_href: null } as const;
const CHECK_PATH = `${MONITORING_BASE}/entities/:entityId/checks/:checkId`;

/** Registers GET .../checks/:checkId/metrics and .../metrics/:metricName/plot. */
export function registerCheckMetricRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, `${CHECK_PATH}/metrics`, {
    GET: {
      rules: METRIC_RULES,
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
      handler: async (request, reply) => {
        const [tenant, entityId, checkId] = [tenantOf(request), param(request, 'entityId'), param(request, 'checkId')];
        monitoring.entities.check(tenant, entityId, checkId);
        const params = parsePlotParams(request.query as QueryString);
        const metric = checkMetricSeries(entityId, checkId, param(request, 'metricName'));
        const result = await context.admission.run('query', () => context.store.query({ tenant, metric, ...params }));
        return sendJson(reply, { values: result.values, metadata: { count: result.values.length, ...PLOT_METADATA } });
      },
    },
  });
}
