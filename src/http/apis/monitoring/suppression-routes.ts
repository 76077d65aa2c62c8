// Owns the suppression routes: /suppressions CRUD and /suppression_logs (a time series), and their JSON shapes.
import type { FastifyInstance } from 'fastify';
import type { StoredDoc } from '../../../monitoring/doc-store.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { SUPPRESSION_CREATE_SCHEMA, SUPPRESSION_UPDATE_SCHEMA } from '../../../monitoring/schemas/suppression-schema.js';
import type { SuppressionDoc, SuppressionLogRow } from '../../../monitoring/suppressions/suppression-service.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud, READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, PAGE_QUERY_PROPERTIES, pageRequest, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** The suppression log query string: the window (integer ms) and paging. */
const LOG_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    from: { type: 'integer', description: 'Window start, integer ms since 1970 (default: 7 days before to).' },
    to: { type: 'integer', description: 'Window end (exclusive), integer ms since 1970 (default: now).' },
  },
} as const;

/** A suppression: its fields, recurrence null when none, created_at and updated_at. */
export function suppressionView(stored: StoredDoc<SuppressionDoc>): Record<string, unknown> {
  const d = stored.doc;
  return {
    id: stored.id,
    label: d.label,
    entities: d.entities,
    checks: d.checks,
    alarms: d.alarms,
    notification_plans: d.notification_plans,
    start_time: d.start_time,
    end_time: d.end_time,
    recurrence: d.recurrence,
    created_at: stored.createdMs,
    updated_at: stored.updatedMs,
  };
}

/** A suppression log entry in the reference's shape (timestamp an integer, not the string its example shows), plus previous_state. */
export function suppressionLogView(row: SuppressionLogRow): Record<string, unknown> {
  return {
    id: row.id,
    entity_id: row.entityId,
    alarm_id: row.alarmId,
    check_id: row.checkId,
    notification_plan_id: row.planId,
    suppressions: row.suppressions,
    state: row.state,
    previous_state: row.previousState,
    timestamp: row.timestampMs,
    transaction_id: row.txnId,
  };
}

/** Registers /suppressions (list, create, get, update, delete) and GET /suppression_logs. */
export function registerSuppressionRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const service = monitoring.suppressions;
  defineCrud(app, context, {
    path: '/suppressions',
    idParam: 'suppressionId',
    noun: 'suppression',
    bodies: { create: SUPPRESSION_CREATE_SCHEMA, update: SUPPRESSION_UPDATE_SCHEMA },
    itemPath: (_request, id) => `suppressions/${id}`,
    list: (tenant, _request, page) => service.list(tenant, page),
    get: (tenant, _request, id) => service.suppression(tenant, id),
    create: (tenant, _request, body) => service.create(tenant, body),
    update: (tenant, _request, id, body) => service.update(tenant, id, body),
    remove: (tenant, _request, id) => service.remove(tenant, id),
    render: suppressionView,
  });
  defineResource(app, '/:tenant/suppression_logs', {
    GET: {
      rules: READ_RULES,
      schema: {
        summary: 'Alarm notifications that suppressions stopped, as a time series (default: the last 7 days)',
        params: pathParams(),
        querystring: LOG_QUERY_SCHEMA,
        response: LIST_RESPONSE,
      },
      handler: async (request, reply) => {
        const { from, to } = request.query as { from?: number; to?: number };
        const page = pageRequest(request);
        // The window is resolved once: this page and the next link use the same one, even when `to` defaulted to now.
        const window = service.logWindow({ ...(from !== undefined ? { fromMs: from } : {}), ...(to !== undefined ? { toMs: to } : {}) });
        const found = service.listLogs(tenantOf(request), { ...page, ...window });
        return sendList(context, request, reply, found, page, suppressionLogView, { from: String(window.fromMs), to: String(window.toMs) });
      },
    },
  });
}
