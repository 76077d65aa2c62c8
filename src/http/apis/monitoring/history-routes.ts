// Owns the notification history routes and the test notifications (POST /test-notification, POST /notifications/{id}/test).
import type { FastifyInstance } from 'fastify';
import { REDACTED_SECRET } from '../../../monitoring/detail-secrets.js';
import type { DeliveryNotification } from '../../../monitoring/delivery/deliverer.js';
import { historyItemView, notificationLookup } from '../../../monitoring/history/history-view.js';
import type { HistoryScope } from '../../../monitoring/history/notification-history.js';
import { fieldError } from '../../../monitoring/monitoring-errors.js';
import { MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { notificationDoc } from '../../../monitoring/notification-rules.js';
import { isSecretNotificationDetail } from '../../../monitoring/notification-secrets.js';
import type { JsonSchema } from '../../../monitoring/schemas/json-schema.js';
import { NOTIFICATION_CREATE_SCHEMA, type NotificationCreate } from '../../../monitoring/schemas/notification-schema.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, PAGE_QUERY_PROPERTIES, pageRequest, param, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** A test sends a notification, with its secrets: a role that may write, like the reference's other POSTs. */
const TEST_RULES: RouteRules = { access: 'write' };

/** The history time series' query string: the window (integer ms) and paging. */
const HISTORY_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    from: { type: 'integer', description: 'Window start, integer ms since 1970 (default: 7 days before to).' },
    to: { type: 'integer', description: 'Window end (excluded), integer ms since 1970 (default: now).' },
  },
} as const;

/** The answer of both test routes. */
const TEST_RESPONSE = {
  200: {
    type: 'object',
    required: ['status', 'message', 'notification_type', 'duration_ms', 'transaction_id'],
    properties: {
      status: { type: 'string', enum: ['success', 'failure'] },
      message: { type: 'string' },
      notification_type: { type: 'string' },
      duration_ms: { type: 'integer' },
      transaction_id: { type: 'string' },
    },
  },
} as const;

/** The body of POST /test-notification: a notification create body whose label may be left out. */
const TEST_NOTIFICATION_SCHEMA: JsonSchema = {
  ...NOTIFICATION_CREATE_SCHEMA,
  required: ['type'],
  description: 'A notification that need not exist: one test message is sent to it now, and nothing is stored.',
  examples: [{ type: 'webhook', details: { url: 'https://hooks.example.com/monitoring' } }, { type: 'email', details: { address: 'ops@example.com' }, label: 'Ops mailbox' }],
};

interface HistoryQuery {
  readonly from?: number;
  readonly to?: number;
}

/** A test body as a notification to send: the create rules apply; a redacted secret has nothing stored to stand for. */
function testedNotification(body: NotificationCreate): DeliveryNotification {
  const doc = notificationDoc({ ...body, label: body.label ?? 'Test notification' });
  for (const [name, value] of Object.entries(doc.details)) {
    if (value === REDACTED_SECRET && isSecretNotificationDetail(doc.type, name)) throw fieldError(`details.${name}`, `${REDACTED_SECRET} stands for a stored secret, and a test notification has none; send the secret itself`);
  }
  return { id: 'test', label: doc.label, type: doc.type, details: doc.details };
}

/** Registers the notification history of an alarm (GET .../notification_history[/{checkId}[/{uuid}]]) and the two test notification routes. */
export function registerHistoryRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const history = monitoring.history;
  const alarmPath = '/:tenant/entities/:entityId/alarms/:alarmId/notification_history';
  /** The scope of a request; MONITORING_PARENT_NOT_FOUND / MONITORING_OBJECT_NOT_FOUND when the entity or alarm is missing. */
  const scopeOf = (tenant: string, entityId: string, alarmId: string, checkId: string): HistoryScope => {
    monitoring.entities.alarm(tenant, entityId, alarmId);
    return { entityId, alarmId, checkId };
  };
  defineResource(app, alarmPath, {
    GET: {
      rules: READ_RULES,
      schema: { summary: "The ids of the checks with notification history of an alarm (within the history's retention)", params: pathParams('entityId', 'alarmId') },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const entityId = param(request, 'entityId');
        const alarmId = param(request, 'alarmId');
        monitoring.entities.alarm(tenant, entityId, alarmId);
        return sendJson(reply, { check_ids: history.checkIds(tenant, entityId, alarmId) });
      },
    },
  });
  defineResource(app, `${alarmPath}/:checkId`, {
    GET: {
      rules: READ_RULES,
      schema: {
        summary: "An alarm's notification history for one check as a time series: each change's notifications, their deliveries and every attempt",
        params: pathParams('entityId', 'alarmId', 'checkId'),
        querystring: HISTORY_QUERY_SCHEMA,
        response: LIST_RESPONSE,
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const scope = scopeOf(tenant, param(request, 'entityId'), param(request, 'alarmId'), param(request, 'checkId'));
        const { from, to } = request.query as HistoryQuery;
        const page = pageRequest(request);
        // The window is resolved once: this page and the next link use the same one, even when `to` defaulted to now.
        const window = history.window({ ...(from !== undefined ? { fromMs: from } : {}), ...(to !== undefined ? { toMs: to } : {}) });
        const found = history.list(tenant, scope, { ...page, ...window });
        const lookup = notificationLookup(monitoring.notifications, tenant);
        return sendList(context, request, reply, found, page, (entry) => historyItemView(entry, lookup), { from: String(window.fromMs), to: String(window.toMs) });
      },
    },
  });
  defineResource(app, `${alarmPath}/:checkId/:uuid`, {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One notification history item: a change, its notifications, their deliveries and every attempt', params: pathParams('entityId', 'alarmId', 'checkId', 'uuid') },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const scope = scopeOf(tenant, param(request, 'entityId'), param(request, 'alarmId'), param(request, 'checkId'));
        const entry = history.entry(tenant, scope, param(request, 'uuid'));
        return sendJson(reply, historyItemView(entry, notificationLookup(monitoring.notifications, tenant)));
      },
    },
  });
  defineResource(app, '/:tenant/test-notification', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Send one test message now to a notification that need not exist; answers the outcome of the attempt', params: pathParams(), body: TEST_NOTIFICATION_SCHEMA, response: TEST_RESPONSE },
      handler: async (request, reply) => {
        const notification = testedNotification(request.body as NotificationCreate);
        return sendJson(reply, await context.runtime.testNotifications.send(tenantOf(request), notification));
      },
    },
  });
  defineResource(app, '/:tenant/notifications/:notificationId/test', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Send one test message now to a saved notification; answers the outcome of the attempt', params: pathParams('notificationId'), response: TEST_RESPONSE },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const stored = monitoring.notifications.notificationWithSecrets(tenant, param(request, 'notificationId'));
        const notification = { id: stored.id, label: stored.doc.label, type: stored.doc.type, details: stored.doc.details };
        return sendJson(reply, await context.runtime.testNotifications.send(tenant, notification));
      },
    },
  });
}
