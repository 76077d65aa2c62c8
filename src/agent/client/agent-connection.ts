// Owns one agent→endpoint connection: TLS trusting only the configured root, the hello, heartbeats, and reconnecting with backoff.
import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { Clock } from '../../core/clock.js';
import { isStrataError, StrataError } from '../../core/errors.js';
import { AGENT_CLOSE_WAIT_MS, AGENT_REQUEST_TIMEOUT_MS, AGENT_TLS_HANDSHAKE_TIMEOUT_MS } from '../agent-limits.js';
import { HostInfoReader } from '../host-info/host-info-reader.js';
import { helloResult, hostInfoParams } from '../protocol/method-params.js';
import { ENDPOINT_NAME, type HelloParams, type HelloResult } from '../protocol/messages.js';
import { RpcPeer } from '../protocol/rpc-peer.js';
import { formatEndpoint, type EndpointAddress } from './agent-config.js';
import type { AgentLogger, AgentScheduler, RandomSource, TimerHandle } from './agent-deps.js';
import { jitteredIntervalMs, ReconnectBackoff } from './reconnect-backoff.js';

/** What a connection tells its owner (the fleet). */
export interface AgentConnectionEvents {
  /** The hello succeeded: the connection can carry requests. */
  onReady(connection: AgentConnection, hello: HelloResult): void;
  /** The connection stopped carrying requests (it reconnects by itself unless stopped). */
  onDown(connection: AgentConnection): void;
  /** The endpoint sent check_schedule.changed. */
  onScheduleChanged(connection: AgentConnection): void;
  /** The endpoint sent upgrade.request. */
  onUpgradeRequest(connection: AgentConnection): void;
}

/** Settings and dependencies of one connection. */
export interface AgentConnectionOptions {
  readonly endpoint: EndpointAddress;
  /** PEM of the only root certificate(s) trusted. */
  readonly ca: string;
  /** This install's guid: the `source` of every message the agent sends. */
  readonly guid: string;
  /** The hello params, asked for at each connect (the bundle version may change between them). */
  readonly hello: () => HelloParams;
  readonly events: AgentConnectionEvents;
  readonly clock: Clock;
  readonly scheduler: AgentScheduler;
  readonly random: RandomSource;
  readonly logger: AgentLogger;
  /** First and largest reconnect caps (AGENT_RECONNECT_BASE_MS, AGENT_RECONNECT_MAX_MS). */
  readonly reconnectBaseMs?: number;
  readonly reconnectMaxMs?: number;
  /** Response timeout of every request (AGENT_REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
  /** Time the TLS handshake may take (AGENT_TLS_HANDSHAKE_TIMEOUT_MS). */
  readonly tlsHandshakeTimeoutMs?: number;
  /** What answers host_info.get (default: the real host's /proc, /sys and /etc). */
  readonly hostInfo?: HostInfoReader;
}

/** Where a connection is: connecting (TCP and TLS), hello (waiting for its answer), ready, waiting (to reconnect), stopped. */
export type AgentConnectionState = 'idle' | 'connecting' | 'hello' | 'ready' | 'waiting' | 'stopped';

/** A connection's state and counters. */
export interface AgentConnectionStatus {
  readonly endpoint: string;
  readonly state: AgentConnectionState;
  /** When the current hello succeeded, or null when not ready. */
  readonly readySinceMs: number | null;
  /** Successful hellos since start. */
  readonly hellos: number;
  /** Attempts that ended before or after their hello, since start. */
  readonly failures: number;
  readonly heartbeats: number;
  /** Code (or TLS error code) of the last failure, null when none. */
  readonly lastError: string | null;
}

const METHOD_TEXT_MAX = 64; // of a peer's method name repeated in an error message

