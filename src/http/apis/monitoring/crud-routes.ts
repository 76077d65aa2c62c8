// Owns registering one monitoring collection: list and create on the collection, get, update, delete on items.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { Page, PageRequest } from '../../../monitoring/paging.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { jsonBody, MONITORING_BASE, objectUrl, pageRequest, param, sendCreated, sendJson, sendList, sendNoContent, tenantOf } from './monitoring-http.js';

/** Reads are open to every role of the tenant; observers may read. */
export const READ_RULES: RouteRules = { access: 'read' };
/** Writes need a role that may write, and a JSON body when one is sent. */
export const WRITE_RULES: RouteRules = { access: 'write', bodyTypes: [JSON_TYPE] };

/** One collection: its paths and the service calls behind each method. */
export interface CrudSpec<T> {
  /** Collection path under the base, e.g. `/entities/:entityId/checks`. */
  readonly path: string;
  /** Name of the item id parameter, e.g. `checkId`. */
  readonly idParam: string;
  /** Path of an item under the tenant, for Location, e.g. `entities/en1/checks/ch1`. */
  itemPath(request: FastifyRequest, id: string): string;
  list(tenant: string, request: FastifyRequest, page: PageRequest): Page<T>;
  get(tenant: string, request: FastifyRequest, id: string): T;
  create(tenant: string, request: FastifyRequest, body: unknown): string;
  update(tenant: string, request: FastifyRequest, id: string, body: unknown): void;
  remove(tenant: string, request: FastifyRequest, id: string): void;
  render(item: T): unknown;
}

/** Registers GET/POST on the collection and GET/PUT/DELETE on its items (405 with Allow for the rest). */
export function defineCrud<T>(app: FastifyInstance, context: ServerContext, spec: CrudSpec<T>): void {
  const collection = `${MONITORING_BASE}${spec.path}`;
  const item = `${collection}/:${spec.idParam}`;
  defineResource(app, collection, {
    GET: {
      rules: READ_RULES,
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, spec.list(tenantOf(request), request, page), page, (value) => spec.render(value));
      },
    },
    POST: {
      rules: WRITE_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const id = spec.create(tenant, request, jsonBody(request));
        return sendCreated(reply, objectUrl(context, tenant, spec.itemPath(request, id)), id);
      },
    },
  });
  defineResource(app, item, {
    GET: { rules: READ_RULES, handler: async (request, reply) => sendJson(reply, spec.render(spec.get(tenantOf(request), request, param(request, spec.idParam)))) },
    PUT: {
      rules: WRITE_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const id = param(request, spec.idParam);
        spec.update(tenant, request, id, jsonBody(request));
        return sendNoContent(reply, objectUrl(context, tenant, spec.itemPath(request, id)));
      },
    },
    DELETE: {
      rules: { access: 'write' },
      handler: async (request, reply) => {
        spec.remove(tenantOf(request), request, param(request, spec.idParam));
        return sendNoContent(reply);
      },
    },
  });
}
