// Owns the bundle of collaborators every route registrar receives.
import type { Clock } from '../core/clock.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { Store } from '../store-types.js';
import type { Admission } from './admission.js';
import type { IngestDecoder } from './routes/ingest/ingest-decoder.js';
import type { ServerConfig } from './server-config.js';
import type { ServerMetrics } from './server-metrics.js';

/** What routes may use: the engine, identity, config, admission queues, metrics and the clock. */
export interface ServerContext {
  readonly store: Store;
  readonly identity: IdentityService;
  readonly config: ServerConfig;
  readonly admission: Admission;
  /** Decodes ingest bodies (fast paths and the metric-name cache). */
  readonly decoder: IngestDecoder;
  readonly metrics: ServerMetrics;
  readonly clock: Clock;
  /** The base URL clients reach the server at (configured, or the listening address). */
  publicUrl(): string;
}
