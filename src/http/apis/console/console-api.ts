// Owns serving the web console: GET / (index.html) and GET /assets/<name> (hashed bundles) from memory, public, with ETags and the console's security headers.
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../../core/clock.js';
import { StrataError } from '../../../core/errors.js';
import { packageRoot } from '../../../storage/package-root.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { METRICS_ERROR_SCHEMA } from '../../error-schemas.js';
import { httpError } from '../../http-errors.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { metricsErrors } from '../metrics/metrics-api.js';
import { loadConsoleBuild, type ConsoleBuild, type ConsoleFile } from './console-files.js';

/** No token, and any Accept: a browser asks for a page, a script or a style sheet with its own Accept. */
const CONSOLE_RULES: RouteRules = { access: 'public', produces: ['*/*'] };

/** The page names the hashed bundles of its build: a browser must revalidate it on every load. */
export const INDEX_CACHE_CONTROL = 'no-cache';
/** A hashed bundle never changes under its name. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Errors (a missing asset, a console not built) must not be kept: the next build or restart changes them. */
export const ERROR_CACHE_CONTROL = 'no-store';

/** The policy of the console page: its own scripts, styles and API only; no inline code, no framing. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Headers of every console response, errors included. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The directory served when the configuration names none: the build's output under the package root. */
function defaultConsoleDir(): string {
  return join(packageRoot(), 'dist', 'console');
}

/** True when an If-None-Match header names `etag` (weak comparison, RFC 9110 13.1.2) or is `*`. */
export function ifNoneMatchHolds(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').some((entry) => {
    const tag = entry.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}

/** Sends one file, or 304 Not Modified when the client's copy is current. */
function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string): FastifyReply {
  void reply.header('etag', file.etag).header('cache-control', cacheControl);
  if (ifNoneMatchHolds(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.code(200).type(file.type).send(file.body);
}

/**
 * While the console is not built (or its build failed to load), the server reads the disk again at
 * most this often: anonymous requests must not each cost a synchronous directory read.
 */
export const CONSOLE_RELOAD_INTERVAL_MS = 5_000;

const NOT_BUILT_MESSAGE = 'The web console is not built on this server; run `npm run build` (it writes dist/console).';

/** The asset route's path parameter, for the OpenAPI document. */
const ASSET_PARAMS = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', description: 'A file name from the console build, e.g. app-3FJX2K7Q.js (index.html names them).' } },
} as const;

/**
 * The build to serve: read at start (a failure there fails the start); while there is none, read
 * again at most once every CONSOLE_RELOAD_INTERVAL_MS of `clock`, and until then answer what the
 * last attempt found: CONSOLE_NOT_BUILT, or the error that load threw (e.g. CONFIG_INVALID for a
 * build over its limits). Once loaded, a build is kept until the server restarts.
 */
function consoleBuildLoader(dir: string, clock: Clock): () => ConsoleBuild {
  let build = loadConsoleBuild(dir);
  let failure: unknown;
  let triedAtMs = clock.now();
  return () => {
    if (build !== undefined) return build;
    const nowMs = clock.now();
    if (nowMs < triedAtMs || nowMs - triedAtMs >= CONSOLE_RELOAD_INTERVAL_MS) {
      triedAtMs = nowMs;
      try {
        build = loadConsoleBuild(dir);
        failure = undefined;
      } catch (error) {
        failure = error;
      }
    }
    if (build !== undefined) return build;
    if (failure !== undefined) throw failure;
    throw new StrataError('CONSOLE_NOT_BUILT', NOT_BUILT_MESSAGE);
  };
}

/**
 * The console (issue 16): a single page built by `npm run build` into dist/console (or the
 * configured consoleDir), read into memory at start, so a URL never reaches the file system. A
 * server started before the build picks it up within CONSOLE_RELOAD_INTERVAL_MS; a later build needs a restart.
 * Its routes take the default (metrics) error shape; 503 CONSOLE_NOT_BUILT while there is no build.
 */
export const consoleApi: ApiPlugin = {
  name: 'console',
  prefix: '',
  errorSchema: METRICS_ERROR_SCHEMA,
  errors: metricsErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    const current = consoleBuildLoader(context.config.consoleDir ?? defaultConsoleDir(), context.clock);
    // Every answer of these routes, 304s, 404s, 405s and 503s included, carries the page's policy.
    scope.addHook('onSend', async (_request, reply) => {
      void reply.headers(CONSOLE_SECURITY_HEADERS);
      if (reply.statusCode >= 400) void reply.header('cache-control', ERROR_CACHE_CONTROL);
    });
    defineResource(scope, '/', {
      GET: {
        rules: CONSOLE_RULES,
        schema: { summary: 'The web console (an HTML page; no token needed, it signs in with the identity API)' },
        handler: async (request, reply) => sendFile(request, reply, current().index, INDEX_CACHE_CONTROL),
      },
    });
    defineResource(scope, '/assets/:name', {
      GET: {
        rules: CONSOLE_RULES,
        schema: { summary: "A file of the web console's build (script, style sheet or source map), cached for good under its hashed name", params: ASSET_PARAMS },
        handler: async (request, reply) => {
          const file = current().assets.get((request.params as { name: string }).name);
          if (file === undefined) throw httpError('HTTP_ROUTE_NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`);
          return sendFile(request, reply, file, ASSET_CACHE_CONTROL);
        },
      },
    });
  },
};
