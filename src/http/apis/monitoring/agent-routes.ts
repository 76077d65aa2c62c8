// Owns the agent routes (operations 1 to 4) and the agent token collection.
import type { FastifyInstance } from 'fastify';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud, READ_RULES } from './crud-routes.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import { sendJson } from '../../json-reply.js';
import { PAGE_QUERY_SCHEMA, pageRequest, param, sendList, tenantOf, LIST_RESPONSE } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { agentTokenView, agentView, connectionView } from './monitoring-views.js';

/** Registers /agents, /agents/:agentId, its connections, and /agent_tokens. */
export function registerAgentRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  const agents = monitoring.agents;
  defineResource(app, '/:tenant/agents', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'List agents (operation 1)', params: pathParams(), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, agents.listAgents(tenantOf(request), page), page, agentView);
      },
    },
  });
  defineResource(app, '/:tenant/agents/:agentId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One agent (operation 2)', params: pathParams('agentId') },
      handler: async (request, reply) => sendJson(reply, agentView(agents.agent(tenantOf(request), param(request, 'agentId')))),
    },
  });
  defineResource(app, '/:tenant/agents/:agentId/connections', {
    GET: {
      rules: READ_RULES,
      schema: { summary: "List an agent's connections (operation 3)", params: pathParams('agentId'), querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, agents.listConnections(tenantOf(request), param(request, 'agentId'), page), page, connectionView);
      },
    },
  });
  defineResource(app, '/:tenant/agents/:agentId/connections/:connectionId', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'One agent connection (operation 4)', params: pathParams('agentId', 'connectionId') },
      handler: async (request, reply) =>
        sendJson(reply, connectionView(agents.connection(tenantOf(request), param(request, 'agentId'), param(request, 'connectionId')))),
    },
  });
  defineCrud(app, context, {
    path: '/agent_tokens',
    idParam: 'tokenId',
    noun: 'agent token',
    bodies: MONITORING_BODY_SCHEMAS.agentToken,
    itemPath: (_request, id) => `agent_tokens/${id}`,
    list: (tenant, _request, page) => agents.listTokens(tenant, page),
    get: (tenant, _request, id) => agents.token(tenant, id),
    create: (tenant, _request, body) => agents.createToken(tenant, body),
    update: (tenant, _request, id, body) => agents.updateToken(tenant, id, body),
    remove: (tenant, _request, id) => agents.deleteToken(tenant, id),
    render: agentTokenView,
  });
}
