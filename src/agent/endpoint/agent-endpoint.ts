// Owns the agent endpoint's TLS listeners (one per monitoring zone): connection pools and limits, the deadline from accept to hello, telling update downloads (HTTP) from protocol connections, and stopping.
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { assert } from '../../core/assert.js';
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import { loggableError } from '../../monitoring/loggable-error.js';
import { AGENT_CLOSE_LINGER_MS, AGENT_TLS_HANDSHAKE_TIMEOUT_MS } from '../agent-limits.js';
import { createUpdateHttpServer, handOverToHttp, looksLikeHttp } from '../update/update-http.js';
import type { AgentBackend } from './agent-backend.js';
import { TlsFailureLog } from './agent-endpoint-log.js';
import { endpointLimits, type AgentEndpointOptions, type AgentEndpointStats, type AgentListen, type EndpointLimits } from './agent-endpoint-options.js';
import { addressGroup, AddressSlots } from './agent-endpoint-slots.js';
import { AgentHub, type HubLogger } from './agent-hub.js';
import type { SessionCounters } from './agent-methods.js';
import { AgentSession } from './agent-session.js';
import { HostInfoRequests } from './host-info-requests.js';
import type { HostInfoSource } from '../../monitoring/agent-host-info.js';

export type { AgentEndpointOptions, AgentEndpointStats, AgentListen } from './agent-endpoint-options.js';

/** The logger of the endpoint (a pino Logger fits). */
export type EndpointLogger = HubLogger;

/** Where the endpoint offers its host info requests while it runs (the monitoring service's HostInfoBroker). */
export interface HostInfoAttachment {
  attach(source: HostInfoSource): () => void;
}

/** Where one TCP connection is: TLS handshake, waiting for its first bytes, before hello, handshaken, an update download, or closed. */
type Phase = 'tls' | 'sniff' | 'hello' | 'session' | 'http' | 'closed';

interface Connection {
  readonly raw: Socket;
  /** The remote address group its pool slot is counted under. */
  readonly group: string;
  phase: Phase;
  /** When the hello is due (performance.now() milliseconds): TCP accept + the hello timeout. */
  readonly helloDueMs: number;
  /** Closes a connection still in TLS or waiting for its first bytes at helloDueMs. */
  readonly acceptTimer: NodeJS.Timeout;
  /** The TLS socket over `raw`, once TLS is up. */
  secure?: TLSSocket;
  session?: AgentSession;
}

interface Listener {
  readonly zoneId: string;
  readonly server: TlsServer;
  /** Open connections by remote address and port: how a secure socket finds its TCP connection. */
  readonly byRemote: Map<string, Connection>;
}

