// Owns the operations routes: GET /healthz and GET /metrics (Prometheus text), both without a token.
import type { FastifyInstance } from 'fastify';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';

const HEALTH_RULES: RouteRules = { access: 'public' };
const PROMETHEUS_RULES: RouteRules = { access: 'public', produces: ['text/plain', 'application/openmetrics-text'] };

/** Registers /healthz (200 while the store answers, 503 once closed) and /metrics. */
export function registerOpsRoutes(app: FastifyInstance, context: ServerContext): void {
  defineResource(app, '/healthz', {
    GET: {
      rules: HEALTH_RULES,
      handler: async (_request, reply) => {
        // A closed store throws STORE_CLOSED (unavailable), which answers 503.
        context.store.stats();
        return reply.code(200).type('application/json; charset=utf-8').send('{"status":"ok"}');
      },
    },
  });
  defineResource(app, '/metrics', {
    GET: {
      rules: PROMETHEUS_RULES,
      handler: async (_request, reply) => {
        const text = await context.metrics.registry.metrics();
        return reply.code(200).type(context.metrics.registry.contentType).send(text);
      },
    },
  });
}
