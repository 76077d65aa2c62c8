// Owns the test notification routes: POST /test-notification (an unsaved notification, sent without the account's webhook token) and POST /notifications/{id}/test (a saved one, sent as real deliveries are).
import type { FastifyInstance } from 'fastify';
import { REDACTED_SECRET } from '../../../monitoring/detail-secrets.js';
import type { DeliveryNotification } from '../../../monitoring/delivery/deliverer.js';
import { fieldError } from '../../../monitoring/monitoring-errors.js';
import { MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { notificationDoc } from '../../../monitoring/notification-rules.js';
import { isSecretNotificationDetail } from '../../../monitoring/notification-secrets.js';
import type { JsonSchema } from '../../../monitoring/schemas/json-schema.js';
import { NOTIFICATION_CREATE_SCHEMA, type NotificationCreate } from '../../../monitoring/schemas/notification-schema.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { param, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** A test sends a notification, with its secrets: a role that may write, like the reference's other POSTs. */
const TEST_RULES: RouteRules = { access: 'write' };

/** The answer of both test routes. */
const TEST_RESPONSE = {
  200: {
    type: 'object',
    required: ['status', 'message', 'notification_type', 'duration_ms', 'transaction_id'],
    properties: {
      status: { type: 'string', enum: ['success', 'failure'] },
      message: { type: 'string' },
      notification_type: { type: 'string' },
      duration_ms: { type: 'integer' },
      transaction_id: { type: 'string' },
    },
  },
} as const;

/** The body of POST /test-notification: a notification create body whose label may be left out. */
const TEST_NOTIFICATION_SCHEMA: JsonSchema = {
  ...NOTIFICATION_CREATE_SCHEMA,
  required: ['type'],
  description:
    "A notification that need not exist: one test message is sent to it now, and nothing is stored. A webhook test carries no account webhook token (the header is empty); test a saved notification to send the token.",
  examples: [{ type: 'webhook', details: { url: 'https://hooks.example.com/monitoring' } }, { type: 'email', details: { address: 'ops@example.com' }, label: 'Ops mailbox' }],
};

/** The body of POST /notifications/{id}/test: none, or an empty object (the saved notification is the whole request). */
const SAVED_TEST_BODY_SCHEMA: JsonSchema = {
  // null: a request without a body (fastify validates it as null).
  type: ['object', 'null'],
  additionalProperties: false,
  maxProperties: 0,
  description: 'No body, or {}: the saved notification is tested as it is stored.',
  examples: [{}],
};

/** A test body as a notification to send: the create rules apply; a redacted secret has nothing stored to stand for. */
function testedNotification(body: NotificationCreate): DeliveryNotification {
  const doc = notificationDoc({ ...body, label: body.label ?? 'Test notification' });
  for (const [name, value] of Object.entries(doc.details)) {
    if (value === REDACTED_SECRET && isSecretNotificationDetail(doc.type, name)) throw fieldError(`details.${name}`, `${REDACTED_SECRET} stands for a stored secret, and a test notification has none; send the secret itself`);
  }
  return { id: 'test', label: doc.label, type: doc.type, details: doc.details };
}

/** Registers POST /test-notification and POST /notifications/{id}/test. */
export function registerTestNotificationRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  defineResource(app, '/:tenant/test-notification', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: {
        summary: 'Send one test message now to a notification that need not exist (without the account webhook token); answers the outcome of the attempt',
        params: pathParams(),
        body: TEST_NOTIFICATION_SCHEMA,
        response: TEST_RESPONSE,
      },
      handler: async (request, reply) => {
        const notification = testedNotification(request.body as NotificationCreate);
        return sendJson(reply, await context.runtime.testNotifications.send(tenantOf(request), notification, 'unsaved'));
      },
    },
  });
  defineResource(app, '/:tenant/notifications/:notificationId/test', {
    POST: {
      rules: TEST_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: {
        summary: 'Send one test message now to a saved notification, as its real deliveries are sent; answers the outcome of the attempt',
        params: pathParams('notificationId'),
        body: SAVED_TEST_BODY_SCHEMA,
        response: TEST_RESPONSE,
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const stored = monitoring.notifications.notificationWithSecrets(tenant, param(request, 'notificationId'));
        const notification = { id: stored.id, label: stored.doc.label, type: stored.doc.type, details: stored.doc.details };
        return sendJson(reply, await context.runtime.testNotifications.send(tenant, notification, 'saved'));
      },
    },
  });
}
