// Owns the OpenAPI 3 document's frame (@fastify/swagger fills in every route from its schemas) and the URL it is served at.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../storage/package-root.js';
import type { ServerConfig } from '../../server-config.js';

/** Where the document is served, without a token. */
export const OPENAPI_ROUTE = '/openapi.json';

/** The `openapi` option of @fastify/swagger: the document's frame, its security schemes and the version of this build. */
export function openApiDocument(config: ServerConfig): Record<string, unknown> {
  const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return {
    // 3.1: its schemas are JSON Schema, so the route schemas' type lists, if/then and examples are valid as written.
    openapi: '3.1.0',
    info: {
      title: 'Strata',
      version,
      description:
        'Metrics store and monitoring API. Every route is listed with its parameters, bodies and answers; ' +
        'errors come in the shape of the API they belong to (each route lists its 4XX and 5XX body). ' +
        'Authenticate at POST /v2.0/tokens and send the token in X-Auth-Token; the event feeds also accept HTTP basic credentials, ' +
        'and the Prometheus and OTLP routes also a bearer token or basic credentials.',
    },
    servers: config.publicUrl === undefined ? [] : [{ url: config.publicUrl }],
    components: {
      securitySchemes: {
        authToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
        basicCredentials: { type: 'http', scheme: 'basic' },
        bearerToken: { type: 'http', scheme: 'bearer', description: 'The X-Auth-Token value, sent as Authorization: Bearer.' },
      },
    },
  };
}
