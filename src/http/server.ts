// Owns the fastify server factory: hooks (txn id, auth, media types, admission), parsers, error path and routes.
import fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { systemClock, type Clock } from '../core/clock.js';
import { openDns, type Dns } from '../dns/dns-service.js';
import { openFeeds, type Feeds } from '../feeds/feeds-service.js';
import type { IdentityService } from '../identity/identity-service.js';
import { openMonitoring, type MonitoringService } from '../monitoring/monitoring-service.js';
import type { Store } from '../store-types.js';
import { Admission } from './admission.js';
import { authenticateRequest } from './auth.js';
import { negotiate } from './content-negotiation.js';
import { sendError, sendNotFound } from './error-response.js';
import { httpError } from './http-errors.js';
import { PATH_PARAM_LENGTH_MAX } from './http-limits.js';
import { IngestDecoder } from './routes/ingest/ingest-decoder.js';
import { registerIngestRoutes } from './routes/ingest/ingest-routes.js';
import { registerTokenRoutes } from './routes/identity/tokens-routes.js';
import { registerViewsRoutes } from './routes/metrics/views-routes.js';
import { registerOpsRoutes } from './routes/ops/ops-routes.js';
import { registerDnsRoutes } from './routes/dns/dns-routes.js';
import { registerFeedRoutes } from './routes/feeds/feeds-routes.js';
import { registerMonitoringRoutes } from './routes/monitoring/monitoring-routes.js';
import { JSON_TYPE, MSGPACK_TYPE, rulesOf } from './route-rules.js';
import { resolveServerConfig, type ServerConfig, type ServerConfigInput } from './server-config.js';
import type { ServerContext } from './server-context.js';
import { createServerMetrics } from './server-metrics.js';
import { TXN_ID_HEADER, txnIdGenerator } from './txn-id.js';

/** Collaborators and settings of createServer. */
export interface CreateServerOptions {
  readonly store: Store;
  readonly identity: IdentityService;
  /** The event feeds (kept in memory when absent). */
  readonly feeds?: Feeds;
  /** The domain-listing data (kept in memory when absent). */
  readonly dns?: Dns;
  /** The monitoring API's objects (kept in memory when absent). */
  readonly monitoring?: MonitoringService;
  readonly config?: ServerConfigInput;
  /** A pino logger (silent by default). */
  readonly logger?: FastifyBaseLogger;
  readonly clock?: Clock;
}

/** The server plus what its owner may want to inspect or drain. */
export type StrataServer = FastifyInstance & { readonly strata: ServerContext };

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return 'http://127.0.0.1';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

function addBodyParsers(app: FastifyInstance): void {
  // Bodies stay raw Buffers: each route decodes inside its admission slot and shapes its own
  // parse errors (identity's badRequest differs from ingest's errors list).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([JSON_TYPE, MSGPACK_TYPE], { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

function addHooks(app: FastifyInstance, context: ServerContext): void {
  app.addHook('onRequest', async (request) => {
    authenticateRequest(request, context.identity);
    negotiate(request);
    const { work } = rulesOf(request);
    // Refuse early, before a large body is read; the handler checks again when it enqueues.
    if (work !== undefined && !context.admission.hasRoom(work)) {
      throw httpError('HTTP_OVERLOADED', `The server is busy with ${work} requests; retry shortly.`, { work });
    }
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header(TXN_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    context.metrics.requestSeconds.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}

/** Creates the fastify server of Strata with every route of this build; call listen() on it. */
export async function createServer(options: CreateServerOptions): Promise<StrataServer> {
  const config: ServerConfig = resolveServerConfig(options.config);
  const clock = options.clock ?? systemClock;
  const app = fastify({
    loggerInstance: options.logger ?? pino({ level: 'silent' }),
    // Per-request log lines would cost more than the requests; errors log one line each instead.
    logController: new LogController({ disableRequestLogging: true }),
    // Metric names (up to METRIC_NAME_LENGTH_MAX characters, percent-encoded) are path parameters.
    routerOptions: { maxParamLength: PATH_PARAM_LENGTH_MAX },
    requestIdHeader: false,
    genReqId: txnIdGenerator(clock),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const admission = new Admission(config.admission);
  const decoder = new IngestDecoder();
  // Services not handed in are kept in memory and belong to this server: it closes them.
  const owned: { close(): void }[] = [];
  const own = <T extends { close(): void }>(service: T): T => (owned.push(service), service);
  // Links use the configured base URL, else the address listened on: read once (getsockname) after listen, not per response.
  const configuredUrl = config.publicUrl?.replace(/\/+$/, '');
  let listenedUrl: string | undefined;
  const context: ServerContext = {
    store: options.store,
    identity: options.identity,
    feeds: options.feeds ?? own(openFeeds({ dir: undefined, clock, region: config.region })),
    dns: options.dns ?? own(openDns({ dir: undefined, clock })),
    monitoring: options.monitoring ?? own(openMonitoring({ dir: undefined, clock })),
    config,
    admission,
    decoder,
    metrics: createServerMetrics(options.store, admission, { processMetrics: config.processMetrics }),
    clock,
    publicUrl: () => configuredUrl ?? (listenedUrl ??= app.server.listening ? listeningUrl(app) : undefined) ?? listeningUrl(app),
  };
  app.decorate('strata', context);
  app.addHook('onClose', async () => {
    for (const service of owned) service.close();
  });
  app.decorateRequest('principal', undefined);
  addBodyParsers(app);
  addHooks(app, context);
  app.setErrorHandler((error, request, reply) => {
    // Counted here, the one place both the early refusal and the enqueue-time refusal pass.
    if ((error as { code?: unknown } | null)?.code === 'HTTP_OVERLOADED') {
      context.metrics.admissionRejected.inc({ work: rulesOf(request).work ?? 'unknown' });
    }
    return sendError(request, reply, error);
  });
  app.setNotFoundHandler((request, reply) => sendNotFound(request, reply));
  registerTokenRoutes(app, context);
  registerIngestRoutes(app, context);
  registerViewsRoutes(app, context);
  registerOpsRoutes(app, context);
  registerFeedRoutes(app, context);
  registerDnsRoutes(app, context);
  registerMonitoringRoutes(app, context);
  await app.ready();
  return app as unknown as StrataServer;
}
