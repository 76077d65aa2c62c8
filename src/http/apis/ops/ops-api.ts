// Owns the operational routes at the root: GET /healthz and GET /metrics (Prometheus text), both without a token.
import type { FastifyInstance } from 'fastify';
import type { StoreHealth } from '../../../store-types.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { RETRY_AFTER_SECONDS } from '../../http-limits.js';
import { metricsErrors } from '../metrics/metrics-api.js';
import { METRICS_ERROR_SCHEMA } from '../../error-schemas.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';

const HEALTH_RULES: RouteRules = { access: 'public' };
// The registry writes the text exposition format only (Prometheus' scrape Accept lists it too).
const PROMETHEUS_RULES: RouteRules = { access: 'public', produces: ['text/plain'] };

/** One reason of a health answer: the code of the condition, a sentence, and its details. */
const HEALTH_REASON = {
  type: 'object',
  required: ['code', 'message', 'details'],
  properties: {
    code: { type: 'string', description: 'The error code of the condition: STORE_PARTITION_DAMAGED, STORE_NOT_DURABLE, or a WAL damage code.' },
    message: { type: 'string' },
    details: {
      type: 'object',
      additionalProperties: true,
      description: 'For a damaged partition: resolution, partitionStartMs, partitionEndMs, reason, detail, detectedMs. For the log: errno, sinceMs, cause. Paths are relative to the data directory.',
    },
  },
} as const;

/**
 * The health answers, serialized by fastify: exactly {"status":"ok"} when nothing is wrong (the
 * shape load balancers already match), else the status and every reason.
 */
const HEALTH_RESPONSE = {
  200: {
    description: 'ok, or degraded: some data cannot be served (damaged partitions) but every accepted write is durable',
    oneOf: [
      { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { type: 'string', const: 'ok' } } },
      {
        type: 'object',
        required: ['status', 'reasons'],
        properties: { status: { type: 'string', const: 'degraded' }, reasons: { type: 'array', items: HEALTH_REASON } },
        examples: [
          {
            status: 'degraded',
            reasons: [
              {
                code: 'STORE_PARTITION_DAMAGED',
                message: 'the FULL [2026-01-01T06:00:00.000Z, 2026-01-01T12:00:00.000Z) partition is unavailable (missing: ...); run `strata check --repair`',
                details: { resolution: 'FULL', partitionStartMs: 1767247200000, partitionEndMs: 1767268800000, reason: 'missing', detail: '...', detectedMs: 1767270000000 },
              },
            ],
          },
        ],
      },
    ],
  },
  503: {
    description: 'unavailable: writes cannot be made durable (the write-ahead log cannot be written); a closed store answers the STORE_CLOSED error body instead',
    type: 'object',
    required: ['status', 'reasons'],
    properties: { status: { type: 'string', const: 'unavailable' }, reasons: { type: 'array', items: HEALTH_REASON } },
  },
} as const;

/** The store's health; a store without health() is taken as healthy while stats() answers (STORE_CLOSED otherwise). */
function healthOf(store: ServerContext['store']): StoreHealth {
  if (store.health !== undefined) return store.health();
  store.stats();
  return { status: 'ok', reasons: [] };
}

/**
 * /healthz and /metrics. /healthz renders the store's health: 200 {"status":"ok"}; 200 degraded
 * with reasons while every accepted write is durable (damaged partitions); 503 unavailable with
 * reasons while the write-ahead log cannot be written; 503 STORE_CLOSED once the store is closed.
 * They live at the root, so their errors and unmatched URLs take the server's default shape (the
 * metrics shape).
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
        schema: { summary: 'Health: ok, degraded (some data unavailable) or unavailable (writes not durable)', response: HEALTH_RESPONSE },
        handler: async (_request, reply) => {
          // A closed store throws STORE_CLOSED (unavailable), which answers 503 in the error shape.
          const health = healthOf(context.store);
          if (health.status === 'ok') return { status: 'ok' };
          if (health.status === 'unavailable') void reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
          return { status: health.status, reasons: health.reasons };
        },
      },
    });
    defineResource(scope, '/metrics', {
      GET: {
        rules: PROMETHEUS_RULES,
        schema: { summary: 'Prometheus metrics of this server (text exposition format)' },
        handler: async (_request, reply) => {
          const text = await context.metrics.scrape();
          return reply.code(200).type(context.metrics.registry.contentType).send(text);
        },
      },
    });
  },
};
