// Owns the reference's read-only control surface: check types, alarm examples (and filling one) and the alarmsByNp view.
import type { FastifyInstance } from 'fastify';
import { alarmExample, ALARM_EXAMPLES } from '../../../monitoring/control/alarm-examples.js';
import { fillExample } from '../../../monitoring/control/alarm-example-fill.js';
import { AlarmsByPlan, alarmOfPlanView } from '../../../monitoring/control/alarms-by-plan.js';
import { checkType, checkTypes } from '../../../monitoring/control/check-type-catalogue.js';
import { notFound } from '../../../monitoring/monitoring-errors.js';
import { ALARM_EXAMPLE_VALUES_MAX, MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import type { JsonSchema } from '../../../monitoring/schemas/json-schema.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, PAGE_QUERY_SCHEMA, pageRequest, param, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { pageOfSorted } from './static-pages.js';

/** The body of POST /alarm_examples/{id}: each field's value by name; the example's own fields decide names and types. */
const FILL_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['values'],
  description: "Values of the example's fields by name: strings for string fields, whole numbers (JSON numbers or strings of digits) for integer fields.",
  properties: {
    values: { type: 'object', maxProperties: ALARM_EXAMPLE_VALUES_MAX, description: `The value of every field of the example, at most ${ALARM_EXAMPLE_VALUES_MAX} keys.` },
  },
  examples: [{ values: { critical_threshold: 90, warning_threshold: '80' } }],
};

/** GET /check_types and /check_types/{checkTypeId}. */
function registerCheckTypes(app: FastifyInstance, context: ServerContext): void {
  defineResource(app, '/:tenant/check_types', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List the check types Strata runs, with their fields and metrics', params: pathParams(), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(checkTypes(), page, (type) => type.id), page, (type) => type);
      },
    },
  });
  defineResource(app, '/:tenant/check_types/:checkTypeId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One check type', params: pathParams('checkTypeId') },
      handler: async (request, reply) => {
        const id = param(request, 'checkTypeId');
        const found = checkType(id);
        if (found === undefined) throw notFound('CheckType', id);
        return sendJson(reply, found);
      },
    },
  });
}

/** GET /alarm_examples, GET /alarm_examples/{alarmExampleId} and POST /alarm_examples/{alarmExampleId} (fill). */
function registerAlarmExamples(app: FastifyInstance, context: ServerContext): void {
  const exampleOf = (id: string) => {
    const found = alarmExample(id);
    if (found === undefined) throw notFound('AlarmExample', id);
    return found;
  };
  defineResource(app, '/:tenant/alarm_examples', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List the alarm examples: criteria templates for the check types Strata runs', params: pathParams(), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, pageOfSorted(ALARM_EXAMPLES, page, (example) => example.id), page, (example) => example);
      },
    },
  });
  defineResource(app, '/:tenant/alarm_examples/:alarmExampleId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One alarm example', params: pathParams('alarmExampleId') },
      handler: async (request, reply) => sendJson(reply, exampleOf(param(request, 'alarmExampleId'))),
    },
    POST: {
      // Filling a template stores nothing: whoever may read the examples may fill them.
      rules: READ_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: "Fill an alarm example's fields and get criteria the alarm language accepts", params: pathParams('alarmExampleId'), body: FILL_SCHEMA },
      handler: async (request, reply) => {
        const example = exampleOf(param(request, 'alarmExampleId'));
        const { values } = request.body as { values: Readonly<Record<string, unknown>> };
        return sendJson(reply, { bound_criteria: fillExample(example, values) });
      },
    },
  });
}

/** Registers the routes this file owns on the monitoring scope. */
export function registerControlRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  registerCheckTypes(app, context);
  registerAlarmExamples(app, context);
  const view = new AlarmsByPlan({ db: monitoring.store.db, plan: (tenant, planId) => monitoring.notifications.plan(tenant, planId) });
  defineResource(app, '/:tenant/views/alarmsByNp/:notificationPlanId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List the alarms that use a notification plan', params: pathParams('notificationPlanId'), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, view.page(tenantOf(request), param(request, 'notificationPlanId'), page), page, alarmOfPlanView);
      },
    },
  });
}