function failureCode(error: unknown): string {
  if (isStrataError(error)) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

/** True for a failure after which the connection is not worth keeping: a timeout, or an error answer other than 400 (not AGENT_LINE_TOO_LONG: RpcPeer refused that request unsent). */
function dropsConnection(error: unknown): boolean {
  if (!isStrataError(error)) return true;
  if (error.code === 'AGENT_REQUEST_REFUSED') return error.details.code !== 400;
  return error.code !== 'AGENT_CONNECTION_CLOSED' && error.code !== 'AGENT_LINE_TOO_LONG';
}

/**
 * One endpoint's connection, kept up for the agent's life: tls.connect with only `ca` trusted and rejectUnauthorized,
 * an RpcPeer over it, handshake.hello, then heartbeat.post every heartbeat_interval ±AGENT_HEARTBEAT_JITTER_PERCENT.
 * A failed heartbeat, a request timeout or an error answer other than 400 closes it (a request too long to send,
 * never sent, does not); every close is followed by a reconnect after an exponential backoff with full jitter, reset
 * by a successful hello. The endpoint may only ask check_schedule.changed, upgrade.request and host_info(_types).get
 * (files read, nothing run); anything else is AGENT_METHOD_UNKNOWN: the agent runs no command it is sent.
 */
export class AgentConnection {
  private readonly backoff: ReconnectBackoff;
  private readonly hostInfo: HostInfoReader;
  private state: AgentConnectionState = 'idle';
  /** Counts attempts; events of an earlier attempt's socket are ignored. */
  private attempt = 0;
  private socket: TLSSocket | undefined;
  private peer: RpcPeer | undefined;
  private timer: TimerHandle | undefined;
  private readySinceMs: number | null = null;
  private hellos = 0;
  private failures = 0;
  private heartbeats = 0;
  private lastError: string | null = null;

  constructor(private readonly options: AgentConnectionOptions) {
    this.backoff = new ReconnectBackoff({ random: options.random, baseMs: options.reconnectBaseMs, maxMs: options.reconnectMaxMs });
    this.hostInfo = options.hostInfo ?? new HostInfoReader(options.clock);
  }

  /** The endpoint as `host:port`. */
  get name(): string {
    return formatEndpoint(this.options.endpoint);
  }

  /** The endpoint this connection is for. */
  get endpoint(): EndpointAddress {
    return this.options.endpoint;
  }

  /** The TLS server name sent and checked: the host when it is a name, undefined for an IP address (SNI carries names only). */
  get servername(): string | undefined {
    return isIP(this.options.endpoint.host) === 0 ? this.options.endpoint.host : undefined;
  }

  /** True when the hello succeeded and the connection has not closed since. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  /** Connects (once; later calls do nothing). */
  start(): void {
    if (this.state === 'idle') this.connect();
  }

  /**
   * Closes the connection for good and cancels any reconnect. Past its TLS handshake it is ended through its peer, which
   * lets the socket flush what was written, and destroyed if not closed within AGENT_CLOSE_WAIT_MS (within its TLS
   * handshake at once). A ready connection tells its owner onDown once. Resolves once the socket closed.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasReady = this.state === 'ready';
    this.state = 'stopped';
    this.readySinceMs = null;
    this.clearTimer();
    const socket = this.socket; // peer.close() runs down() at once, which clears this.socket and this.peer
    if (this.peer !== undefined) this.peer.close();
    else socket?.destroy();
    if (wasReady) this.options.events.onDown(this);
    if (socket === undefined || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      const wait = setTimeout(() => socket.destroy(), AGENT_CLOSE_WAIT_MS);
      socket.once('close', () => resolve(clearTimeout(wait)));
    });
  }

  /** Sends a request over the ready connection; AGENT_CONNECTION_CLOSED when not ready. A timeout or a non-400 error answer also closes the connection; a request too long to send (AGENT_LINE_TOO_LONG, never sent) keeps it. */
  async request(method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    const peer = this.peer;
    if (this.state !== 'ready' || peer === undefined) throw new StrataError('AGENT_CONNECTION_CLOSED', `not connected to ${this.name}`, { endpoint: this.name });
    try {
      return await peer.request(method, params, timeoutMs);
    } catch (error) {
      if (dropsConnection(error)) peer.close(isStrataError(error) ? error : undefined);
      throw error;
    }
  }

  /** The connection's state and counters now. */
  status(): AgentConnectionStatus {
    const { state, readySinceMs, hellos, failures, heartbeats, lastError } = this;
    return { endpoint: this.name, state, readySinceMs, hellos, failures, heartbeats, lastError };
  }

  private connect(): void {
    const attempt = ++this.attempt;
    this.state = 'connecting';
    const { host, port } = this.options.endpoint;
    // Only the configured root is trusted (never the system store); SNI only for names, as TLS allows.
    const servername = this.servername;
    const socket = connect({ host, port, ca: this.options.ca, rejectUnauthorized: true, ...(servername !== undefined ? { servername } : {}) });
    this.socket = socket;
    this.timer = this.options.scheduler.setTimeout(() => {
      socket.destroy(new StrataError('AGENT_REQUEST_TIMEOUT', `TLS handshake with ${this.name} took longer than allowed`, { endpoint: this.name }));
    }, this.options.tlsHandshakeTimeoutMs ?? AGENT_TLS_HANDSHAKE_TIMEOUT_MS);
    socket.on('error', (error) => {
      if (attempt === this.attempt) this.lastError = failureCode(error);
    });
    socket.once('close', () => this.down(attempt));
    socket.once('secureConnect', () => {
      this.clearTimer();
      if (attempt === this.attempt && this.state === 'connecting') this.hello(attempt, socket);
    });
  }

  private hello(attempt: number, socket: TLSSocket): void {
    this.state = 'hello';
    const peer = new RpcPeer({
      socket,
      self: this.options.guid,
      peer: ENDPOINT_NAME,
      onRequest: (method, params) => this.answer(method, params),
      onClose: (error) => {
        if (error !== undefined && attempt === this.attempt) this.lastError = error.code;
        this.down(attempt);
      },
      requestTimeoutMs: this.options.requestTimeoutMs ?? AGENT_REQUEST_TIMEOUT_MS,
    });
    this.peer = peer;
    void this.sayHello(attempt, peer);
  }

  private async sayHello(attempt: number, peer: RpcPeer): Promise<void> {
    try {
      const hello = helloResult(await peer.request('handshake.hello', this.options.hello()));
      if (attempt === this.attempt && this.state === 'hello') this.becomeReady(attempt, hello);
    } catch (error) {
      // Refused by the endpoint, no answer in time, or an answer helloResult refuses.
      if (attempt !== this.attempt) return;
      this.lastError = failureCode(error);
      this.options.logger.warn({ endpoint: this.name, code: this.lastError, reason: isStrataError(error) ? error.details : undefined }, 'agent hello refused');
      peer.close(isStrataError(error) ? error : undefined);
    }
  }

  private becomeReady(attempt: number, hello: HelloResult): void {
    this.state = 'ready';
    this.readySinceMs = this.options.clock.now();
    this.hellos += 1;
    this.backoff.reset();
    this.options.logger.info({ endpoint: this.name, entityId: hello.entity_id, heartbeatIntervalMs: hello.heartbeat_interval }, 'agent connected');
    this.scheduleHeartbeat(attempt, hello.heartbeat_interval);
    this.options.events.onReady(this, hello);
  }

  private scheduleHeartbeat(attempt: number, intervalMs: number): void {
    this.timer = this.options.scheduler.setTimeout(() => {
      this.timer = undefined;
      if (attempt !== this.attempt || this.state !== 'ready') return;
      this.request('heartbeat.post', { timestamp: this.options.clock.now() }).then(
        () => {
          this.heartbeats += 1;
          if (attempt === this.attempt && this.state === 'ready') this.scheduleHeartbeat(attempt, intervalMs);
        },
        (error: unknown) => {
          this.options.logger.warn({ endpoint: this.name, code: failureCode(error) }, 'agent heartbeat failed');
          // A 400 answer keeps the connection (the reference's rule); anything else closed it in request().
          if (attempt === this.attempt && this.state === 'ready') this.scheduleHeartbeat(attempt, intervalMs);
        },
      );
    }, jitteredIntervalMs(intervalMs, this.options.random));
  }

  /** Answers a request of the endpoint: the four it may send, nothing else. A host_info.get of an unknown type is AGENT_PARAMS_INVALID (400: the connection stays). */
  private answer(method: string, params: unknown): unknown {
    if (method === 'host_info.get') return this.hostInfo.read(hostInfoParams(params).type);
    if (method === 'host_info_types.get') return { types: this.hostInfo.types() };
    if (method === 'check_schedule.changed') {
      queueMicrotask(() => this.options.events.onScheduleChanged(this));
      return {};
    }
    if (method === 'upgrade.request') {
      queueMicrotask(() => this.options.events.onUpgradeRequest(this));
      return {};
    }
    const shown = method.length <= METHOD_TEXT_MAX ? method : `${method.slice(0, METHOD_TEXT_MAX)}...`;
    throw new StrataError('AGENT_METHOD_UNKNOWN', `the agent does not implement ${shown}: it only gathers metrics and host information`, { method: shown });
  }

  private down(attempt: number): void {
    if (attempt !== this.attempt) return;
    // Later events of this attempt (the peer's onClose after the socket's close, or the reverse) are ignored.
    this.attempt += 1;
    this.clearTimer();
    const wasReady = this.state === 'ready';
    this.peer = undefined;
    this.socket = undefined;
    this.readySinceMs = null;
    // stop() told the owner itself.
    if (this.state === 'stopped') return;
    this.failures += 1;
    const delayMs = this.backoff.next();
    this.state = 'waiting';
    this.options.logger.info({ endpoint: this.name, code: this.lastError, delayMs }, 'agent connection closed; reconnecting');
    this.timer = this.options.scheduler.setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'waiting') this.connect();
    }, delayMs);
    if (wasReady) this.options.events.onDown(this);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.options.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
