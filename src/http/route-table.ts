// Owns registering a resource: its methods with their rules, and a 405 with Allow for every other method.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { httpError } from './http-errors.js';
import type { RouteRules } from './route-rules.js';

/** A handler of a resource method: parse, call, render. */
export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** One method of a resource. */
export interface MethodSpec {
  readonly rules: RouteRules;
  readonly handler: RouteHandler;
  /** JSON schemas of params, querystring, body and responses: fastify validates with them and the OpenAPI document shows them. */
  readonly schema?: FastifySchema;
  /** Runs after the body is parsed, before the schemas validate it (for a route that completes its body from stored state). */
  readonly preValidation?: RouteHandler;
  /** Body limit of this method in bytes (default: the server's). */
  readonly bodyLimit?: number;
}

/** The methods a resource may define; HEAD comes with GET. */
export type ResourceMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const ALL_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Registers the methods of the resource at `url`; every other method gets 405 listing the valid ones in Allow. */
export function defineResource(app: FastifyInstance, url: string, methods: Partial<Record<ResourceMethod, MethodSpec>>): void {
  const defined = Object.keys(methods) as ResourceMethod[];
  for (const method of defined) {
    const spec = methods[method] as MethodSpec;
    app.route({
      method,
      url,
      config: spec.rules,
      handler: spec.handler,
      ...(spec.schema !== undefined ? { schema: spec.schema } : {}),
      ...(spec.preValidation !== undefined ? { preValidation: spec.preValidation } : {}),
      ...(spec.bodyLimit !== undefined ? { bodyLimit: spec.bodyLimit } : {}),
    });
  }
  const allowed: string[] = defined.includes('GET') ? [...defined, 'HEAD'] : [...defined];
  const others = ALL_METHODS.filter((method) => !allowed.includes(method));
  const allow = ALL_METHODS.filter((method) => allowed.includes(method)).join(', ');
  app.route({
    method: others,
    url,
    config: { access: 'public', produces: ['*/*'] } satisfies RouteRules,
    // Not a resource of its own: the OpenAPI document lists the methods that exist.
    schema: { hide: true },
    // Refuse in onRequest, before the body is read: a wrong method is a 405 whatever the body.
    onRequest: async (request) => {
      throw httpError('HTTP_METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allow}.`, { allow });
    },
    handler: async () => undefined,
  });
}
