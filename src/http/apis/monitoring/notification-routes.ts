// Owns the notification, notification plan and notification type routes (operations 7 and 8).
import type { FastifyInstance } from 'fastify';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import { notFound } from '../../../monitoring/monitoring-errors.js';
import { notificationType, notificationTypes } from '../../../monitoring/notification-types.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud, READ_RULES } from './crud-routes.js';
import { sendJson } from '../../json-reply.js';
import { PAGE_QUERY_SCHEMA, pageRequest, param, sendList, LIST_RESPONSE } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { notificationView, planView } from './monitoring-views.js';
import { pageOfSorted } from './static-pages.js';

/** Registers /notifications, /notification_plans and /notification_types. */
export function registerNotificationRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const service = monitoring.notifications;
  defineCrud(app, context, {
    path: '/notifications',
    idParam: 'notificationId',
    noun: 'notification',
    bodies: MONITORING_BODY_SCHEMAS.notification,
    storedType: (tenant, _request, id) => service.notification(tenant, id).doc.type,
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
    noun: 'notification plan',
    bodies: MONITORING_BODY_SCHEMAS.plan,
    itemPath: (_request, id) => `notification_plans/${id}`,
    list: (tenant, _request, page) => service.listPlans(tenant, page),
    get: (tenant, _request, id) => service.plan(tenant, id),
    create: (tenant, _request, body) => service.createPlan(tenant, body),
    update: (tenant, _request, id, body) => service.updatePlan(tenant, id, body),
    remove: (tenant, _request, id) => service.deletePlan(tenant, id),
    render: planView,
  });
  defineResource(app, '/:tenant/notification_types', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List the notification types and their fields (operation 7)', params: pathParams(), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(notificationTypes(), page, (type) => type.id), page, (type) => type);
      },
    },
  });
  defineResource(app, '/:tenant/notification_types/:typeId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One notification type (operation 8)', params: pathParams('typeId') },
      handler: async (request, reply) => {
        const id = param(request, 'typeId');
        const found = notificationType(id);
        if (found === undefined) throw notFound('NotificationType', id);
        return sendJson(reply, found);
      },
    },
  });
}
