// Owns the operational routes at the root: GET /healthz and GET /metrics (Prometheus text), both without a token.
import type { FastifyInstance } from 'fastify';
import type { ApiPlugin } from '../../api-plugin.js';
import { metricsErrors } from '../metrics/metrics-api.js';
import { METRICS_ERROR_SCHEMA } from '../../error-schemas.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';

const HEALTH_RULES: RouteRules = { access: 'public' };
// The registry writes the text exposition format only (Prometheus' scrape Accept lists it too).
const PROMETHEUS_RULES: RouteRules = { access: 'public', produces: ['text/plain'] };

/** The health answer's fixed shape, serialized by fastify. */
const HEALTH_RESPONSE = { 200: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } } } as const;

/**
 * /healthz (200 while the store answers, 503 once closed) and /metrics. They live at the root, so
 * their errors and unmatched URLs take the server's default shape (the metrics shape).
 */
export const opsApi: ApiPlugin = {
  name: 'operations',
  prefix: '',
  errorSchema: METRICS_ERROR_SCHEMA,
  errors: metricsErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    defineResource(scope, '/healthz', {
      GET: {
        rules: HEALTH_RULES,
        schema: { summary: 'Liveness: 200 while the store answers', response: HEALTH_RESPONSE },
        handler: async () => {
          // A closed store throws STORE_CLOSED (unavailable), which answers 503.
          context.store.stats();
          return { status: 'ok' };
        },
      },
    });
    defineResource(scope, '/metrics', {
      GET: {
        rules: PROMETHEUS_RULES,
        schema: { summary: 'Prometheus metrics of this server (text exposition format)' },
        handler: async (_request, reply) => {
          const text = await context.metrics.registry.metrics();
          return reply.code(200).type(context.metrics.registry.contentType).send(text);
        },
      },
    });
  },
};
