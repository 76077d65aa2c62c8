// Owns registering one monitoring collection: list and create on the collection, get, update, delete on items.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MONITORING_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { Page, PageRequest } from '../../../monitoring/paging.js';
import { sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { objectUrl, PAGE_QUERY_SCHEMA, pageRequest, param, sendCreated, sendList, sendNoContent, tenantOf, LIST_RESPONSE } from './monitoring-http.js';
import { collectionParams, itemParams } from './monitoring-params.js';

/** Reads are open to every role of the tenant; observers may read. */
export const READ_RULES: RouteRules = { access: 'read' };
/** Writes need a role that may write. */
const WRITE_RULES: RouteRules = { access: 'write' };

/** The body schemas of a collection: every rule on a body's shape lives in them (fastify validates). */
export interface BodySchemas {
  readonly create: Readonly<Record<string, unknown>>;
  readonly update: Readonly<Record<string, unknown>>;
}

/**
 * One collection: its paths and the service calls behind each method. Bodies reach `create` and
 * `update` validated by `bodies`, typed as the service declares them.
 */
export interface CrudSpec<T> {
  /** Collection path under the tenant, e.g. `/entities/:entityId/checks`. */
  readonly path: string;
  /** Name of the item id parameter, e.g. `checkId`. */
  readonly idParam: string;
  /** What the collection holds, for the OpenAPI summaries (`check`). */
  readonly noun: string;
  readonly bodies: BodySchemas;
  /**
   * The type of a stored item, for collections whose `details` depend on the type (checks,
   * notifications): an update that sends details without the type has them validated against
   * the stored type, as the body schema cannot see it.
   */
  storedType?(tenant: string, request: FastifyRequest, id: string): string;
  /** Path of an item under the tenant, for Location, e.g. `entities/en1/checks/ch1`. */
  itemPath(request: FastifyRequest, id: string): string;
  list(tenant: string, request: FastifyRequest, page: PageRequest): Page<T>;
  get(tenant: string, request: FastifyRequest, id: string): T;
  create(tenant: string, request: FastifyRequest, body: never): string;
  update(tenant: string, request: FastifyRequest, id: string, body: never): void;
  remove(tenant: string, request: FastifyRequest, id: string): void;
  render(item: T): unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A create without a body is an empty object where the collection requires no field (agent tokens); elsewhere the schema names the body. */
function emptyBodyAllowed(spec: CrudSpec<unknown>): boolean {
  const required = spec.bodies.create['required'];
  return !Array.isArray(required) || required.length === 0;
}

/** Registers GET/POST on the collection and GET/PUT/DELETE on its items (405 with Allow for the rest). */
export function defineCrud<T>(scope: FastifyInstance, context: ServerContext, spec: CrudSpec<T>): void {
  const collection = `/:tenant${spec.path}`;
  const item = `${collection}/:${spec.idParam}`;
  const params = collectionParams(spec.path);
  const idParams = itemParams(spec.path, spec.idParam);
  defineResource(scope, collection, {
    GET: {
      rules: READ_RULES,
      schema: { summary: `List ${spec.noun}s`, params, querystring: PAGE_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const page = pageRequest(request);
        return sendList(context, request, reply, spec.list(tenantOf(request), request, page), page, (value) => spec.render(value));
      },
    },
    POST: {
      rules: WRITE_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: `Create a ${spec.noun}`, params, body: spec.bodies.create },
      ...(emptyBodyAllowed(spec as CrudSpec<unknown>)
        ? {
            preValidation: async (request: FastifyRequest) => {
              // No body at all; a JSON null is a body, and the schema refuses it.
              if (request.body === undefined) request.body = {};
            },
          }
        : {}),
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const id = spec.create(tenant, request, request.body as never);
        return sendCreated(reply, objectUrl(context, tenant, spec.itemPath(request, id)), id);
      },
    },
  });
  defineResource(scope, item, {
    GET: {
      rules: READ_RULES,
      schema: { summary: `Get a ${spec.noun}`, params: idParams },
      handler: async (request, reply) => sendJson(reply, spec.render(spec.get(tenantOf(request), request, param(request, spec.idParam)))),
    },
    PUT: {
      rules: WRITE_RULES,
      bodyLimit: MONITORING_BODY_BYTES_MAX,
      schema: { summary: `Update a ${spec.noun} (fields left out keep their value)`, params: idParams, body: spec.bodies.update },
      preValidation: async (request: FastifyRequest) => {
        const body = request.body;
        if (spec.storedType !== undefined && isPlainObject(body) && body['details'] !== undefined && body['type'] === undefined) {
          body['type'] = spec.storedType(tenantOf(request), request, param(request, spec.idParam));
        }
      },
      handler: async (request, reply) => {
        const tenant = tenantOf(request);
        const id = param(request, spec.idParam);
        spec.update(tenant, request, id, request.body as never);
        return sendNoContent(reply, objectUrl(context, tenant, spec.itemPath(request, id)));
      },
    },
    DELETE: {
      rules: WRITE_RULES,
      schema: { summary: `Delete a ${spec.noun}`, params: idParams },
      handler: async (request, reply) => {
        spec.remove(tenantOf(request), request, param(request, spec.idParam));
        return sendNoContent(reply);
      },
    },
  });
}
