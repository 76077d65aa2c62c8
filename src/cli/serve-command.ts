// Owns `strata serve`: open the recording (first, so a bad --record changes nothing), the store on its backend and identity, create the first admin, listen, shut down gracefully.
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Command } from 'commander';
import pino, { type Logger } from 'pino';
import { systemClock } from '../core/clock.js';
import { StrataError, isStrataError } from '../core/errors.js';
import { createServer, type StrataServer } from '../http/server.js';
import { openDns } from '../dns/dns-service.js';
import { openFeeds } from '../feeds/feeds-service.js';
import { openIdentity, type IdentityService } from '../identity/identity-service.js';
import { openMonitoring } from '../monitoring/monitoring-service.js';
import { RECORDING_QUEUE_BYTES_MAX } from '../recording/recording-limits.js';
import type { RecordingWriter } from '../recording/recording-types.js';
import { openRecordingWriter } from '../recording/recording-writer.js';
import { packageRoot } from '../storage/package-root.js';
import { openStore } from '../store.js';
import type { Store, StoreBackend } from '../store-types.js';
import { backendProblemAsFlag, describeBackend, storeBackendOf } from './backend-serve-options.js';
import { printError } from './print-error.js';
import { monitoringOptionsOf } from './monitoring-serve-options.js';
import { runtimeOptionsOf, serveOptions, type ServeOptions } from './serve-options.js';
import { startAgentEndpoint } from './serve-agents.js';
import { graphiteListenOf, startGraphite, type ServedGraphite } from './serve-graphite.js';
import type { AgentEndpoint } from '../agent/endpoint/agent-endpoint.js';

/** Exit code when the server cannot start or stop cleanly. */
const EXIT_FAILURE = 1;
/** Exit code of a usage error: an unknown option, a missing or invalid value. */
const EXIT_USAGE = 2;
/** When the graceful shutdown times out, how long the recorder may still take to write what it holds before the process exits. */
const RECORDER_CLOSE_AFTER_TIMEOUT_MS = 5_000;

function firstRunAdmin(identity: IdentityService, options: ServeOptions): { username: string; tenant: string; apiKey: string } | undefined {
  if (identity.userCount() > 0) return undefined;
  const { user, apiKey } = identity.createUser({ username: options.adminUsername, tenant: options.adminTenant, role: 'admin' });
  return { username: user.username, tenant: user.tenant, apiKey };
}

function printFirstRun(admin: { username: string; tenant: string; apiKey: string }, url: string, vendor: string): void {
  const body = JSON.stringify({ auth: { [`${vendor}-KSKEY:apiKeyCredentials`]: { username: admin.username, apiKey: admin.apiKey } } });
  process.stdout.write(
    [
      'first run: created an admin user; the API key is shown only this once',
      `  username: ${admin.username}`,
      `  tenant: ${admin.tenant}`,
      `  apiKey: ${admin.apiKey}`,
      `  console: open ${url}/ and sign in with this username and API key`,
      `  try: curl -s -X POST ${url}/v2.0/tokens -H 'Content-Type: application/json' -d '${body}'`,
      '',
    ].join('\n'),
  );
}

/** Stops accepting, lets in-flight requests finish, makes everything durable; exits 0 (1 on failure or timeout). */
function installShutdown(
  app: StrataServer,
  store: Store,
  identity: IdentityService,
  logger: Logger,
  timeoutS: number,
  agents: () => AgentEndpoint | undefined,
  graphite: () => ServedGraphite | undefined,
): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error({ timeoutS }, 'shutdown timed out');
      // Requests still hang, but the recorder holds the answered ones in memory: it gets a bounded moment to write them
      // (a request answered after this is counted as dropped). Closing twice is harmless: close() returns the same promise.
      const grace = new Promise((done) => setTimeout(done, RECORDER_CLOSE_AFTER_TIMEOUT_MS));
      void Promise.race([closeRecorder(app.strata.recorder, logger), grace]).finally(() => process.exit(EXIT_FAILURE));
    }, timeoutS * 1000);
    timer.unref();
    try {
      // Agents are disconnected first (no more posted results), then Graphite senders (once the
      // points they sent are durable), checks stop next (their last metrics and alarm changes are
      // written), then requests drain.
      await agents()?.stop();
      await graphite()?.listener.close();
      await app.strata.runtime.stop();
      await app.close();
      // Every request has been answered (and handed to the recorder): what is queued is the last of it.
      await closeRecorder(app.strata.recorder, logger);
      await store.close();
      identity.close();
      app.strata.feeds.close();
      app.strata.dns.close();
      app.strata.monitoring.close();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(EXIT_FAILURE);
    }
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

