// Owns GET /views/overview: each entity with its checks, alarms and latest alarm states, paged by entity id.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AlarmStateRow } from '../../../monitoring/alarms/alarm-state-store.js';
import { OVERVIEW_ENTITY_FILTER_MAX, OVERVIEW_LIMIT_DEFAULT, OVERVIEW_LIMIT_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { MonitoringOverview, type OverviewItem, type OverviewRequest } from '../../../monitoring/overview.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { alarmView, checkView, entityView, suppressionLookup, type SuppressionLookup } from './monitoring-views.js';

/** The overview's query string: paging (a smaller page than other lists: each entity carries its checks and alarms) and an entity filter. */
const OVERVIEW_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: OVERVIEW_LIMIT_MAX, description: `Entities per page, 1 to ${OVERVIEW_LIMIT_MAX} (default ${OVERVIEW_LIMIT_DEFAULT}).` },
    marker: { type: 'string', description: 'Id of the first entity of the page (next_marker of the page before).' },
    entityId: {
      type: 'array',
      maxItems: OVERVIEW_ENTITY_FILTER_MAX,
      items: { type: 'string', minLength: 1 },
      description: `Only these entities (repeatable, at most ${OVERVIEW_ENTITY_FILTER_MAX}); ids of no entity are skipped.`,
    },
  },
} as const;

/** One latest alarm state: a changelog entry's fields plus the criteria's status message. */
export function alarmStateView(state: AlarmStateRow): Record<string, unknown> {
  return {
    timestamp: state.timestampMs,
    entity_id: state.entityId,
    alarm_id: state.alarmId,
    check_id: state.checkId,
    state: state.state,
    previous_state: state.previousState,
    status: state.status,
    analyzed_by_monitoring_zone_id: state.zoneId,
  };
}

/** One overview value: the entity, its checks and alarms as their GET routes render them (suppression ids from `suppressions`), and latest_alarm_states. */
export function overviewView(item: OverviewItem, suppressions: SuppressionLookup): Record<string, unknown> {
  return {
    entity: entityView(item.entity, suppressions),
    checks: item.checks.map((check) => checkView(check, suppressions)),
    alarms: item.alarms.map((alarm) => alarmView(alarm, suppressions)),
    latest_alarm_states: item.states.map(alarmStateView),
  };
}

function overviewRequest(request: FastifyRequest): OverviewRequest {
  const { limit, marker, entityId } = request.query as { limit?: number; marker?: string; entityId?: string[] };
  return {
    limit: limit ?? OVERVIEW_LIMIT_DEFAULT,
    ...(marker !== undefined && marker !== '' ? { marker } : {}),
    ...(entityId !== undefined ? { entityIds: entityId } : {}),
  };
}

/** Registers GET /views/overview. */
export function registerOverviewRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const overview = new MonitoringOverview(monitoring, context.runtime.alarms.states);
  defineResource(app, '/:tenant/views/overview', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'Each entity with its checks, alarms and latest alarm states, paged by entity id', params: pathParams(), querystring: OVERVIEW_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const asked = overviewRequest(request);
        const tenant = tenantOf(request);
        const suppressions = suppressionLookup(monitoring, tenant);
        return sendList(context, request, reply, overview.page(tenant, asked), asked, (item) => overviewView(item, suppressions));
      },
    },
  });
}
