// Owns the list of the server's APIs and registering each in its own scope under its prefix, with its error shaper and its OpenAPI tags.
import type { FastifyInstance } from 'fastify';
import { useApiErrors, type ApiErrorShaper } from './api-errors.js';
import type { ApiPlugin } from './api-plugin.js';
import { consoleApi } from './apis/console/console-api.js';
import { dnsApi } from './apis/dns/dns-api.js';
import { feedsApi } from './apis/feeds/feeds-api.js';
import { identityApi } from './apis/identity/identity-api.js';
import { ingestApi } from './apis/ingest/ingest-api.js';
import { metricsApi, metricsErrors } from './apis/metrics/metrics-api.js';
import { monitoringApi } from './apis/monitoring/monitoring-api.js';
import { opsApi } from './apis/ops/ops-api.js';
import { otlpApi } from './apis/otlp/otlp-api.js';
import { prometheusApi } from './apis/prometheus/prometheus-api.js';
import type { RouteRules } from './route-rules.js';
import type { ServerContext } from './server-context.js';

/** Every API of this build (and the web console), each one plugin owning its prefix: adding an API is one line here. */
const APIS: readonly ApiPlugin[] = [identityApi, ingestApi, metricsApi, monitoringApi, feedsApi, dnsApi, prometheusApi, otlpApi, opsApi, consoleApi];

/** The OpenAPI security requirement of a route: none on public routes, else a token, and a bearer token or basic credentials where the route accepts them. */
function securityOf(config: Partial<RouteRules> | undefined): Record<string, string[]>[] | undefined {
  if (config?.access === undefined || config.access === 'public') return undefined;
  const schemes: Record<string, string[]>[] = [{ authToken: [] }];
  if (config.bearerAuth === true) schemes.push({ bearerToken: [] });
  if (config.basicAuth === true) schemes.push({ basicCredentials: [] });
  return schemes;
}

/** The API whose prefix a URL is under (the longest), for errors fastify raises before routing; the metrics shape otherwise. */
function apiOfUrl(url: string): ApiPlugin | undefined {
  const path = url.split('?')[0] ?? '';
  let found: ApiPlugin | undefined;
  for (const api of APIS) {
    if (api.prefix !== '' && (path === api.prefix || path.startsWith(`${api.prefix}/`)) && api.prefix.length > (found?.prefix.length ?? 0)) found = api;
  }
  return found;
}

/** The error shaper of the API a URL is under, for errors fastify raises before routing (the metrics shape outside every prefix). */
export function errorsOfUrl(url: string): ApiErrorShaper {
  return apiOfUrl(url)?.errors ?? metricsErrors;
}

/** Registers every API in its own scope under its prefix: its error shaper, its routes, and their OpenAPI tags, error shapes and credentials. */
export async function registerApis(app: FastifyInstance, context: ServerContext): Promise<void> {
  for (const api of APIS) {
    await app.register(
      async (scope) => {
        scope.addHook('onRoute', (route) => {
          route.schema = { ...route.schema, tags: [api.name], response: { ...(route.schema?.response as object | undefined), '4XX': api.errorSchema, '5XX': api.errorSchema } };
          const security = securityOf(route.config);
          if (security !== undefined) route.schema = { ...route.schema, security };
        });
        // The operational routes and the console share the root's default (metrics) shape and 404s.
        if (api.prefix !== '') useApiErrors(scope, context, api.errors, { notFound: true });
        await api.register(scope, context);
      },
      { prefix: api.prefix },
    );
  }
}
