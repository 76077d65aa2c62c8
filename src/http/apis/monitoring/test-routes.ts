// Owns test-check, test of a saved check and test-alarm: run checks once and evaluate criteria without storing anything (or, with from/to, backtest them over stored observations).
import type { FastifyInstance } from 'fastify';
import { testAlarm } from '../../../monitoring/alarms/test-alarm.js';
import type { CheckResult } from '../../../monitoring/check-result.js';
import { checkDoc, type CheckDoc } from '../../../monitoring/check-rules.js';
import type { StoredDoc } from '../../../monitoring/doc-store.js';
import type { EntityDoc } from '../../../monitoring/entity-rules.js';
import { fieldError } from '../../../monitoring/monitoring-errors.js';
import { CRITERIA_LENGTH_MAX, MONITORING_BODY_BYTES_MAX, TEST_ALARM_CHECK_DATA_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import type { CheckCreate } from '../../../monitoring/schemas/check-schema.js';
import type { JsonSchema } from '../../../monitoring/schemas/json-schema.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { answerBacktest, asksForWindow, BACKTEST_QUERY_SCHEMA, BACKTEST_RULES, BACKTEST_WINDOW_PROPERTIES } from './backtest-routes.js';
import { checkResultOf, checkResultView, CHECK_RESULT_SCHEMA, type CheckResultBody } from './check-result-view.js';
import { pageRequest, param, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** Tests run checks and may send their secrets: a role that may write, like the reference's other POSTs. */
const TEST_RULES: RouteRules = { access: 'write' };
/**
 * test-alarm's rules: those of a backtest (write access, admitted as query work) in every mode.
 * Admission is decided when the request arrives, before its body says which mode it is, and the
 * backtest mode's engine reads run in the query queue, which only admitted requests may rely on.
 * Charging the other modes too is cheap: the charge is one in-flight request of the tenant's query
 * budget while it runs, and they are short (check_data evaluates at most TEST_ALARM_CHECK_DATA_MAX
 * results; check_id waits for one test run, of which a tenant has at most TEST_RUNS_PER_TENANT_MAX).
 */
const TEST_ALARM_RULES: RouteRules = BACKTEST_RULES;

/** The body of POST /entities/{entityId}/test-alarm. */
const TEST_ALARM_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['criteria'],
  description:
    'Criteria to evaluate against check_data (results as test-check returns them) or against a fresh run of the check check_id; exactly one of the two. ' +
    "With check_id and from and/or to (here or in the query string), the criteria are backtested over the check's stored observations instead, answered as the alarm backtest answers.",
  properties: {
    criteria: { type: 'string', minLength: 1, maxLength: CRITERIA_LENGTH_MAX, description: 'Alarm criteria in the alarm language.' },
    check_data: { type: 'array', minItems: 1, maxItems: TEST_ALARM_CHECK_DATA_MAX, items: CHECK_RESULT_SCHEMA, description: `Check results, at most ${TEST_ALARM_CHECK_DATA_MAX}, evaluated in order.` },
    check_id: { type: 'string', minLength: 1, description: 'A check of the entity to run once now and evaluate, or whose stored observations to replay (with from/to).' },
    ...BACKTEST_WINDOW_PROPERTIES,
  },
  examples: [
    {
      criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); } return new AlarmStatus(OK);",
      check_data: [
        {
          timestamp: 1790000000000,
          monitoring_zone_id: 'mzdfw',
          available: true,
          status: 'code=503,rt=0.012s,bytes=0',
          metrics: { code: { type: 's', data: '503', unit: 'unknown' }, duration: { type: 'I', data: 12, unit: 'milliseconds' } },
        },
      ],
    },
    { criteria: "if (metric['duration'] > 2000) { return new AlarmStatus(WARNING, 'slow'); } return new AlarmStatus(OK);", check_id: 'chAb3dE9xQ' },
    { criteria: ":set consecutiveCount=2\nif (metric['code'] != '200') { return new AlarmStatus(CRITICAL); } return new AlarmStatus(OK);", check_id: 'chAb3dE9xQ', from: 1790000000000, to: 1790086400000 },
  ],
};

interface TestAlarmBody {
  readonly criteria: string;
  readonly check_data?: readonly CheckResultBody[];
  readonly check_id?: string;
}

/** The answer of every test: the results in the reference shape. */
function sendResults(reply: Parameters<typeof sendJson>[0], results: readonly CheckResult[]): ReturnType<typeof sendJson> {
  return sendJson(reply, results.map(checkResultView));
}

