// Owns the options of `strata serve`: every flag with its environment variable and default.
import { InvalidArgumentError, Option } from 'commander';
import {
  ADMISSION_BODY_BYTES_LIMIT_MAX,
  ADMISSION_SIZE_MAX,
  ADMISSION_TENANT_SHARE_DEFAULT,
  HTTP_BODY_BYTES_MAX,
  INGEST_BODY_BYTES_DEFAULT,
  INGEST_CONCURRENCY_DEFAULT,
  INGEST_QUEUE_MAX_DEFAULT,
  QUERY_BODY_BYTES_DEFAULT,
  QUERY_CONCURRENCY_DEFAULT,
  QUERY_QUEUE_MAX_DEFAULT,
} from '../http/http-limits.js';
import { DEFAULT_TOKEN_TTL_MS, TOKEN_TTL_MS_MAX, TOKEN_TTL_MS_MIN } from '../identity/identity-service.js';
import { ROLLUP_WORKERS_MAX, TENANT_LENGTH_MAX } from '../core/limits.js';
import { tenantValid } from '../ingest/validate.js';
import { CHECK_CONCURRENCY_DEFAULT, CHECK_CONCURRENCY_MAX, DELIVERY_ATTEMPTS_CEILING, DELIVERY_ATTEMPTS_DEFAULT } from '../monitoring/monitoring-limits.js';
import type { RuntimeOptions } from '../monitoring/monitoring-runtime.js';
import { RECORDING_FILE_BYTES_DEFAULT, RECORDING_FILES_DEFAULT } from '../recording/recording-limits.js';
import { fileBytesMaxProblem, filesProblem } from '../recording/recording-writer.js';
import { agentServeOptions, type AgentServeFlags } from './agent-serve-options.js';
import { backendServeOptions, type BackendServeFlags } from './backend-serve-options.js';
import { monitoringServeOptions, type MonitoringServeFlags } from './monitoring-serve-options.js';
import { collectList, dataOption, integerIn, parseBoolean } from './cli-parsers.js';

/** The parsed options of `strata serve`, as commander names them. */
export interface ServeOptions extends AgentServeFlags, MonitoringServeFlags, BackendServeFlags {
  readonly host: string;
  readonly port: number;
  readonly data: string;
  readonly publicUrl?: string;
  readonly region: string;
  readonly tokenTtl: number;
  readonly vendorPrefix: string;
  readonly bodyLimit: number;
  readonly ingestConcurrency: number;
  readonly ingestQueue: number;
  readonly queryConcurrency: number;
  readonly queryQueue: number;
  readonly ingestTenantRequests?: number;
  readonly ingestBodyBytes: number;
  readonly ingestTenantBodyBytes?: number;
  readonly queryTenantRequests?: number;
  readonly queryBodyBytes: number;
  readonly queryTenantBodyBytes?: number;
  readonly multiTenantIngest: boolean;
  readonly workers?: number;
  readonly durability: 'normal' | 'full';
  readonly adminUsername: string;
  readonly adminTenant: string;
  readonly logLevel: string;
  readonly shutdownTimeout: number;
  readonly checkDeny: string[];
  readonly checkConcurrency: number;
  readonly zones?: string[];
  readonly smtpHost?: string;
  readonly smtpPort: number;
  readonly smtpFrom: string;
  readonly smtpSecure: boolean;
  readonly smsGateway?: string;
  readonly incidentAEndpoint?: string;
  readonly incidentBEndpoint?: string;
  readonly deliveryAttempts: number;
  /** The recording file of `--record` (none: nothing is recorded). */
  readonly record?: string;
  readonly recordMaxBytes: number;
  readonly recordFiles: number;
  /** The Graphite plaintext listener's port (none: it does not listen). */
  readonly graphitePort?: number;
  /** The tenant every Graphite point is written for; required with graphitePort. */
  readonly graphiteTenant?: string;
}

/** Longest graceful shutdown accepted, in seconds. */
const SHUTDOWN_TIMEOUT_S_MAX = 3_600;

/**
 * The in-flight budgets of one kind of work (checked when a request arrives, before its body is
 * read; over them it gets 503 with Retry-After). The tenant budgets have no fixed default: they are
 * a share of the kind's, so they follow it when it is raised (the server config computes them).
 */
function budgetOptions(kind: 'ingest' | 'query', bodyBytesDefault: number): Option[] {
  const env = `STRATA_${kind.toUpperCase()}`;
  const share = `${ADMISSION_TENANT_SHARE_DEFAULT * 100}%`;
  const requests = integerIn(1, ADMISSION_SIZE_MAX);
  const bytes = integerIn(1, ADMISSION_BODY_BYTES_LIMIT_MAX);
  return [
    new Option(`--${kind}-tenant-requests <n>`, `${kind} requests of one tenant in flight before 503 (default: ${share} of ${kind} concurrency + queue)`)
      .env(`${env}_TENANT_REQUESTS`)
      .argParser(requests),
    new Option(`--${kind}-body-bytes <bytes>`, `${kind} request body bytes in flight before 503 (Content-Length; a chunked body counts as the body limit)`)
      .env(`${env}_BODY_BYTES`)
      .default(bodyBytesDefault)
      .argParser(bytes),
    new Option(`--${kind}-tenant-body-bytes <bytes>`, `${kind} body bytes of one tenant in flight before 503 (default: ${share} of --${kind}-body-bytes, at least the largest body)`)
      .env(`${env}_TENANT_BODY_BYTES`)
      .argParser(bytes),
  ];
}

