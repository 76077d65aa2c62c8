// Owns the account settings routes: GET and PUT /account, POST /account/webhook_token (admins of the tenant only).
import type { FastifyInstance } from 'fastify';
import type { AccountSettings } from '../../../monitoring/account/account-service.js';
import { ACCOUNT_UPDATE_SCHEMA, type AccountUpdate } from '../../../monitoring/account/account-schema.js';
import { MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { objectUrl, sendNoContent, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** The account shows the webhook token: only the tenant's admins may read or change it. */
const ADMIN_RULES: RouteRules = { access: 'admin' };

/** Path of the account under the tenant. */
const ACCOUNT_PATH = 'account';

/** The account as GET /account shows it (times in integer ms). */
export function accountView(account: AccountSettings): Record<string, unknown> {
  return {
    id: account.id,
    technical_contacts: account.technicalContacts,
    webhook_token: account.webhookToken,
    metadata: account.metadata,
    created_at: account.createdMs,
    updated_at: account.updatedMs,
  };
}

/** Registers /account and /account/webhook_token. */
export function registerAccountRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const accounts = monitoring.account;
  defineResource(app, `/:tenant/${ACCOUNT_PATH}`, {
    GET: {
      rules: ADMIN_RULES,
      schema: { summary: 'The account settings: technical contacts, webhook token, metadata (admins only)', params: pathParams() },
      handler: async (request, reply) => sendJson(reply, accountView(accounts.account(tenantOf(request)))),
    },
    PUT: {
      rules: ADMIN_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Update the account settings (fields left out keep their value; admins only)', params: pathParams(), body: ACCOUNT_UPDATE_SCHEMA },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        accounts.updateAccount(tenant, request.body as AccountUpdate);
        return sendNoContent(reply, objectUrl(context, tenant, ACCOUNT_PATH));
      },
    },
  });
  defineResource(app, `/:tenant/${ACCOUNT_PATH}/webhook_token`, {
    POST: {
      rules: ADMIN_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: 'Replace the webhook token with a generated one; answers the account with it (admins only)', params: pathParams() },
      handler: async (request, reply) => sendJson(reply, accountView(accounts.rotateWebhookToken(tenantOf(request)))),
    },
  });
}
