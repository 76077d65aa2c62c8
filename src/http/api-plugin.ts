// Owns the shape of an API plugin: the URL prefix it owns and the function that registers its scope.
import type { FastifyInstance } from 'fastify';
import type { ApiErrorShaper } from './api-errors.js';
import type { ServerContext } from './server-context.js';

/**
 * One API of the server (identity, ingest, metrics query, monitoring, feeds, DNS, operations). Its
 * `register` runs in a fastify scope under `prefix`, where it adds its content-type parsers and its
 * routes with their JSON schemas; the server installs its `errors` there. Nothing it adds leaks
 * into the other APIs' scopes.
 */
export interface ApiPlugin {
  /** Name for logs and the OpenAPI document's tags. */
  readonly name: string;
  /** URL prefix the API owns ('' for the operational routes at the root). */
  readonly prefix: string;
  /** The JSON schema of the API's error body, listed as every route's 4XX and 5XX answer. */
  readonly errorSchema: Readonly<Record<string, unknown>>;
  /** How the API writes its errors: installed in its scope, and used for URLs under its prefix that fastify refuses before routing. */
  readonly errors: ApiErrorShaper;
  register(scope: FastifyInstance, context: ServerContext): Promise<void> | void;
}
