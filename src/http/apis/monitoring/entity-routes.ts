// Owns the entity, check and alarm routes: thin wrappers over the entity service.
import type { FastifyInstance } from 'fastify';
import type { StoredDoc } from '../../../monitoring/doc-store.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import type { Page } from '../../../monitoring/paging.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud } from './crud-routes.js';
import { param } from './monitoring-http.js';
import { alarmView, checkView, entityView, suppressionLookup, type SuppressionLookup } from './monitoring-views.js';

/** An object as a read shows it: the stored object and the suppression ids of the moment of the read. */
interface Shown<D> {
  readonly stored: StoredDoc<D>;
  readonly suppressions: SuppressionLookup;
}

function shown<D>(monitoring: MonitoringService, tenant: string, stored: StoredDoc<D>): Shown<D> {
  return { stored, suppressions: suppressionLookup(monitoring, tenant) };
}

function shownPage<D>(monitoring: MonitoringService, tenant: string, page: Page<StoredDoc<D>>): Page<Shown<D>> {
  const suppressions = suppressionLookup(monitoring, tenant);
  return { ...page, values: page.values.map((stored) => ({ stored, suppressions })) };
}

/** Registers /entities, /entities/:entityId/checks and /entities/:entityId/alarms. */
export function registerEntityRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const service = monitoring.entities;
  defineCrud(app, context, {
    path: '/entities',
    idParam: 'entityId',
    noun: 'entity',
    bodies: MONITORING_BODY_SCHEMAS.entity,
    itemPath: (_request, id) => `entities/${id}`,
    list: (tenant, _request, page) => shownPage(monitoring, tenant, service.listEntities(tenant, page)),
    get: (tenant, _request, id) => shown(monitoring, tenant, service.entity(tenant, id)),
    create: (tenant, _request, body) => service.createEntity(tenant, body),
    update: (tenant, _request, id, body) => service.updateEntity(tenant, id, body),
    remove: (tenant, _request, id) => service.deleteEntity(tenant, id),
    render: (item) => entityView(item.stored, item.suppressions),
  });
  defineCrud(app, context, {
    path: '/entities/:entityId/checks',
    idParam: 'checkId',
    noun: 'check',
    bodies: MONITORING_BODY_SCHEMAS.check,
    storedType: (tenant, request, id) => service.check(tenant, param(request, 'entityId'), id).doc.type,
    itemPath: (request, id) => `entities/${param(request, 'entityId')}/checks/${id}`,
    list: (tenant, request, page) => shownPage(monitoring, tenant, service.listChecks(tenant, param(request, 'entityId'), page)),
    get: (tenant, request, id) => shown(monitoring, tenant, service.check(tenant, param(request, 'entityId'), id)),
    create: (tenant, request, body) => service.createCheck(tenant, param(request, 'entityId'), body),
    update: (tenant, request, id, body) => service.updateCheck(tenant, param(request, 'entityId'), id, body),
    remove: (tenant, request, id) => service.deleteCheck(tenant, param(request, 'entityId'), id),
    render: (item) => checkView(item.stored, item.suppressions),
  });
  defineCrud(app, context, {
    path: '/entities/:entityId/alarms',
    idParam: 'alarmId',
    noun: 'alarm',
    bodies: MONITORING_BODY_SCHEMAS.alarm,
    itemPath: (request, id) => `entities/${param(request, 'entityId')}/alarms/${id}`,
    list: (tenant, request, page) => shownPage(monitoring, tenant, service.listAlarms(tenant, param(request, 'entityId'), page)),
    get: (tenant, request, id) => shown(monitoring, tenant, service.alarm(tenant, param(request, 'entityId'), id)),
    create: (tenant, request, body) => service.createAlarm(tenant, param(request, 'entityId'), body),
    update: (tenant, request, id, body) => service.updateAlarm(tenant, param(request, 'entityId'), id, body),
    remove: (tenant, request, id) => service.deleteAlarm(tenant, param(request, 'entityId'), id),
    render: (item) => alarmView(item.stored, item.suppressions),
  });
}
