// Owns the agent tests' endpoint: a real TLS server on 127.0.0.1 that speaks the protocol with RpcPeer and records what the agent sent.
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { StrataError } from '../../../src/core/errors.js';
import { RpcPeer } from '../../../src/agent/protocol/rpc-peer.js';
import { ENDPOINT_NAME, type RequestMessage, type ScheduledCheck } from '../../../src/agent/protocol/messages.js';
import type { AgentLogger } from '../../../src/agent/client/agent-deps.js';
import { createUpdateHttpServer, handOverToHttp, looksLikeHttp } from '../../../src/agent/update/update-http.js';
import { UPDATE_CHANNEL_DEFAULT, type UpdateStore } from '../../../src/agent/update/update-store.js';

/** One request the agent sent, with the connection (counting from 1) it came over. */
export interface RecordedRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly source: string;
  readonly connection: number;
}

/** What the endpoint answers. */
export interface TestEndpointSettings {
  heartbeatIntervalMs: number;
  entityId: string | null;
  checks: ScheduledCheck[];
  /** When set, check_metrics.post is answered with this error. */
  refusePosts: StrataError | undefined;
  /** When true, new TLS connections are destroyed as soon as they are made. */
  refuseConnections: boolean;
  /** Methods the endpoint never answers. */
  unanswered: string[];
  /** Published updates: bundle_upgrade.get_version names the newest, and HTTP GETs on the same port download them. */
  updates: UpdateStore | undefined;
}

/** A TLS listener on 127.0.0.1 port 0 answering the agent→endpoint methods from `settings`. */
export class TestEndpoint {
  readonly requests: RecordedRequest[] = [];
  /** Live protocol sessions, by connection number. */
  readonly sessions = new Map<number, RpcPeer>();
  /** TLS connections the server completed. */
  secureConnections = 0;
  /** Connections that spoke the protocol (numbered from 1; RecordedRequest.connection). */
  protocolConnections = 0;
  /** Handshakes the server saw fail (a client that refused our certificate). */
  tlsErrors = 0;
  readonly settings: TestEndpointSettings;
  private readonly sockets = new Set<TLSSocket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    settings: Partial<TestEndpointSettings>,
  ) {
    this.settings = { heartbeatIntervalMs: 100, entityId: 'enTest', checks: [], refusePosts: undefined, refuseConnections: false, unanswered: [], updates: undefined, ...settings };
  }

  /** Starts a listener with the given key and certificate. */
  static async start(tls: { key: string; cert: string }, settings: Partial<TestEndpointSettings> = {}): Promise<TestEndpoint> {
    const server = createServer({ key: tls.key, cert: tls.cert });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = new TestEndpoint(server, (server.address() as AddressInfo).port, settings);
    server.on('secureConnection', (socket) => endpoint.accept(socket));
    server.on('tlsClientError', () => (endpoint.tlsErrors += 1));
    return endpoint;
  }

  /** The requests of one method, in arrival order. */
  of(method: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Closes every live session (the agent sees the server end the connection). */
  closeSessions(): void {
    for (const peer of this.sessions.values()) peer.close();
  }

  /** Closes the listener and every connection. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: TLSSocket): void {
    this.secureConnections += 1;
    if (this.settings.refuseConnections) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // The first bytes tell a download (HTTP) from a protocol session, as the real endpoint does.
    socket.once('data', (chunk: Buffer) => {
      const updates = this.settings.updates;
      if (updates !== undefined && looksLikeHttp(chunk)) {
        handOverToHttp(createUpdateHttpServer(updates), socket, chunk);
        return;
      }
      socket.pause();
      socket.unshift(chunk);
      this.startSession(socket);
      socket.resume();
    });
  }

  private startSession(socket: TLSSocket): void {
    const connection = ++this.protocolConnections;
    const peer: RpcPeer = new RpcPeer({
      socket,
      self: ENDPOINT_NAME,
      peer: 'agent',
      onRequest: (method, params, request) => this.answer(peer, connection, method, params, request),
      onClose: () => this.sessions.delete(connection),
    });
    this.sessions.set(connection, peer);
  }

  private answer(peer: RpcPeer, connection: number, method: string, params: unknown, request: RequestMessage): unknown {
    this.requests.push({ method, params: params as Record<string, unknown>, source: request.source, connection });
    if (this.settings.unanswered.includes(method)) return new Promise<never>(() => undefined);
    switch (method) {
      case 'handshake.hello':
        peer.setPeer(request.source);
        return { heartbeat_interval: this.settings.heartbeatIntervalMs, entity_id: this.settings.entityId, channel: 'stable' };
      case 'heartbeat.post':
        return { timestamp: Date.now() };
      case 'check_schedule.get':
        return { checks: this.settings.checks };
      case 'check_metrics.post':
        if (this.settings.refusePosts !== undefined) throw this.settings.refusePosts;
        return {};
      case 'bundle_upgrade.get_version':
      case 'binary_upgrade.get_version':
        return { version: this.settings.updates?.latestVersion(UPDATE_CHANNEL_DEFAULT) ?? null };
      default:
        throw new StrataError('AGENT_METHOD_UNKNOWN', `no method ${method}`);
    }
  }
}

/** Waits until `condition` holds (checked every 10 ms), failing after 15 s with `what`. */
export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A logger that keeps what it is told (tests look at messages, and that no token ever appears). */
export function recordingLogger(): AgentLogger & { readonly lines: { level: string; obj: object; msg: string }[] } {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}
