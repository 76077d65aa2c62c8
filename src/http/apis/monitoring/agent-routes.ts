// Owns the agent routes (operations 1 to 4), the agents' live host info, and the agent token collection.
import type { FastifyInstance } from 'fastify';
import { HOST_INFO_TYPES, type HostInfoType } from '../../../agent/protocol/messages.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { defineResource } from '../../route-table.js';
import type { ServerContext } from '../../server-context.js';
import { defineCrud, READ_RULES } from './crud-routes.js';
import { MONITORING_BODY_SCHEMAS } from '../../../monitoring/schemas/monitoring-body-schemas.js';
import { sendJson } from '../../json-reply.js';
import { PAGE_QUERY_SCHEMA, pageRequest, param, sendList, tenantOf, LIST_RESPONSE } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';
import { agentTokenView, agentView, connectionView } from './monitoring-views.js';

/** Path parameters of a host info read: the agent and one of HOST_INFO_TYPES (another type is the schema's 400). */
function hostInfoParams(): ReturnType<typeof pathParams> {
  const params = pathParams('agentId', 'type');
  params.properties.type = { type: 'string', enum: [...HOST_INFO_TYPES], description: 'The kind of host information.' };
  return params;
}

/**
 * Registers the live host info reads: the agent must be the tenant's (404 otherwise, as operation 2), and is asked over
 * its connection (400 MONITORING_AGENT_NOT_CONNECTED without one, 503 AGENT_REQUEST_TIMEOUT without an answer in time).
 */
function registerHostInfoRoutes(app: FastifyInstance, monitoring: MonitoringService): void {
  const { agents, hostInfo } = monitoring;
  defineResource(app, '/:tenant/agents/:agentId/host_info_types', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'The host info types a connected agent reads', params: pathParams('agentId') },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const agentId = param(request, 'agentId');
        agents.agent(tenant, agentId);
        return sendJson(reply, await hostInfo.types(tenant, agentId, monitoring.clock.now()));
      },
    },
  });
  defineResource(app, '/:tenant/agents/:agentId/host_info/:type', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'Live host info of a connected agent (cpus, disks, filesystems, memory, network_interfaces, processes, system, who)', params: hostInfoParams() },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const agentId = param(request, 'agentId');
        agents.agent(tenant, agentId);
        return sendJson(reply, await hostInfo.get(tenant, agentId, param(request, 'type') as HostInfoType));
      },
    },
  });
}

/** Registers /agents, /agents/:agentId, its connections, its host info, and /agent_tokens. */
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
  registerHostInfoRoutes(app, monitoring);
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
