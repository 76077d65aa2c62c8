// Owns GET /limits and the per-tenant request rate limits of the monitoring API (its onRequest hook).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { LIMITED_RESOURCES } from '../../../monitoring/account/account-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { RATE_BUCKETS, RateLimiter, testBucketOfRequest, windowText, type BucketUsage } from '../../rate-limit.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import { principalOf } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** The headers every answer to an authenticated monitoring request carries (as the reference's). */
const HEADER_LIMIT = 'x-ratelimit-limit';
const HEADER_USED = 'x-ratelimit-used';
const HEADER_WINDOW = 'x-ratelimit-window';
const HEADER_TYPE = 'x-ratelimit-type';

/** One bucket of GET /limits' `rate`: the reference's {limit, used, window} and when the window resets. */
function rateView(usage: BucketUsage): Record<string, unknown> {
  return { limit: usage.limit, used: usage.used, window: windowText(usage.windowMs), reset_at: usage.resetAtMs };
}

const COUNTS_SCHEMA = { type: 'object', properties: Object.fromEntries(LIMITED_RESOURCES.map((name) => [name, { type: 'integer' }])) } as const;
const RATE_SCHEMA = {
  type: 'object',
  properties: { limit: { type: 'integer' }, used: { type: 'integer' }, window: { type: 'string' }, reset_at: { type: 'integer' } },
} as const;

/** GET /limits' answer, for the OpenAPI document (the body is sent as text). */
const LIMITS_RESPONSE = {
  200: {
    type: 'object',
    required: ['resource', 'resource_usage', 'rate'],
    properties: {
      resource: COUNTS_SCHEMA,
      resource_usage: COUNTS_SCHEMA,
      rate: { type: 'object', properties: Object.fromEntries(RATE_BUCKETS.map((bucket) => [bucket, RATE_SCHEMA])) },
    },
  },
} as const;

/** Sets the X-RateLimit headers of a bucket. */
function setRateHeaders(reply: FastifyReply, usage: BucketUsage): void {
  void reply.header(HEADER_LIMIT, String(usage.limit));
  void reply.header(HEADER_USED, String(usage.used));
  void reply.header(HEADER_WINDOW, windowText(usage.windowMs));
  void reply.header(HEADER_TYPE, usage.bucket);
}

/** MONITORING_RATE_LIMITED (429) for a full bucket, with Retry-After set to the seconds until its window resets. */
function rateLimited(reply: FastifyReply, usage: BucketUsage, nowMs: number): StrataError {
  const retryAfterS = Math.max(1, Math.ceil((usage.resetAtMs - nowMs) / 1000));
  void reply.header('retry-after', String(retryAfterS));
  const window = windowText(usage.windowMs);
  return new StrataError('MONITORING_RATE_LIMITED', `Rate limit of ${usage.limit} ${usage.bucket} requests per ${window} reached; retry after ${retryAfterS} s.`, {
    type: usage.bucket,
    limit: usage.limit,
    window_ms: usage.windowMs,
    reset_at: usage.resetAtMs,
  });
}

/**
 * Registers the rate limits (an onRequest hook over the monitoring scope, after authentication:
 * requests are counted per tenant of the principal; unauthenticated ones are refused before they
 * count; a next page of a backtest counts in `global` only) and GET /limits.
 */
export function registerLimitRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  // One limiter per server: it counts in memory, so a restart starts every window's counts anew.
  const limiter = new RateLimiter(context.config.rateLimits);
  app.addHook('onRequest', async (request, reply) => {
    const principal = principalOf(request);
    if (principal === undefined) return;
    const nowMs = context.clock.now();
    const verdict = limiter.take(principal.user.tenant, testBucketOfRequest(request.routeOptions.url ?? '', request.query), nowMs);
    if (verdict.admitted) return setRateHeaders(reply, verdict.shown);
    setRateHeaders(reply, verdict.refusedBy);
    throw rateLimited(reply, verdict.refusedBy, nowMs);
  });
  defineResource(app, '/:tenant/limits', {
    GET: {
      rules: READ_RULES,
      schema: {
        summary: "The account's resource limits with their usage, and its request rate limits with the requests counted in the current window",
        params: pathParams(),
        querystring: { type: 'object', properties: {} },
        response: LIMITS_RESPONSE,
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const rate = limiter.usage(tenant, context.clock.now());
        return sendJson(reply, {
          resource: monitoring.limits.resources,
          resource_usage: monitoring.limits.usage(tenant),
          rate: Object.fromEntries(RATE_BUCKETS.map((bucket) => [bucket, rateView(rate[bucket])])),
        });
      },
    },
  });
}