/** Registers POST /entities/:entityId/test-check, /entities/:entityId/checks/:checkId/test and /entities/:entityId/test-alarm. */
export function registerTestRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const zoneIds = monitoring.zones.map((zone) => zone.id);
  /**
   * Runs a check once from its zones; a type this server has no probe for (agent checks) is refused
   * rather than answered with no results. The run takes a test run slot (TEST_RUNS_CONCURRENCY_MAX in
   * the server, TEST_RUNS_PER_TENANT_MAX per tenant): with none free it is refused at once with
   * MONITORING_TEST_RUNS_BUSY (503, Retry-After), after the request was otherwise found valid.
   */
  const runChecked = (tenant: string, entity: StoredDoc<EntityDoc>, doc: CheckDoc): Promise<CheckResult[]> => {
    if (!context.runtime.checks.runs(doc.type)) throw fieldError('type', `${doc.type} checks do not run from monitoring zones; test-check runs remote checks`);
    return context.runtime.testRuns.run(tenant, entity, doc);
  };
  /** Runs a saved check of the entity once, secrets in plaintext (they are sent to the target, never answered). */
  const runSaved = (tenant: string, entityId: string, checkId: string): Promise<CheckResult[]> => {
    const check = monitoring.entities.checkWithSecrets(tenant, entityId, checkId);
    const entity = monitoring.entities.entity(tenant, entityId);
    return runChecked(tenant, entity, check.doc);
  };

  defineResource(app, '/:tenant/entities/:entityId/test-check', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Run a check once from its zones without storing it or its results', params: pathParams('entityId'), body: MONITORING_BODY_SCHEMAS.check.create },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const entity = monitoring.entities.entity(tenant, param(request, 'entityId'));
        // The same rules as a create, against this entity's addresses: a test of a check that could not be created is refused alike.
        const doc = checkDoc(request.body as CheckCreate, { zoneIds, addressNames: Object.keys(entity.doc.ip_addresses) });
        return sendResults(reply, await runChecked(tenant, entity, doc));
      },
    },
  });
  defineResource(app, '/:tenant/entities/:entityId/checks/:checkId/test', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Run a saved check once from its zones without storing the results', params: pathParams('entityId', 'checkId') },
      handler: async (request, reply) => sendResults(reply, await runSaved(tenantOf(request), param(request, 'entityId'), param(request, 'checkId'))),
    },
  });
  defineResource(app, '/:tenant/entities/:entityId/test-alarm', {
    POST: {
      rules: TEST_ALARM_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: {
        summary: 'Evaluate alarm criteria against given check results or a fresh run of a check (consecutiveCount counts as 1), or backtest them over stored observations (from/to)',
        params: pathParams('entityId'),
        querystring: BACKTEST_QUERY_SCHEMA,
        body: TEST_ALARM_SCHEMA,
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const entityId = param(request, 'entityId');
        const body = request.body as TestAlarmBody;
        if ((body.check_data === undefined) === (body.check_id === undefined)) throw fieldError('check_data', 'give exactly one of check_data and check_id');
        if (asksForWindow(request)) {
          // Criteria not saved have no plan: the backtest lists their changes and notifies nothing.
          if (body.check_id === undefined) throw fieldError('check_id', 'from and to backtest the stored observations of a check: give check_id, not check_data');
          const checkId = body.check_id;
          const check = monitoring.entities.check(tenant, entityId, checkId);
          const subject = [tenant, 'criteria', entityId, check.id, check.updatedMs, check.doc, body.criteria];
          return answerBacktest(context, request, reply, subject, (window) => context.backtests.ofCriteria(tenant, entityId, checkId, body.criteria, window));
        }
        // A marker pages a backtest (and spares the test_alarm bucket): without a window it has nothing to page.
        if (pageRequest(request).marker !== undefined) throw fieldError('marker', 'pages a backtest: give from and/or to with check_id, or leave the marker out');
        let results: CheckResult[];
        if (body.check_data !== undefined) {
          monitoring.entities.entity(tenant, entityId);
          const nowMs = context.clock.now();
          results = body.check_data.map((item, index) => checkResultOf(item, index, nowMs));
        } else {
          results = await runSaved(tenant, entityId, body.check_id as string);
        }
        return sendJson(reply, testAlarm(body.criteria, results));
      },
    },
  });
}
