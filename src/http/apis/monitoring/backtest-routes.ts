// Owns the alarm backtest route and the backtest answer (shared with test-alarm's from/to mode): a saved alarm replayed over its check's stored observations, next pages cut from the kept report.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type BacktestChange, type BacktestReport, type BacktestWindowRequest } from '../../../monitoring/backtest/backtest-service.js';
import { markerOrdinal, pageOfChanges } from '../../../monitoring/backtest/backtest-page.js';
import { fieldError } from '../../../monitoring/monitoring-errors.js';
import { BACKTEST_DEFAULT_SPAN_MS, BACKTEST_RANGE_MS_MAX, MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import type { PageRequest } from '../../../monitoring/paging.js';
import type { TimeWindow } from '../../../monitoring/time-series.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { PAGE_QUERY_PROPERTIES, pageRequest, param, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/**
 * The rules of every backtest (the alarm backtest and test-alarm): a replay is a test, so it needs
 * a role that may write, like test-alarm (an observer cannot use up the tenant's test_alarm
 * budget); it reads a lot, so it is admitted as query work, and each engine read runs in the query
 * queue.
 */
export const BACKTEST_RULES: RouteRules = { access: 'write', work: 'query' };

/** The window fields, in the body or the query string. */
export const BACKTEST_WINDOW_PROPERTIES = {
  from: { type: 'integer', minimum: 0, description: `Start of the replayed range, integer ms since 1970, inclusive (default: ${BACKTEST_DEFAULT_SPAN_MS} ms before to).` },
  to: { type: 'integer', minimum: 0, description: `End of the replayed range, integer ms, exclusive (default: just after now); the range is at most ${BACKTEST_RANGE_MS_MAX} ms.` },
} as const;

/** The query string of a backtest: paging (the marker is a change's ordinal) and the window. */
export const BACKTEST_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    limit: PAGE_QUERY_PROPERTIES.limit,
    marker: { type: 'string', description: 'Ordinal of the first change of the page (next_marker of the page before).' },
    ...BACKTEST_WINDOW_PROPERTIES,
  },
} as const;

const BACKTEST_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'The range to replay; from and to may also be given in the query string (next_href does), and must then agree.',
  properties: BACKTEST_WINDOW_PROPERTIES,
  examples: [{ from: 1790000000000, to: 1790086400000 }],
} as const;

const CHANGE_SCHEMA = {
  type: 'object',
  properties: {
    timestamp: { type: 'integer' },
    state: { type: 'string', enum: ['OK', 'WARNING', 'CRITICAL'] },
    previous_state: { type: ['string', 'null'] },
    status: { type: 'string' },
    zone_id: { type: ['string', 'null'] },
    notification_status: { type: 'string', enum: ['silent', 'none', 'suppressed', 'notified'] },
    notifications: { type: 'array', items: { type: 'object', properties: { notification_id: { type: 'string' }, notification_type: { type: ['string', 'null'] } } } },
    suppressed_by: { type: 'array', items: { type: 'string' } },
  },
} as const;

const RANGE_SCHEMA = { type: 'object', properties: { from: { type: 'integer' }, to: { type: 'integer' } } } as const;

/** The 200 answer of a backtest, for the OpenAPI document (sent as text). */
export const BACKTEST_RESPONSE = {
  200: {
    type: 'object',
    required: ['values', 'metadata', 'totals', 'replayed', 'unreplayed'],
    properties: {
      values: { type: 'array', items: CHANGE_SCHEMA },
      metadata: {
        type: 'object',
        properties: { count: { type: 'integer' }, limit: { type: 'integer' }, marker: { type: ['string', 'null'] }, next_marker: { type: ['string', 'null'] }, next_href: { type: ['string', 'null'] } },
      },
      totals: { type: 'object', properties: { OK: { type: 'integer' }, WARNING: { type: 'integer' }, CRITICAL: { type: 'integer' }, observations: { type: 'integer' } } },
      replayed: RANGE_SCHEMA,
      unreplayed: { type: 'array', items: { type: 'object', properties: { ...RANGE_SCHEMA.properties, reason: { type: 'string' } } } },
    },
  },
} as const;

interface WindowFields {
  readonly from?: number;
  readonly to?: number;
}

/** The window of a request: each end from the body or the query string (MONITORING_FIELD_INVALID when both give it differently). */
export function backtestWindowOf(request: FastifyRequest): BacktestWindowRequest {
  const body = (request.body ?? {}) as WindowFields;
  const query = request.query as WindowFields;
  for (const key of ['from', 'to'] as const) {
    if (body[key] !== undefined && query[key] !== undefined && body[key] !== query[key]) throw fieldError(key, 'differs between the body and the query string');
  }
  const fromMs = body.from ?? query.from;
  const toMs = body.to ?? query.to;
  return { ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}) };
}

