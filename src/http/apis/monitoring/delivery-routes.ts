// Owns the notification delivery routes: the tenant's deliveries and dead letters, one delivery with its attempts, and retrying a dead letter.
import type { FastifyInstance } from 'fastify';
import type { Outbox } from '../../../monitoring/delivery/outbox.js';
import { DELIVERY_STATUSES, type AttemptRecord, type DeliveryItem, type DeliveryStatus } from '../../../monitoring/delivery/outbox-store.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, PAGE_QUERY_PROPERTIES, pageRequest, param, sendList, sendNoContent, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** Retrying a dead letter is a write. */
const WRITE_RULES: RouteRules = { access: 'write' };

/** GET /deliveries: paging and an optional status. */
const DELIVERY_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    status: { type: 'string', enum: [...DELIVERY_STATUSES], description: 'Only deliveries of this status: pending, delivered or dead (the dead letters).' },
  },
} as const;

/** A delivery as the API shows it (times in integer ms; next_attempt_at null unless pending). */
export function deliveryView(item: DeliveryItem): Record<string, unknown> {
  return {
    id: item.id,
    notification_id: item.notificationId,
    entity_id: item.entityId,
    alarm_id: item.alarmId,
    check_id: item.checkId,
    state: item.state,
    status: item.status,
    attempts: item.attempts,
    next_attempt_at: item.nextAttemptMs,
    last_error: item.lastError,
    created_at: item.createdMs,
    updated_at: item.updatedMs,
  };
}

/** One attempt as the API shows it. */
export function attemptView(attempt: AttemptRecord): Record<string, unknown> {
  return {
    attempt: attempt.attempt,
    txn_id: attempt.txnId,
    started_at: attempt.startedMs,
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    detail: attempt.detail,
  };
}

/**
 * Registers GET /deliveries, GET /deliveries/:deliveryId and POST /deliveries/:deliveryId/retry
 * over `outbox` (default: the runtime's, whose deliverer a retry wakes at once; any outbox over
 * the same file works, its deliverer then finds a retried row within DELIVERY_POLL_INTERVAL_MS).
 */
export function registerDeliveryRoutes(app: FastifyInstance, context: ServerContext, _monitoring: MonitoringService, outbox?: Outbox): void {
  const deliveries = outbox ?? context.runtime.outbox;
  defineResource(app, '/:tenant/deliveries', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List notification deliveries by id (enqueue order), optionally of one status', params: pathParams(), querystring: DELIVERY_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        const { status } = request.query as { status?: DeliveryStatus };
        return sendList(context, request, reply, deliveries.list(tenantOf(request), page, status), page, deliveryView);
      },
    },
  });
  defineResource(app, '/:tenant/deliveries/:deliveryId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One notification delivery with its latest attempts (`attempts`) and their number (`attempt_count`)', params: pathParams('deliveryId') },
      handler: async (request, reply) => {
        const { item, attempts } = deliveries.delivery(tenantOf(request), param(request, 'deliveryId'));
        // `attempts` is the list here; the number the list shows as `attempts` is `attempt_count`.
        const { attempts: attemptCount, ...view } = deliveryView(item);
        return sendJson(reply, { ...view, attempt_count: attemptCount, attempts: attempts.map(attemptView) });
      },
    },
  });
  defineResource(app, '/:tenant/deliveries/:deliveryId/retry', {
    POST: {
      rules: WRITE_RULES,
      schema: { summary: 'Make a dead delivery pending again, due now, with a fresh attempt budget', params: pathParams('deliveryId') },
      handler: async (request, reply) => {
        deliveries.retry(tenantOf(request), param(request, 'deliveryId'));
        return sendNoContent(reply);
      },
    },
  });
}
