// Owns the notification, notification plan and notification type routes (operations 7 and 8).
import type { FastifyInstance } from 'fastify';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { notFound } from '../../../monitoring/monitoring-errors.js';
import { notificationType, notificationTypes } from '../../../monitoring/notification-types.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud, READ_RULES } from './crud-routes.js';
import { MONITORING_BASE, pageRequest, param, sendJson, sendList } from './monitoring-http.js';
import { notificationView, planView } from './monitoring-views.js';
import { pageOfSorted } from './static-pages.js';

/** Registers /notifications, /notification_plans and /notification_types. */
export function registerNotificationRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const service = monitoring.notifications;
  defineCrud(app, context, {
    path: '/notifications',
    idParam: 'notificationId',
    itemPath: (_request, id) => `notifications/${id}`,
    list: (tenant, _request, page) => service.listNotifications(tenant, page),
    get: (tenant, _request, id) => service.notification(tenant, id),
    create: (tenant, _request, body) => service.createNotification(tenant, body),
    update: (tenant, _request, id, body) => service.updateNotification(tenant, id, body),
    remove: (tenant, _request, id) => service.deleteNotification(tenant, id),
    render: notificationView,
  });
  defineCrud(app, context, {
    path: '/notification_plans',
    idParam: 'planId',
    itemPath: (_request, id) => `notification_plans/${id}`,
    list: (tenant, _request, page) => service.listPlans(tenant, page),
    get: (tenant, _request, id) => service.plan(tenant, id),
    create: (tenant, _request, body) => service.createPlan(tenant, body),
    update: (tenant, _request, id, body) => service.updatePlan(tenant, id, body),
    remove: (tenant, _request, id) => service.deletePlan(tenant, id),
    render: planView,
  });
  defineResource(app, `${MONITORING_BASE}/notification_types`, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(notificationTypes(), page, (type) => type.id), page, (type) => type);
      },
    },
  });
  defineResource(app, `${MONITORING_BASE}/notification_types/:typeId`, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const id = param(request, 'typeId');
        const found = notificationType(id);
        if (found === undefined) throw notFound('NotificationType', id);
        return sendJson(reply, found);
      },
    },
  });
}