/** True when a request gives either end of a window (test-alarm then backtests). */
export function asksForWindow(request: FastifyRequest): boolean {
  const window = backtestWindowOf(request);
  return window.fromMs !== undefined || window.toMs !== undefined;
}

function changeView(change: BacktestChange): Record<string, unknown> {
  return {
    timestamp: change.timestampMs,
    state: change.state,
    previous_state: change.previousState,
    status: change.status,
    zone_id: change.zoneId,
    notification_status: change.notificationStatus,
    notifications: change.notifications.map((n) => ({ notification_id: n.id, notification_type: n.type })),
    suppressed_by: change.suppressedBy,
  };
}

/** The link to the next page: the same path and query, the resolved window, the same limit, the next marker (as sendList builds it). */
function nextHref(context: ServerContext, request: FastifyRequest, report: BacktestReport, page: PageRequest, nextMarker: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (['limit', 'marker', 'from', 'to'].includes(key) || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
  }
  params.set('from', String(report.window.fromMs));
  params.set('to', String(report.window.toMs));
  params.set('limit', String(page.limit));
  params.set('marker', nextMarker);
  return `${context.publicUrl()}${request.url.split('?')[0] ?? ''}?${params.toString()}`;
}

/** Sends one page of a backtest: `values` and `metadata` as every list, plus the totals and the replayed and unreplayed parts of the window. */
export function sendBacktest(context: ServerContext, request: FastifyRequest, reply: FastifyReply, report: BacktestReport, page: PageRequest): FastifyReply {
  const shown = pageOfChanges(report.changes, page);
  return sendJson(reply, {
    values: shown.values.map(changeView),
    metadata: {
      count: shown.values.length,
      limit: page.limit,
      marker: page.marker ?? null,
      next_marker: shown.nextMarker,
      next_href: shown.nextMarker === null ? null : nextHref(context, request, report, page, shown.nextMarker),
    },
    totals: report.totals,
    replayed: { from: report.replayed.fromMs, to: report.replayed.toMs },
    unreplayed: report.unreplayed.map((part) => ({ from: part.fromMs, to: part.toMs, reason: part.reason })),
  });
}

/**
 * Answers a backtest request with one page. A next page (a marker and both ends of the window, as
 * next_href gives them) is cut from the report of the replay that answered an earlier page of the
 * same subject and window, while it is kept (BACKTEST_REPORT_TTL_MS); any other request replays
 * and keeps its report. `subject` names what is replayed: the tenant and the saved objects the
 * replay starts from (their docs, so an edited alarm or check replays again).
 */
export async function answerBacktest(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  subject: readonly unknown[],
  replay: (window: BacktestWindowRequest) => Promise<BacktestReport>,
): Promise<FastifyReply> {
  const page = pageRequest(request);
  markerOrdinal(page.marker);
  const asked = backtestWindowOf(request);
  const cache = context.backtests.reports;
  const keyOf = (window: TimeWindow): string => JSON.stringify([...subject, window.fromMs, window.toMs]);
  const { fromMs, toMs } = asked;
  let report = page.marker !== undefined && fromMs !== undefined && toMs !== undefined ? cache.get(keyOf({ fromMs, toMs }), context.clock.now()) : undefined;
  if (report === undefined) {
    report = await replay(asked);
    cache.put(keyOf(report.window), report, context.clock.now());
  }
  return sendBacktest(context, request, reply, report, page);
}

/** Registers POST /entities/:entityId/alarms/:alarmId/backtest. */
export function registerBacktestRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, '/:tenant/entities/:entityId/alarms/:alarmId/backtest', {
    POST: {
      rules: BACKTEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      // next_href carries the window in the query string: a POST to it may come without a body.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
      schema: {
        summary: "Replay an alarm over its check's stored observations: the state changes and notifications it would have produced",
        params: pathParams('entityId', 'alarmId'),
        querystring: BACKTEST_QUERY_SCHEMA,
        body: BACKTEST_BODY_SCHEMA,
        response: BACKTEST_RESPONSE,
      },
      handler: async (request, reply) => {
        const [tenant, entityId, alarmId] = [tenantOf(request), param(request, 'entityId'), param(request, 'alarmId')];
        const alarm = monitoring.entities.alarm(tenant, entityId, alarmId);
        const check = monitoring.entities.check(tenant, entityId, alarm.doc.check_id);
        const subject = [tenant, 'alarm', entityId, alarm.id, alarm.updatedMs, alarm.doc, check.id, check.updatedMs, check.doc];
        return answerBacktest(context, request, reply, subject, (window) => context.backtests.ofAlarm(tenant, entityId, alarmId, window));
      },
    },
  });
}
