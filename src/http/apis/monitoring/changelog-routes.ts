// Owns operation 9 (alarm changelogs as a time series) and the monitoring zone list.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../monitoring/monitoring-errors.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { PAGE_QUERY_PROPERTIES, PAGE_QUERY_SCHEMA, pageRequest, param, sendList, tenantOf, LIST_RESPONSE } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { changelogView } from './monitoring-views.js';
import { pageOfSorted } from './static-pages.js';

/** Operation 9's query string: the window (integer ms; spec 4 leaves the format open), an entity, and paging. */
const CHANGELOG_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    from: { type: 'integer', description: 'Window start, integer ms since 1970 (default: 7 days before to).' },
    to: { type: 'integer', description: 'Window end, integer ms since 1970, exclusive (default: just after now).' },
    entityId: { type: 'string', minLength: 1, description: 'Only changes of this entity.' },
  },
} as const;

interface ChangelogQuery {
  readonly from?: number;
  readonly to?: number;
  readonly entityId?: string;
}

/** Registers GET /changelogs/alarms, /monitoring_zones and /monitoring_zones/:zoneId. */
export function registerChangelogRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, '/:tenant/changelogs/alarms', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'Alarm state changes as a time series (operation 9)', params: pathParams(), querystring: CHANGELOG_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const { from, to, entityId } = request.query as ChangelogQuery;
        const page = pageRequest(request);
        const asked = { ...page, ...(from !== undefined ? { fromMs: from } : {}), ...(to !== undefined ? { toMs: to } : {}), ...(entityId !== undefined ? { entityId } : {}) };
        // The window is resolved once: this page and the next link use the same one, even when `to` defaulted to now.
        const window = monitoring.changelogs.window(asked);
        const found = monitoring.changelogs.list(tenantOf(request), { ...asked, ...window });
        return sendList(context, request, reply, found, page, changelogView, { from: String(window.fromMs), to: String(window.toMs) });
      },
    },
  });
  defineResource(app, '/:tenant/monitoring_zones', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List the monitoring zones checks may poll from', params: pathParams(), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(monitoring.zones, page, (zone) => zone.id), page, (zone) => zone);
      },
    },
  });
  defineResource(app, '/:tenant/monitoring_zones/:zoneId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One monitoring zone', params: pathParams('zoneId') },
      handler: async (request, reply) => {
        const id = param(request, 'zoneId');
        const zone = monitoring.zones.find((candidate) => candidate.id === id);
        if (zone === undefined) throw notFound('MonitoringZone', id);
        return sendJson(reply, zone);
      },
    },
  });
}
