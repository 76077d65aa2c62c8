// Owns operation 9 (alarm changelogs as a time series) and the monitoring zone list.
import type { FastifyInstance } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { notFound } from '../../../monitoring/monitoring-errors.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { MONITORING_BASE, pageRequest, param, sendJson, sendList, single, tenantOf, type Query } from './monitoring-http.js';
import { changelogView } from './monitoring-views.js';
import { pageOfSorted } from './static-pages.js';

function milliseconds(query: Query, name: string): number | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d{1,16}$/.test(text) || !Number.isSafeInteger(value)) {
    throw new StrataError('QUERY_INVALID', `parameter '${name}' must be integer milliseconds since 1970`, { parameter: name, value: text });
  }
  return value;
}

/** Registers GET /changelogs/alarms, /monitoring_zones and /monitoring_zones/:zoneId. */
export function registerChangelogRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, `${MONITORING_BASE}/changelogs/alarms`, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const query = request.query as Query;
        const page = pageRequest(request);
        const entityId = single(query, 'entityId');
        const fromMs = milliseconds(query, 'from');
        const toMs = milliseconds(query, 'to');
        const asked = { ...page, ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}), ...(entityId !== undefined ? { entityId } : {}) };
        // The window is resolved once: this page and the next link use the same one, even when `to` defaulted to now.
        const window = monitoring.changelogs.window(asked);
        const found = monitoring.changelogs.list(tenantOf(request), { ...asked, ...window });
        return sendList(context, request, reply, found, page, changelogView, { from: String(window.fromMs), to: String(window.toMs) });
      },
    },
  });
  defineResource(app, `${MONITORING_BASE}/monitoring_zones`, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(monitoring.zones, page, (zone) => zone.id), page, (zone) => zone);
      },
    },
  });
  defineResource(app, `${MONITORING_BASE}/monitoring_zones/:zoneId`, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const id = param(request, 'zoneId');
        const zone = monitoring.zones.find((candidate) => candidate.id === id);
        if (zone === undefined) throw notFound('MonitoringZone', id);
        return sendJson(reply, zone);
      },
    },
  });
}
