// Owns the Graphite plaintext TCP listener: one tenant per listener, a bounded number of connections, counters, and a close that lets in-flight writes finish.
import { createServer, type Server, type Socket } from 'node:net';
import { assert } from '../core/assert.js';
import type { Clock } from '../core/clock.js';
import type { Store, StoreLogger } from '../store-types.js';
import { GraphiteLineScratch } from '../wire/graphite-line.js';
import {
  GRAPHITE_BATCH_POINTS_MAX,
  GRAPHITE_CONNECTIONS_MAX,
  GRAPHITE_IDLE_MS,
  GRAPHITE_LINE_BYTES_MAX,
  GRAPHITE_RETRY_DELAY_MS,
  GRAPHITE_WARN_INTERVAL_MS,
} from '../wire/protocol-limits.js';
import { GraphiteConnection, GraphiteCounters, type GraphiteSettings } from './graphite-connection.js';

/** Options of a GraphiteListener; the limits default to the protocol limits (tests lower them). */
export interface GraphiteListenerOptions {
  readonly store: Store;
  /** Every point received is written for this tenant: the protocol carries none, and no credentials. */
  readonly tenant: string;
  /** Address to listen on (default 127.0.0.1: the protocol has no authentication). */
  readonly host?: string;
  /** TCP port; 0 picks a free one (listen() resolves with it). */
  readonly port: number;
  /** Time for `-1`/`N` timestamps and the report intervals. */
  readonly clock: Clock;
  readonly logger: StoreLogger;
  /** Most open connections (default GRAPHITE_CONNECTIONS_MAX); more are closed on arrival. */
  readonly connectionsMax?: number;
  /** Points per store write at most (default GRAPHITE_BATCH_POINTS_MAX). */
  readonly batchPointsMax?: number;
  /** Silence after which a connection is closed (default GRAPHITE_IDLE_MS). */
  readonly idleMs?: number;
  /** Wait before retrying a batch the store refused for now (default GRAPHITE_RETRY_DELAY_MS). */
  readonly retryDelayMs?: number;
}

/** What a listener counted since it started. */
export interface GraphiteListenerStats {
  /** Connections open now. */
  readonly connections: number;
  /** Points the store made durable. */
  readonly pointsAccepted: number;
  /** Malformed lines plus points the store refused (too old, name too long, ...). */
  readonly pointsRejected: number;
  /** NaN and infinite values, which Strata does not store. */
  readonly pointsSkipped: number;
  /** Lines longer than GRAPHITE_LINE_BYTES_MAX, dropped unread. */
  readonly linesTooLong: number;
  /** Connections closed on arrival because GRAPHITE_CONNECTIONS_MAX were open (or the listener was closing). */
  readonly connectionsRefused: number;
  /** Points read but never written: the store failed, or stayed unavailable until the listener closed. */
  readonly pointsDropped: number;
}

function positiveInteger(value: number, name: string): number {
  assert(Number.isSafeInteger(value) && value > 0, `${name} must be a positive integer`);
  return value;
}

/**
 * Accepts Graphite plaintext (`path value timestamp` lines, seconds) over TCP and writes the points
 * for one tenant through the same store write as the native ingest (same validation, durable when
 * the write resolves). Memory stays bounded: connections are capped, a line is capped, and a
 * connection reads nothing while its batch is being written.
 */
export class GraphiteListener {
  private readonly counters = new GraphiteCounters();
  private readonly scratch = new GraphiteLineScratch();
  private readonly connections = new Set<GraphiteConnection>();
  private readonly settings: GraphiteSettings;
  private readonly connectionsMax: number;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: GraphiteListenerOptions) {
    assert(options.tenant !== '', 'a Graphite listener needs a tenant');
    this.connectionsMax = positiveInteger(options.connectionsMax ?? GRAPHITE_CONNECTIONS_MAX, 'connectionsMax');
    const batchPointsMax = positiveInteger(options.batchPointsMax ?? GRAPHITE_BATCH_POINTS_MAX, 'batchPointsMax');
    assert(batchPointsMax <= GRAPHITE_BATCH_POINTS_MAX, 'a Graphite batch is one store write');
    this.settings = {
      lineBytesMax: GRAPHITE_LINE_BYTES_MAX,
      batchPointsMax,
      idleMs: positiveInteger(options.idleMs ?? GRAPHITE_IDLE_MS, 'idleMs'),
      retryDelayMs: positiveInteger(options.retryDelayMs ?? GRAPHITE_RETRY_DELAY_MS, 'retryDelayMs'),
      warnIntervalMs: GRAPHITE_WARN_INTERVAL_MS,
    };
  }

  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number> {
    assert(this.server === undefined, 'a Graphite listener listens once');
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.options.host ?? '127.0.0.1', port: this.options.port }, () => {
        server.off('error', reject);
        server.on('error', (error) => this.options.logger.error({ err: error }, 'the graphite listener failed'));
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : this.options.port);
      });
    });
  }

  /** Stops accepting, lets every connection finish the chunk in hand (its write durable), then closes them. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** The counters and the open connections now. */
  stats(): GraphiteListenerStats {
    return { connections: this.connections.size, ...this.counters };
  }

  private accept(socket: Socket): void {
    if (this.closing !== undefined || this.connections.size >= this.connectionsMax) {
      this.counters.connectionsRefused++;
      socket.destroy();
      return;
    }
    const { store, tenant, clock, logger } = this.options;
    const connection = new GraphiteConnection(socket, { store, tenant, clock, logger, scratch: this.scratch, counters: this.counters, settings: this.settings });
    this.connections.add(connection);
    void connection.done.then(() => this.connections.delete(connection));
  }

  private async shutdown(): Promise<void> {
    const server = this.server;
    const closed =
      server === undefined || !server.listening ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await closed;
    const { pointsDropped } = this.counters;
    if (pointsDropped > 0) this.options.logger.warn({ tenant: this.options.tenant, pointsDropped }, 'graphite listener closed; some points read were never written');
  }
}
