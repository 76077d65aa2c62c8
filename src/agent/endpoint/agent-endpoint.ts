// Owns the agent endpoint's TLS listeners (one per monitoring zone): connection limits, the TLS and hello phases, telling update downloads (HTTP) from protocol connections, and stopping.
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { assert } from '../../core/assert.js';
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import { loggableError } from '../../monitoring/loggable-error.js';
import { AGENT_CLOSE_LINGER_MS, AGENT_TLS_HANDSHAKE_TIMEOUT_MS } from '../agent-limits.js';
import { createUpdateHttpServer, handOverToHttp, looksLikeHttp } from '../update/update-http.js';
import type { AgentBackend } from './agent-backend.js';
import { endpointLimits, type AgentEndpointOptions, type AgentListen, type EndpointLimits } from './agent-endpoint-options.js';
import { AgentHub, type HubLogger } from './agent-hub.js';
import type { SessionCounters } from './agent-methods.js';
import { AgentSession } from './agent-session.js';

export type { AgentEndpointOptions, AgentListen } from './agent-endpoint-options.js';

/** The endpoint's counters: gauges (connections, handshaking, sessions) and totals since start. */
export interface AgentEndpointStats {
  connections: number;
  handshaking: number;
  sessions: number;
  hellos: number;
  refused: number;
  heartbeats: number;
  metricPosts: number;
  metricsAccepted: number;
  schedulePushes: number;
  protocolErrors: number;
}

/** The logger of the endpoint (a pino Logger fits). */
export type EndpointLogger = HubLogger;

/** Where one TCP connection is: TLS handshake, waiting for its first bytes, before hello, handshaken, or an update download. */
type Phase = 'tls' | 'sniff' | 'hello' | 'session' | 'http';

interface Connection {
  readonly raw: Socket;
  phase: Phase;
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
 * token); the rest (TLS handshakes, connections before hello, downloads) by pendingHandshakesMax,
 * refused at the TCP level since no protocol is spoken yet; so open sockets stay below their sum.
 */
export class AgentEndpoint {
  private readonly limits: EndpointLimits;
  private readonly hub: AgentHub;
  private readonly http: HttpServer | undefined;
  private readonly connections = new Set<Connection>();
  private readonly listeners: Listener[] = [];
  private readonly counters: SessionCounters = { hellos: 0, refused: 0, heartbeats: 0, metricPosts: 0, metricsAccepted: 0, schedulePushes: 0, protocolErrors: 0 };
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: { backend: AgentBackend; clock: Clock; logger: EndpointLogger; options: AgentEndpointOptions }) {
    this.limits = endpointLimits(deps.options);
    const { connectionsMax, tokenConnectionsMax } = this.limits;
    this.hub = new AgentHub({ backend: deps.backend, logger: deps.logger, connectionsMax, tokenConnectionsMax });
    this.http = deps.options.updates === undefined ? undefined : createUpdateHttpServer(deps.options.updates, { logger: deps.logger });
  }

  /** Listens on every zone; resolves with the bound addresses (port 0 → the real port). */
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
    this.deps.logger.info({ listen: bound }, 'agent endpoint listening');
    return bound;
  }

  /** Closes the listeners and every connection (sessions reported disconnected to the backend). Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** The counters now. */
  stats(): AgentEndpointStats {
    let handshaking = 0;
    for (const connection of this.connections) if (connection.phase === 'tls' || connection.phase === 'sniff' || connection.phase === 'hello') handshaking++;
    return { connections: this.connections.size, handshaking, sessions: this.hub.size, ...this.counters };
  }

  private async listen(listen: AgentListen): Promise<AgentListen> {
    const { tls } = this.deps.options;
    const server = createServer({ key: tls.key, cert: tls.cert, handshakeTimeout: AGENT_TLS_HANDSHAKE_TIMEOUT_MS, minVersion: 'TLSv1.2' });
    const listener: Listener = { zoneId: listen.zoneId, server, byRemote: new Map() };
    server.on('connection', (raw: Socket) => this.onConnection(listener, raw));
    server.on('secureConnection', (socket: TLSSocket) => this.onSecure(listener, socket));
    server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
      socket.destroy();
      this.deps.logger.info({ zoneId: listen.zoneId, remote: socket.remoteAddress, error: loggableError(error) }, 'agent TLS handshake failed');
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

  /** A new TCP connection: counted from here; dropped at once when stopping or over the pending limit. */
  private onConnection(listener: Listener, raw: Socket): void {
    raw.on('error', () => {
      // The TLS socket over it reports errors; without a listener here one would be thrown.
    });
    const key = remoteKey(raw);
    const pending = this.connections.size - this.hub.size;
    if (this.stopping !== undefined || key === undefined || pending >= this.limits.pendingHandshakesMax) {
      if (this.stopping === undefined) this.counters.refused++;
      raw.destroy();
      return;
    }
    const connection: Connection = { raw, phase: 'tls' };
    this.connections.add(connection);
    listener.byRemote.set(key, connection);
    raw.once('close', () => {
      this.connections.delete(connection);
      if (listener.byRemote.get(key) === connection) listener.byRemote.delete(key);
    });
  }

  /** TLS is up: wait for the first bytes (bounded by the hello timeout), then HTTP or the protocol. */
  private onSecure(listener: Listener, socket: TLSSocket): void {
    const key = remoteKey(socket);
    const connection = key === undefined ? undefined : listener.byRemote.get(key);
    if (connection === undefined) {
      socket.destroy();
      return;
    }
    connection.phase = 'sniff';
    const onError = (): void => void socket.destroy();
    socket.on('error', onError);
    const timer = setTimeout(() => socket.destroy(), this.limits.helloTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      socket.off('error', onError);
      this.route(listener, connection, socket, chunk);
    });
  }

  /** Hands a connection whose first bytes arrived to the update server or to a new session. */
  private route(listener: Listener, connection: Connection, socket: TLSSocket, first: Buffer): void {
    if (this.stopping !== undefined) {
      socket.destroy();
      return;
    }
    if (looksLikeHttp(first)) {
      if (this.http === undefined) {
        socket.destroy();
        return;
      }
      connection.phase = 'http';
      handOverToHttp(this.http, socket, first);
      return;
    }
    connection.phase = 'hello';
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
      settings: this.limits,
      counters: this.counters,
      onHello: () => {
        connection.phase = 'session';
      },
    });
  }

  private async shutdown(): Promise<void> {
    const closed = this.listeners.map(
      (listener) =>
        new Promise<void>((resolve) => {
          if (!listener.server.listening) resolve();
          else listener.server.close(() => resolve());
        }),
    );
    this.hub.stop();
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