/** The real path of `path` as far as it exists, the rest appended as given (the data directory may not exist yet). */
function realpathOfExisting(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realpathOfExisting(parent), basename(path));
  }
}

/** Refuses a recording inside the data directory (its real path, links resolved): the store owns every file there, and a recording is meant to travel without it. */
function refuseInsideData(path: string, data: string): void {
  const dataDir = realpathOfExisting(resolve(data));
  const within = relative(dataDir, realpathOfExisting(dirname(path)));
  if (within === '' || (within !== '..' && !within.startsWith(`..${sep}`) && !isAbsolute(within))) {
    const reason = `it is inside the data directory ${dataDir}, whose files belong to the store; record elsewhere`;
    throw new StrataError('CONFIG_INVALID', `Cannot record to ${path}: ${reason}.`, { option: 'path', path, reason });
  }
}

/** Where the server listens, as far as it is known before it listens; never the data directory, which a shared recording must not reveal. */
function listeningOn(options: ServeOptions): string {
  if (options.port === 0) return 'an ephemeral port';
  return `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
}

/**
 * Opens the recording of `--record` (undefined without it); the server hands it every ingest and
 * query request. Called before anything else is opened, so a path that cannot be recorded to
 * changes nothing; every refusal is CONFIG_INVALID (exit 2) naming --record and the reason.
 */
async function openRecorder(options: ServeOptions, logger: Logger): Promise<RecordingWriter | undefined> {
  if (options.record === undefined) return undefined;
  const path = resolve(options.record);
  const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  try {
    refuseInsideData(path, options.data);
    return await openRecordingWriter({
      path,
      fileBytesMax: options.recordMaxBytes,
      files: options.recordFiles,
      queueBytesMax: RECORDING_QUEUE_BYTES_MAX,
      producer: `strata ${version} serve`,
      description: `ingest and query requests to strata serve on ${listeningOn(options)}`,
      now: () => systemClock.now(),
      onError: (error: unknown) => logger.error({ err: error, path }, 'the recording could not be written; requests go on unrecorded'),
    });
  } catch (error) {
    if (!isStrataError(error) || error.code !== 'CONFIG_INVALID') throw error;
    throw new StrataError('CONFIG_INVALID', `--record: ${error.message}`, { ...error.details, option: 'record' });
  }
}

/** Writes what the recorder still holds and closes it, logging its totals; a failure is logged, never stops the shutdown. */
async function closeRecorder(recorder: RecordingWriter | undefined, logger: Logger): Promise<void> {
  if (recorder === undefined) return;
  try {
    await recorder.close();
    logger.info({ recording: recorder.stats() }, 'recording closed');
  } catch (error) {
    logger.error({ err: error }, 'the recording could not be closed cleanly');
  }
}

async function serve(options: ServeOptions): Promise<void> {
  // Logs go to stderr as JSON lines; stdout carries only the few lines people and scripts read.
  const logger = pino({ level: options.logLevel }, pino.destination({ dest: 2, sync: true }));
  // Flags that only make sense together are checked before anything is opened.
  graphiteListenOf(options);
  const backend = storeBackendOf(options, process.env);
  // First: a recording that cannot be opened must stop the server before a first-run admin is created whose key nobody would see.
  const recorder = await openRecorder(options, logger);
  try {
    await startServing(options, backend, logger, recorder);
  } catch (error) {
    await closeRecorder(recorder, logger);
    throw error;
  }
}

/**
 * Opens the store on its backend: SQLite keeps its partitions in the data directory; ClickHouse
 * keeps them on the cluster (the services' files stay in the data directory either way). A
 * ClickHouse option the store refuses is reported against its flag.
 */
async function openServedStore(options: ServeOptions, backend: StoreBackend, logger: Logger): Promise<Store> {
  try {
    return await openStore({
      ...(backend === 'sqlite' ? { dir: options.data } : { backend }),
      logger,
      durability: options.durability,
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
    });
  } catch (error) {
    throw backendProblemAsFlag(error);
  }
}

/** Opens the store and the services, creates the first-run admin, and listens, recording into `recorder` when given. */
async function startServing(options: ServeOptions, backend: StoreBackend, logger: Logger, recorder: RecordingWriter | undefined): Promise<void> {
  const store = await openServedStore(options, backend, logger);
  const described = describeBackend(backend);
  const identity = openIdentity({ dir: options.data, clock: systemClock, tokenTtlMs: options.tokenTtl * 1000 });
  const app = await createServer({
    recorder,
    store,
    identity,
    feeds: openFeeds({ dir: options.data, clock: systemClock, region: options.region }),
    dns: openDns({ dir: options.data, clock: systemClock }),
    monitoring: openMonitoring({ dir: options.data, clock: systemClock, ...monitoringOptionsOf(options) }),
    logger,
    clock: systemClock,
    config: {
      publicUrl: options.publicUrl,
      region: options.region,
      vendorPrefix: options.vendorPrefix,
      bodyLimitBytes: options.bodyLimit,
      admission: {
        ingest: {
          concurrency: options.ingestConcurrency,
          queueMax: options.ingestQueue,
          tenantRequestsMax: options.ingestTenantRequests,
          bodyBytesMax: options.ingestBodyBytes,
          tenantBodyBytesMax: options.ingestTenantBodyBytes,
        },
        query: {
          concurrency: options.queryConcurrency,
          queueMax: options.queryQueue,
          tenantRequestsMax: options.queryTenantRequests,
          bodyBytesMax: options.queryBodyBytes,
          tenantBodyBytesMax: options.queryTenantBodyBytes,
        },
      },
      multiTenantIngest: options.multiTenantIngest,
      processMetrics: true,
      ...(options.rateLimits !== undefined ? { rateLimits: options.rateLimits } : {}),
    },
    runtime: runtimeOptionsOf(options),
  });
  let agents: AgentEndpoint | undefined;
  let graphite: ServedGraphite | undefined;
  installShutdown(app, store, identity, logger, options.shutdownTimeout, () => agents, () => graphite);
  // The agent endpoint's lines come before the "listening on" line scripts wait for.
  agents = await startAgentEndpoint(app, options, logger);
  await app.listen({ host: options.host, port: options.port });
  graphite = await startGraphite(app, store, options, logger);
  // The first admin is made only once the ports are ours: a start that cannot listen must not create
  // a user whose API key is never printed (the next start would find a user and print none).
  const admin = firstRunAdmin(identity, options);
  // Checks run and notifications go out only once the API is up; checks load in chunks meanwhile.
  app.strata.runtime.start().catch((error: unknown) => logger.error({ err: error }, 'the monitoring runtime could not load its checks'));
  const url = app.strata.publicUrl();
  if (admin) printFirstRun(admin, url, options.vendorPrefix);
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  if (recorder !== undefined) process.stdout.write(`recording to ${resolve(options.record as string)}\n`);
  process.stdout.write(`store: ${described.text}\n`);
  // Scripts and tests wait for this exact line.
  process.stdout.write(`listening on http://${host}:${port}\n`);
  graphite?.announce();
  logger.info({ host: options.host, port, publicUrl: url, dataDir: options.data, store: described }, 'listening');
}

/** The `strata serve` command. */
export function serveCommand(): Command {
  const command = new Command('serve').description('run the HTTP server: identity, metrics ingest and query APIs, /healthz, /metrics; and the monitoring runtime: checks, alarms, notifications');
  for (const option of serveOptions()) command.addOption(option);
  // Help exits 0; a usage error (an unknown option, a value out of range) exits 2, like bad input elsewhere.
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE));
  command.action(async (options: ServeOptions) => {
    try {
      await serve(options);
    } catch (error) {
      // The store, the identity file or the port could not be opened: say why and stop.
      printError(error);
      process.exit(process.exitCode ?? EXIT_FAILURE);
    }
  });
  return command;
}