/** The monitoring runtime's options: which addresses checks may reach, how many run at once, which zones, and notification delivery. */
function runtimeOptions(): Option[] {
  return [
    new Option('--check-deny <cidr>', 'address range checks may not connect to, e.g. 10.0.0.0/8 (repeatable; loopback and private ranges are allowed by default)')
      .env('STRATA_CHECK_DENY')
      .default([])
      .argParser(collectList),
    new Option('--check-concurrency <n>', 'check runs in flight at once').env('STRATA_CHECK_CONCURRENCY').default(CHECK_CONCURRENCY_DEFAULT).argParser(integerIn(1, CHECK_CONCURRENCY_MAX)),
    new Option('--zones <ids>', 'comma-separated monitoring zones this process runs checks from (default: every configured zone)').env('STRATA_ZONES').argParser(collectList),
    new Option('--smtp-host <host>', 'SMTP relay email notifications are sent through (none: email notifications fail)').env('STRATA_SMTP_HOST'),
    new Option('--smtp-port <port>', 'port of the SMTP relay').env('STRATA_SMTP_PORT').default(25).argParser(integerIn(1, 65_535)),
    new Option('--smtp-from <address>', 'From address of notification emails').env('STRATA_SMTP_FROM').default('strata@localhost'),
    new Option('--smtp-secure [enabled]', 'implicit TLS to the SMTP relay (port 465 style); otherwise STARTTLS when offered')
      .env('STRATA_SMTP_SECURE')
      .default(false)
      // A string: commander passes the preset through the parser too.
      .preset('true')
      .argParser(parseBoolean),
    new Option('--sms-gateway <url>', 'HTTP endpoint sms notifications are posted to').env('STRATA_SMS_GATEWAY'),
    new Option('--incident-a-endpoint <url>', 'HTTP endpoint incidentA notifications are posted to (a notification\'s service_endpoint overrides it)').env('STRATA_INCIDENT_A_ENDPOINT'),
    new Option('--incident-b-endpoint <url>', 'HTTP endpoint incidentB notifications are posted to').env('STRATA_INCIDENT_B_ENDPOINT'),
    new Option('--delivery-attempts <n>', 'attempts a notification delivery gets before it becomes a dead letter')
      .env('STRATA_DELIVERY_ATTEMPTS')
      .default(DELIVERY_ATTEMPTS_DEFAULT)
      .argParser(integerIn(1, DELIVERY_ATTEMPTS_CEILING)),
  ];
}

/** A parser for a recording option whose rule the writer owns (`problem` is null when the value is accepted, else what is). */
function recordingInteger(problem: (value: number) => string | null): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
    const refusal = problem(value);
    if (refusal !== null) throw new InvalidArgumentError(`expected ${refusal}`);
    return value;
  };
}

/** The request recorder's options: where the ingest and query requests are recorded and how much is kept (docs/recording.md). */
function recordOptions(): Option[] {
  return [
    new Option('--record <file>', 'record the ingest and query requests (bodies as sent, never credentials) into this file, for strata replay; a recording already there is kept as <file>.1, anything else there is refused').env('STRATA_RECORD'),
    new Option('--record-max-bytes <bytes>', 'size at which the recording moves on to a new file (the full one becomes <file>.1)')
      .env('STRATA_RECORD_MAX_BYTES')
      .default(RECORDING_FILE_BYTES_DEFAULT)
      .argParser(recordingInteger(fileBytesMaxProblem)),
    new Option('--record-files <n>', 'recording files kept, the current one included (the oldest is deleted)')
      .env('STRATA_RECORD_FILES')
      .default(RECORDING_FILES_DEFAULT)
      .argParser(recordingInteger(filesProblem)),
  ];
}

/** Parses a tenant with the store's own rule, so a listener never starts for a tenant every write would refuse. */
function tenantArgument(text: string): string {
  if (!tenantValid(text)) throw new InvalidArgumentError(`expected a tenant of 1 to ${TENANT_LENGTH_MAX} letters, digits, '.', '_' or '-'`);
  return text;
}

/** The Graphite plaintext listener's options: off unless --graphite-port is given. */
function graphiteOptions(): Option[] {
  return [
    new Option('--graphite-port <port>', 'TCP port of the Graphite plaintext listener on --host (off unless given; 0 picks a free one); it has no authentication, so keep it on loopback or a trusted network')
      .env('STRATA_GRAPHITE_PORT')
      .argParser(integerIn(0, 65_535)),
    new Option('--graphite-tenant <tenant>', 'tenant every Graphite point is written for (required with --graphite-port)').env('STRATA_GRAPHITE_TENANT').argParser(tenantArgument),
  ];
}

