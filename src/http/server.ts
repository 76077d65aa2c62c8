// Owns the fastify server factory: validators, shared hooks (txn id, auth, media types, admission), the OpenAPI document and the default error shape.
import fastifySwagger from '@fastify/swagger';
import fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { systemClock, type Clock } from '../core/clock.js';
import { openDns, type Dns } from '../dns/dns-service.js';
import { openFeeds, type Feeds } from '../feeds/feeds-service.js';
import type { IdentityService } from '../identity/identity-service.js';
import { openMonitoring, type MonitoringService } from '../monitoring/monitoring-service.js';
import { AlarmBacktests } from '../monitoring/backtest/backtest-service.js';
import { MonitoringRuntime, type RuntimeOptions } from '../monitoring/monitoring-runtime.js';
import type { RecordingWriter } from '../recording/recording-types.js';
import type { Store } from '../store-types.js';
import { IngestDecoder } from '../wire/ingest-decoder.js';
import { OtlpDecoder } from '../wire/otlp-decoder.js';
import { RemoteWriteDecoder } from '../wire/prom-write-decoder.js';
import { Admission } from './admission.js';
import { admitRequest, releaseRequest } from './admission-request.js';
import { sendApiError, useApiErrors } from './api-errors.js';
import { metricsErrors } from './apis/metrics/metrics-api.js';
import { errorsOfUrl, registerApis } from './api-registry.js';
import { openApiDocument, OPENAPI_ROUTE } from './apis/openapi/openapi-api.js';
import { authenticateRequest } from './auth.js';
import { useBasicAuth, type BasicAuthenticator } from './basic-auth.js';
import { negotiate } from './content-negotiation.js';
import { PATH_PARAM_LENGTH_MAX } from './http-limits.js';
import { requestValidators } from './schema-compilers.js';
import { resolveServerConfig, type ServerConfig, type ServerConfigInput } from './server-config.js';
import type { ServerContext } from './server-context.js';
import { createServerMetrics } from './server-metrics.js';
import { addRecordingMetrics } from './recording-metrics.js';
import { installRequestRecorder } from './request-recorder.js';
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
  /**
   * Settings of the monitoring runtime (check runner, alarms, delivery). The server always builds
   * the runtime and stops it on close, but starts it only when asked: `app.strata.runtime.start()`.
   */
  readonly runtime?: RuntimeOptions;
  readonly config?: ServerConfigInput;
  /** A pino logger (silent by default). */
  readonly logger?: FastifyBaseLogger;
  readonly clock?: Clock;
  /** Where the ingest and query requests are recorded (`strata serve --record`); its owner closes it after the server. */
  readonly recorder?: RecordingWriter;
}

/** The server plus what its owner may want to inspect or drain. */
export type StrataServer = FastifyInstance & { readonly strata: ServerContext };

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return 'http://127.0.0.1';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** True when a request waits for `100 Continue` before sending its body. */
function expectsContinue(request: FastifyRequest): boolean {
  return request.headers.expect?.toLowerCase() === '100-continue';
}

function addHooks(app: FastifyInstance, context: ServerContext, basic: BasicAuthenticator): void {
  app.addHook('onRequest', async (request, reply) => {
    await authenticateRequest(request, reply, context.identity, basic);
    negotiate(request);
    // Admission before the body is read: an overloaded server refuses a large body without reading it.
    admitRequest(context.admission, request, reply, context.config.bodyLimitBytes);
    // Only now may a client that waits for it send its body (see the checkContinue listener).
    if (expectsContinue(request)) reply.raw.writeContinue();
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header(TXN_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    releaseRequest(request);
    const route = request.routeOptions.url ?? 'unmatched';
    context.metrics.requestSeconds.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}

/** Creates the fastify server of Strata with every API of this build; call listen() on it. */
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
    // A URL that is not valid percent-encoding, or a parameter over maxParamLength, is refused by
    // the router before any route or scope: answer it in the shape of the API the URL is under.
    frameworkErrors: (error, request, reply) => {
      void reply.header(TXN_ID_HEADER, request.id);
      return sendApiError(context, errorsOfUrl(request.url), request, reply, error);
    },
  });
  const admission = new Admission(config.admission);
  // Services not handed in are kept in memory and belong to this server: it closes them.
  const owned: { close(): void }[] = [];
  const own = <T extends { close(): void }>(service: T): T => (owned.push(service), service);
  // Links use the configured base URL, else the address listened on: read once (getsockname) after listen, not per response.
  const configuredUrl = config.publicUrl?.replace(/\/+$/, '');
  let listenedUrl: string | undefined;
  const feeds = options.feeds ?? own(openFeeds({ dir: undefined, clock, region: config.region }));
  const monitoring = options.monitoring ?? own(openMonitoring({ dir: undefined, clock }));
  const runtime = new MonitoringRuntime({
    monitoring,
    engine: options.store,
    feeds,
    clock,
    logger: app.log,
    newTxnId: txnIdGenerator(clock),
    options: { ...options.runtime, delivery: { vendorPrefix: config.vendorPrefix, ...options.runtime?.delivery } },
  });
  const context: ServerContext = {
    store: options.store,
    identity: options.identity,
    feeds,
    dns: options.dns ?? own(openDns({ dir: undefined, clock })),
    monitoring,
    runtime,
    // One per server, so the backtest route and test-alarm share its in-flight bounds; quorum counts the zones this process runs.
    backtests: new AlarmBacktests({ monitoring, engine: options.store, runZones: runtime.zones, runQuery: (work) => admission.run('query', work) }),
    config,
    admission,
    decoder: new IngestDecoder(),
    remoteWriteDecoder: new RemoteWriteDecoder(),
    otlpDecoder: new OtlpDecoder(),
    metrics: createServerMetrics(options.store, admission, { processMetrics: config.processMetrics, runtime }),
    clock,
    recorder: options.recorder,
    publicUrl: () => configuredUrl ?? (listenedUrl ??= app.server.listening ? listeningUrl(app) : undefined) ?? listeningUrl(app),
  };
  app.decorate('strata', context);
  const recorder = options.recorder;
  if (recorder !== undefined) {
    // First of all hooks: a request that authentication or admission refuses is recorded too.
    installRequestRecorder(app, recorder, clock, app.log);
    addRecordingMetrics(context.metrics.registry, () => recorder.stats());
  }
  // Node answers `Expect: 100-continue` itself before any hook runs, unless someone listens: then
  // the request goes on as usual and the onRequest hook sends the 100 once it is admitted, so a
  // refused client is told before it sends its body at all.
  app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res));
  app.addHook('onClose', async () => {
    // The runtime first: its last runs write metrics and alarm changes into the services below.
    await runtime.stop();
    for (const service of owned) service.close();
  });
  app.decorateRequest('principal', undefined);
  // Only JSON bodies by default; each API adds the body types it reads (ingest: raw bytes, feeds: Atom).
  app.removeContentTypeParser('text/plain');
  // Bodies are validated strictly, URL parameters and query strings with coercion from text.
  app.setValidatorCompiler(requestValidators());
  await app.register(fastifySwagger, { openapi: openApiDocument(config) });
  addHooks(app, context, await useBasicAuth(app, context.identity));
  // Unmatched URLs outside every API prefix, and the operational routes, answer in the metrics shape.
  useApiErrors(app, context, metricsErrors, { notFound: true });
  await registerApis(app, context);
  app.get(OPENAPI_ROUTE, { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  await app.ready();
  return app as unknown as StrataServer;
}
