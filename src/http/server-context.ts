// Owns the bundle of collaborators every route registrar receives.
import type { Clock } from '../core/clock.js';
import type { Dns } from '../dns/dns-service.js';
import type { Feeds } from '../feeds/feeds-service.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { AlarmBacktests } from '../monitoring/backtest/backtest-service.js';
import type { MonitoringService } from '../monitoring/monitoring-service.js';
import type { MonitoringRuntime } from '../monitoring/monitoring-runtime.js';
import type { RecordingWriter } from '../recording/recording-types.js';
import type { Store } from '../store-types.js';
import type { IngestDecoder } from '../wire/ingest-decoder.js';
import type { OtlpDecoder } from '../wire/otlp-decoder.js';
import type { RemoteWriteDecoder } from '../wire/prom-write-decoder.js';
import type { Admission } from './admission.js';
import type { ServerConfig } from './server-config.js';
import type { ServerMetrics } from './server-metrics.js';

/** What routes may use: the engine, identity, config, admission queues, metrics and the clock. */
export interface ServerContext {
  readonly store: Store;
  readonly identity: IdentityService;
  /** The event-feed service (issue 5). */
  readonly feeds: Feeds;
  /** The domain-listing service (issue 5). */
  readonly dns: Dns;
  /** The monitoring API's service (issue 4). */
  readonly monitoring: MonitoringService;
  /** The monitoring runtime (issue 11): check runner, alarm evaluation, notification delivery; the server owns and stops it. */
  readonly runtime: MonitoringRuntime;
  /** Alarm backtests over the engine's stored check results (issue 19); its engine reads run in the query admission queue. */
  readonly backtests: AlarmBacktests;
  readonly config: ServerConfig;
  readonly admission: Admission;
  /** Decodes ingest bodies (fast paths and the metric-name cache). */
  readonly decoder: IngestDecoder;
  /** Decodes Prometheus remote write bodies (its series cache lasts across requests). */
  readonly remoteWriteDecoder: RemoteWriteDecoder;
  /** Decodes OTLP/HTTP metrics bodies (its series cache lasts across requests). */
  readonly otlpDecoder: OtlpDecoder;
  readonly metrics: ServerMetrics;
  readonly clock: Clock;
  /** The request recorder's writer (`strata serve --record`), undefined when not recording. */
  readonly recorder: RecordingWriter | undefined;
  /** The base URL clients reach the server at (configured, or the listening address). */
  publicUrl(): string;
}