/** Every option of `strata serve`; the environment variable of each is STRATA_ plus its name. */
export function serveOptions(): Option[] {
  const sizes = integerIn(0, ADMISSION_SIZE_MAX);
  const positive = integerIn(1, ADMISSION_SIZE_MAX);
  return [
    new Option('--host <host>', 'address to listen on').env('STRATA_HOST').default('127.0.0.1'),
    new Option('--port <port>', 'TCP port (0 picks a free one)').env('STRATA_PORT').default(8080).argParser(integerIn(0, 65_535)),
    dataOption('data directory: the services\' files (identity.sqlite, ...) and, with --backend sqlite, the store\'s'),
    ...backendServeOptions(),
    new Option('--public-url <url>', 'base URL clients reach the server at, used in the service catalog (default: the listening address)').env(
      'STRATA_PUBLIC_URL',
    ),
    new Option('--region <region>', 'region of the regional catalog entries and users').env('STRATA_REGION').default('LOCAL'),
    new Option('--token-ttl <seconds>', 'token lifetime in seconds')
      .env('STRATA_TOKEN_TTL')
      .default(DEFAULT_TOKEN_TTL_MS / 1000)
      .argParser(integerIn(Math.ceil(TOKEN_TTL_MS_MIN / 1000), TOKEN_TTL_MS_MAX / 1000)),
    new Option('--vendor-prefix <prefix>', 'vendor prefix of identity extension keys (RAX-KSKEY:…, RAX-AUTH:…)').env('STRATA_VENDOR_PREFIX').default('RAX'),
    new Option('--body-limit <bytes>', 'largest ingest request body').env('STRATA_BODY_LIMIT').default(HTTP_BODY_BYTES_MAX).argParser(integerIn(1024, HTTP_BODY_BYTES_MAX)),
    new Option('--ingest-concurrency <n>', 'ingest requests running at once').env('STRATA_INGEST_CONCURRENCY').default(INGEST_CONCURRENCY_DEFAULT).argParser(positive),
    new Option('--ingest-queue <n>', 'ingest requests in flight beyond those running (reading a body or waiting) before 503').env('STRATA_INGEST_QUEUE').default(INGEST_QUEUE_MAX_DEFAULT).argParser(sizes),
    new Option('--query-concurrency <n>', 'query requests running at once').env('STRATA_QUERY_CONCURRENCY').default(QUERY_CONCURRENCY_DEFAULT).argParser(positive),
    new Option('--query-queue <n>', 'query requests in flight beyond those running before 503').env('STRATA_QUERY_QUEUE').default(QUERY_QUEUE_MAX_DEFAULT).argParser(sizes),
    ...budgetOptions('ingest', INGEST_BODY_BYTES_DEFAULT),
    ...budgetOptions('query', QUERY_BODY_BYTES_DEFAULT),
    new Option('--multi-tenant-ingest [enabled]', 'let admins write any tenant through /ingest/multi')
      .env('STRATA_MULTI_TENANT_INGEST')
      .default(false)
      .preset('true')
      .argParser(parseBoolean),
    new Option('--workers <n>', 'rollup worker threads of the sqlite backend (default: cores - 1, at least 1; 0 rolls up inline)')
      .env('STRATA_WORKERS')
      .argParser(integerIn(0, ROLLUP_WORKERS_MAX)),
    new Option('--durability <level>', "sqlite backend: 'normal' survives a process crash, 'full' also a power loss (ClickHouse acknowledges a write once its shards have it)").env('STRATA_DURABILITY').choices(['normal', 'full']).default('normal'),
    new Option('--admin-username <name>', 'username of the admin created on a first run').env('STRATA_ADMIN_USERNAME').default('admin'),
    new Option('--admin-tenant <tenant>', 'tenant of the admin created on a first run').env('STRATA_ADMIN_TENANT').default('100000'),
    new Option('--log-level <level>', 'pino log level').env('STRATA_LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    new Option('--shutdown-timeout <seconds>', 'longest wait for in-flight requests on SIGTERM/SIGINT before exiting 1')
      .env('STRATA_SHUTDOWN_TIMEOUT')
      .default(30)
      .argParser(integerIn(1, SHUTDOWN_TIMEOUT_S_MAX)),
    ...runtimeOptions(),
    ...monitoringServeOptions(),
    ...recordOptions(),
    ...graphiteOptions(),
    ...agentServeOptions(),
  ];
}

/** The monitoring runtime's settings from the parsed flags of `strata serve`. */
export function runtimeOptionsOf(options: ServeOptions): RuntimeOptions {
  return {
    checkDeny: options.checkDeny,
    checkConcurrency: options.checkConcurrency,
    ...(options.zones !== undefined ? { zones: options.zones } : {}),
    delivery: {
      attemptsMax: options.deliveryAttempts,
      vendorPrefix: options.vendorPrefix,
      smtp: options.smtpHost === undefined ? undefined : { host: options.smtpHost, port: options.smtpPort, secure: options.smtpSecure, from: options.smtpFrom },
      gateways: { sms: options.smsGateway, incidentA: options.incidentAEndpoint, incidentB: options.incidentBEndpoint },
    },
  };
}
