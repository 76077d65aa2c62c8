// Owns the notification history routes (GET .../notification_history[/{checkId}[/{uuid}]]); registers the test notification routes beside them.
import type { FastifyInstance } from 'fastify';
import { historyItemView, notificationLookup } from '../../../monitoring/history/history-view.js';
import type { HistoryScope } from '../../../monitoring/history/notification-history.js';
import { LIST_LIMIT_DEFAULT, NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX, NOTIFICATION_HISTORY_LIST_LIMIT_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, PAGE_QUERY_PROPERTIES, pageRequest, param, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { registerTestNotificationRoutes } from './test-notification-routes.js';

/** The history page size: its own bound (each record reads its deliveries and their attempts), above it invalidLimit. */
const HISTORY_LIMIT_DEFAULT = Math.min(LIST_LIMIT_DEFAULT, NOTIFICATION_HISTORY_LIST_LIMIT_MAX);

/** The history time series' query string: the window (integer ms) and paging (at most NOTIFICATION_HISTORY_LIST_LIMIT_MAX records a page). */
const HISTORY_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: NOTIFICATION_HISTORY_LIST_LIMIT_MAX,
      description: `Records per page, 1 to ${NOTIFICATION_HISTORY_LIST_LIMIT_MAX} (default ${HISTORY_LIMIT_DEFAULT}); a page may hold fewer, with a next_marker, when its records have many deliveries.`,
    },
    from: { type: 'integer', description: 'Window start, integer ms since 1970 (default: 7 days before to).' },
    to: { type: 'integer', description: 'Window end (excluded), integer ms since 1970 (default: just after now).' },
  },
} as const;

interface HistoryQuery {
  readonly from?: number;
  readonly to?: number;
  readonly limit?: number;
}

/** Registers the notification history of an alarm (GET .../notification_history[/{checkId}[/{uuid}]]) and, beside it, the two test notification routes. */
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
        summary: `An alarm's notification history for one check as a time series: each change's notifications, their deliveries, attempt counts and latest ${NOTIFICATION_HISTORY_LIST_ATTEMPTS_MAX} attempts`,
        params: pathParams('entityId', 'alarmId', 'checkId'),
        querystring: HISTORY_QUERY_SCHEMA,
        response: LIST_RESPONSE,
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const scope = scopeOf(tenant, param(request, 'entityId'), param(request, 'alarmId'), param(request, 'checkId'));
        const { from, to, limit } = request.query as HistoryQuery;
        const page = { ...pageRequest(request), limit: limit ?? HISTORY_LIMIT_DEFAULT };
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
      schema: { summary: 'One notification history item: a change, its notifications, their deliveries, attempt counts and latest attempts', params: pathParams('entityId', 'alarmId', 'checkId', 'uuid') },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const scope = scopeOf(tenant, param(request, 'entityId'), param(request, 'alarmId'), param(request, 'checkId'));
        const entry = history.entry(tenant, scope, param(request, 'uuid'));
        return sendJson(reply, historyItemView(entry, notificationLookup(monitoring.notifications, tenant)));
      },
    },
  });
  registerTestNotificationRoutes(app, context, monitoring);
}