function remoteKey(socket: Socket): string | undefined {
  return socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort ?? ''}`;
}

/**
 * The agent endpoint: a TLS listener per zone speaking the agent protocol, and serving update
 * bundles over the same ports. Handshaken connections are bounded by connectionsMax (and per
 * token); connections not handshaken yet (TLS, first bytes, hello) by the pending pool
 * (pendingHandshakesMax, and pendingPerAddressMax per remote address), refused at the TCP level
 * since no protocol is spoken yet; update downloads by a pool of their own (downloadsMax,
 * downloadsPerAddressMax), so they never hold pending slots. Open sockets stay below the sum of
 * the three. One deadline runs from TCP accept to hello: the TLS handshake and the wait for the
 * first bytes count against helloTimeoutMs, and the session gets only what remains.
 */
export class AgentEndpoint {
  private readonly limits: EndpointLimits;
  private readonly hub: AgentHub;
  private readonly http: HttpServer | undefined;
  private readonly connections = new Set<Connection>();
  private readonly listeners: Listener[] = [];
  private readonly counters: SessionCounters = { hellos: 0, refused: 0, heartbeats: 0, metricPosts: 0, metricsAccepted: 0, schedulePushes: 0, protocolErrors: 0 };
  private readonly pending: AddressSlots;
  private readonly downloads: AddressSlots;
  private readonly tlsFailures: TlsFailureLog;
  /** Host info requests to connected agents, asked by the monitoring API. */
  readonly hostInfo: HostInfoRequests;
  private detachHostInfo: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: { backend: AgentBackend; clock: Clock; logger: EndpointLogger; options: AgentEndpointOptions; hostInfo?: HostInfoAttachment }) {
    this.limits = endpointLimits(deps.options);
    this.pending = new AddressSlots(this.limits.pendingHandshakesMax, this.limits.pendingPerAddressMax);
    this.downloads = new AddressSlots(this.limits.downloadsMax, this.limits.downloadsPerAddressMax);
    this.tlsFailures = new TlsFailureLog(deps.logger);
    const { connectionsMax, tokenConnectionsMax } = this.limits;
    this.hub = new AgentHub({ backend: deps.backend, logger: deps.logger, connectionsMax, tokenConnectionsMax });
    this.hostInfo = new HostInfoRequests(this.hub);
    this.http = deps.options.updates === undefined ? undefined : createUpdateHttpServer(deps.options.updates, { logger: deps.logger });
  }

  /** Listens on every zone, then offers host info requests to `hostInfo`; resolves with the bound addresses (port 0 → the real port). The caller logs them. */
  async start(): Promise<readonly AgentListen[]> {
    assert(this.stopping === undefined && this.listeners.length === 0, 'an agent endpoint starts once');
    this.hub.start();
    const bound: AgentListen[] = [];
    try {
      for (const listen of this.deps.options.listen) bound.push(await this.listen(listen));
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.detachHostInfo = this.deps.hostInfo?.attach(this.hostInfo);
    return bound;
  }

  /** Closes the listeners and every connection (sessions reported disconnected to the backend). Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** The counters now. */
  stats(): AgentEndpointStats {
    return {
      connections: this.connections.size,
      handshaking: this.pending.size,
      downloads: this.downloads.size,
      sessions: this.hub.size,
      ...this.counters,
      tlsFailures: this.tlsFailures.failures,
    };
  }

  private async listen(listen: AgentListen): Promise<AgentListen> {
    const { tls } = this.deps.options;
    const server = createServer({ key: tls.key, cert: tls.cert, handshakeTimeout: AGENT_TLS_HANDSHAKE_TIMEOUT_MS, minVersion: 'TLSv1.2' });
    const listener: Listener = { zoneId: listen.zoneId, server, byRemote: new Map() };
    server.on('connection', (raw: Socket) => this.onConnection(listener, raw));
    server.on('secureConnection', (socket: TLSSocket) => this.onSecure(listener, socket));
    server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
      socket.destroy();
      this.tlsFailures.note(error, socket.remoteAddress);
    });
    this.listeners.push(listener);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      throw new StrataError('CONFIG_INVALID', `agent endpoint cannot listen on ${listen.host}:${listen.port}: ${(error as { code?: string }).code ?? 'error'}`, {
        option: 'listen',
        zoneId: listen.zoneId,
      });
    });
    server.on('error', (error) => this.deps.logger.error({ zoneId: listen.zoneId, error: loggableError(error) }, 'agent listener failed'));
    return { zoneId: listen.zoneId, host: listen.host, port: (server.address() as AddressInfo).port };
  }

  /** The pool a connection in `phase` holds a slot of (none once handshaken or closed). */
  private poolOf(phase: Phase): AddressSlots | undefined {
    if (phase === 'tls' || phase === 'sniff' || phase === 'hello') return this.pending;
    return phase === 'http' ? this.downloads : undefined;
  }

  /**
   * Moves a connection to `phase`: leaving a pool gives its slot back (the caller took the slot of
   * a new pool first); past the first bytes the accept timer stops (the session or the update
   * server bounds the rest). Nothing once closed.
   */
  private enter(connection: Connection, phase: Phase): void {
    if (connection.phase === 'closed') return;
    const from = this.poolOf(connection.phase);
    if (from !== this.poolOf(phase)) from?.release(connection.group);
    connection.phase = phase;
    if (phase !== 'tls' && phase !== 'sniff') clearTimeout(connection.acceptTimer);
  }

  /**
   * A new TCP connection: counted from here, its hello deadline running; dropped at once when
   * stopping, or when the pending pool is full in all or for its remote address.
   */
  private onConnection(listener: Listener, raw: Socket): void {
    raw.on('error', () => {
      // The TLS socket over it reports errors; without a listener here one would be thrown.
    });
    const key = remoteKey(raw);
    const group = raw.remoteAddress === undefined ? undefined : addressGroup(raw.remoteAddress);
    if (this.stopping !== undefined || key === undefined || group === undefined || !this.pending.take(group)) {
      if (this.stopping === undefined) this.counters.refused++;
      raw.destroy();
      return;
    }
    const { helloTimeoutMs } = this.limits;
    // Timer scheduling: the deadline is kept on the monotonic clock its timers run on.
    const acceptTimer = setTimeout(() => {
      connection.secure?.destroy();
      raw.destroy();
    }, helloTimeoutMs);
    acceptTimer.unref();
    const connection: Connection = { raw, group, phase: 'tls', helloDueMs: performance.now() + helloTimeoutMs, acceptTimer };
    this.connections.add(connection);
    listener.byRemote.set(key, connection);
    raw.once('close', () => {
      this.enter(connection, 'closed');
      this.connections.delete(connection);
      if (listener.byRemote.get(key) === connection) listener.byRemote.delete(key);
    });
  }

  /** TLS is up: wait for the first bytes (within the hello deadline), then HTTP or the protocol. */
  private onSecure(listener: Listener, socket: TLSSocket): void {
    const key = remoteKey(socket);
    const connection = key === undefined ? undefined : listener.byRemote.get(key);
    if (connection === undefined || connection.phase !== 'tls') {
      socket.destroy();
      return;
    }
    connection.secure = socket;
    this.enter(connection, 'sniff');
    const onError = (): void => void socket.destroy();
    socket.on('error', onError);
    socket.once('data', (chunk: Buffer) => {
      socket.off('error', onError);
      this.route(listener, connection, socket, chunk);
    });
  }

  /** Hands a connection whose first bytes arrived to the update server (a download slot) or to a new session (what remains of its hello deadline). */
  private route(listener: Listener, connection: Connection, socket: TLSSocket, first: Buffer): void {
    const remainingMs = Math.ceil(connection.helloDueMs - performance.now());
    if (this.stopping !== undefined || remainingMs <= 0) {
      socket.destroy();
      return;
    }
    if (looksLikeHttp(first)) {
      if (this.http === undefined || !this.downloads.take(connection.group)) {
        if (this.http !== undefined) this.counters.refused++;
        socket.destroy();
        return;
      }
      this.enter(connection, 'http');
      handOverToHttp(this.http, socket, first);
      return;
    }
    this.enter(connection, 'hello');
    // The session's peer reads the first bytes again, and resumes the socket.
    socket.pause();
    socket.unshift(first);
    const { backend, clock, logger } = this.deps;
    connection.session = new AgentSession({
      socket,
      zoneId: listener.zoneId,
      backend,
      clock,
      logger,
      hub: this.hub,
      // The hello deadline runs from TCP accept: the session gets what remains of it.
      settings: { ...this.limits, helloTimeoutMs: remainingMs },
      counters: this.counters,
      onHello: () => this.enter(connection, 'session'),
    });
  }

  private async shutdown(): Promise<void> {
    this.detachHostInfo?.();
    const closed = this.listeners.map(
      (listener) =>
        new Promise<void>((resolve) => {
          if (!listener.server.listening) resolve();
          else listener.server.close(() => resolve());
        }),
    );
    this.hub.stop();
    this.tlsFailures.stop();
    for (const connection of this.connections) {
      if (connection.session !== undefined) connection.session.close('the endpoint is stopping');
      else connection.raw.destroy();
    }
    await this.drain();
    await Promise.all(closed);
    this.deps.logger.info({ zones: this.listeners.map((listener) => listener.zoneId) }, 'agent endpoint stopped');
  }

  /** Waits up to AGENT_CLOSE_LINGER_MS for closing connections to finish, then destroys the rest and waits for them. */
  private async drain(): Promise<void> {
    // A connection leaves the set when its socket emits 'close', so every one still in it has yet to.
    const allClosed = (): Promise<unknown> => Promise.all([...this.connections].map((connection) => new Promise((resolve) => connection.raw.once('close', resolve))));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, AGENT_CLOSE_LINGER_MS);
    });
    await Promise.race([allClosed(), grace]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.raw.destroy();
    await allClosed();
  }
}
