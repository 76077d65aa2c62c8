// Owns the entity, check and alarm routes: thin wrappers over the entity service.
import type { FastifyInstance } from 'fastify';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud } from './crud-routes.js';
import { param } from './monitoring-http.js';
import { alarmView, checkView, entityView } from './monitoring-views.js';

/** Registers /entities, /entities/:entityId/checks and /entities/:entityId/alarms. */
export function registerEntityRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const service = monitoring.entities;
  defineCrud(app, context, {
    path: '/entities',
    idParam: 'entityId',
    noun: 'entity',
    bodies: MONITORING_BODY_SCHEMAS.entity,
    itemPath: (_request, id) => `entities/${id}`,
    list: (tenant, _request, page) => service.listEntities(tenant, page),
    get: (tenant, _request, id) => service.entity(tenant, id),
    create: (tenant, _request, body) => service.createEntity(tenant, body),
    update: (tenant, _request, id, body) => service.updateEntity(tenant, id, body),
    remove: (tenant, _request, id) => service.deleteEntity(tenant, id),
    render: entityView,
  });
  defineCrud(app, context, {
    path: '/entities/:entityId/checks',
    idParam: 'checkId',
    noun: 'check',
    bodies: MONITORING_BODY_SCHEMAS.check,
    storedType: (tenant, request, id) => service.check(tenant, param(request, 'entityId'), id).doc.type,
    itemPath: (request, id) => `entities/${param(request, 'entityId')}/checks/${id}`,
    list: (tenant, request, page) => service.listChecks(tenant, param(request, 'entityId'), page),
    get: (tenant, request, id) => service.check(tenant, param(request, 'entityId'), id),
    create: (tenant, request, body) => service.createCheck(tenant, param(request, 'entityId'), body),
    update: (tenant, request, id, body) => service.updateCheck(tenant, param(request, 'entityId'), id, body),
    remove: (tenant, request, id) => service.deleteCheck(tenant, param(request, 'entityId'), id),
    render: checkView,
  });
  defineCrud(app, context, {
    path: '/entities/:entityId/alarms',
    idParam: 'alarmId',
    noun: 'alarm',
    bodies: MONITORING_BODY_SCHEMAS.alarm,
    itemPath: (request, id) => `entities/${param(request, 'entityId')}/alarms/${id}`,
    list: (tenant, request, page) => service.listAlarms(tenant, param(request, 'entityId'), page),
    get: (tenant, request, id) => service.alarm(tenant, param(request, 'entityId'), id),
    create: (tenant, request, body) => service.createAlarm(tenant, param(request, 'entityId'), body),
    update: (tenant, request, id, body) => service.updateAlarm(tenant, param(request, 'entityId'), id, body),
    remove: (tenant, request, id) => service.deleteAlarm(tenant, param(request, 'entityId'), id),
    render: alarmView,
  });
}
