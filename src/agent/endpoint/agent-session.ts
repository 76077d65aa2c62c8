// Owns one agent connection on the endpoint after its first bytes: the RpcPeer and its line bound, the hello and its timeout, the idle timeout, the request rate limit, heartbeats and dispatch of the other methods.
import type { TLSSocket } from 'node:tls';
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import { loggableError } from '../../monitoring/loggable-error.js';
import {
  AGENT_HELLO_LINE_BYTES_MAX,
  AGENT_IDLE_HEARTBEATS_MAX,
  AGENT_LINE_BYTES_MAX,
  AGENT_RATE_LIMITED_CLOSE_AFTER,
  AGENT_REAUTH_INTERVAL_MS,
  AGENT_REQUESTS_BURST_MAX,
  AGENT_REQUESTS_PER_SECOND_MAX,
  AGENT_TOUCH_INTERVAL_MS,
} from '../agent-limits.js';
import { ENDPOINT_NAME, type HelloResult, type RequestMessage } from '../protocol/messages.js';
import { heartbeatParams, helloParams } from '../protocol/method-params.js';
import { RpcPeer } from '../protocol/rpc-peer.js';
import type { AgentBackend, AgentPrincipal } from './agent-backend.js';
import type { AgentHub, HubLogger, HubMember } from './agent-hub.js';
import { handleMethod, type MethodContext, type SessionCounters } from './agent-methods.js';
import { RequestBudget } from './request-budget.js';

/** The timers and answers every session of an endpoint shares. */
export interface SessionSettings {
  /** The heartbeat interval agents are told; AGENT_IDLE_HEARTBEATS_MAX of them without a message closes a session. */
  readonly heartbeatIntervalMs: number;
  /** How long a session has for a successful handshake.hello. */
  readonly helloTimeoutMs: number;
  /** The update channel agents are told. */
  readonly channel: string;
}

/** What a session is built from. */
export interface AgentSessionDeps {
  readonly socket: TLSSocket;
  /** The zone of the listener the connection came in on. */
  readonly zoneId: string;
  readonly backend: AgentBackend;
  readonly hub: AgentHub;
  readonly clock: Clock;
  readonly logger: HubLogger;
  readonly settings: SessionSettings;
  readonly counters: SessionCounters;
  /** Called once, when the hello succeeded. */
  readonly onHello?: () => void;
}

/** The state of a handshaken session. */
interface Handshaken {
  readonly principal: AgentPrincipal;
  /** Kept to re-authenticate on heartbeats (a deleted token ends the session); never logged. */
  readonly token: string;
  readonly agentId: string;
  readonly connectionId: string;
  lastTouchMs: number;
  /** When the token was last found valid: heartbeats check it again at most every AGENT_REAUTH_INTERVAL_MS. */
  lastAuthMs: number;
}

/** The agent's address as the connection list shows it: IPv4-mapped IPv6 addresses in their IPv4 form. */
function agentIp(socket: TLSSocket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/**
 * One agent connection. Until a successful handshake.hello only that method is served (any other
 * closes with AGENT_HANDSHAKE_REQUIRED), lines are at most AGENT_HELLO_LINE_BYTES_MAX and the hello
 * timer runs; afterwards lines may reach AGENT_LINE_BYTES_MAX and the idle timer closes the session
 * after AGENT_IDLE_HEARTBEATS_MAX heartbeat intervals without any message. Every request spends one
 * of the connection's RequestBudget (AGENT_REQUESTS_PER_SECOND_MAX, bursts of AGENT_REQUESTS_BURST_MAX).
 */
export class AgentSession implements HubMember {
  private readonly peer: RpcPeer;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly budget: RequestBudget;
  private idleTimer: NodeJS.Timeout | undefined;
  private handshaken: Handshaken | undefined;
  private finished = false;
  /** What the agent sent as of the last idle tick, and how many ticks in a row saw nothing new. */
  private idleSeen = 0;
  private idleTicks = 0;

  constructor(private readonly deps: AgentSessionDeps) {
    this.budget = new RequestBudget(AGENT_REQUESTS_PER_SECOND_MAX, AGENT_REQUESTS_BURST_MAX, deps.clock.now());
    this.peer = new RpcPeer({
      socket: deps.socket,
      self: ENDPOINT_NAME,
      peer: 'agent',
      // Small until the hello succeeds: an unauthenticated connection makes the endpoint hold little.
      lineBytesMax: AGENT_HELLO_LINE_BYTES_MAX,
      onRequest: (method, params, request) => this.onRequest(method, params, request),
      onClose: (error) => this.finish(error),
    });
    this.helloTimer = setTimeout(() => this.close('no handshake.hello in time', new StrataError('AGENT_HANDSHAKE_REQUIRED', `no handshake.hello within ${deps.settings.helloTimeoutMs} ms`)), deps.settings.helloTimeoutMs);
    this.helloTimer.unref();
  }

  /** Closes the connection (after what was written is flushed) and reports it disconnected. Idempotent. */
  close(reason: string, error?: StrataError): void {
    if (this.finished) return;
    this.deps.logger.info({ zoneId: this.deps.zoneId, agentId: this.handshaken?.agentId, connectionId: this.handshaken?.connectionId, reason }, 'agent connection closed by the endpoint');
    this.peer.close(error);
    this.finish(error);
  }

  /**
   * Tells the agent its schedule changed; resolves true once the agent acknowledged it, false (the
   * failure logged) otherwise, so the hub can try another session of the agent. Never rejects.
   */
  async scheduleChanged(): Promise<boolean> {
    if (this.finished || this.handshaken === undefined) return false;
    this.deps.counters.schedulePushes++;
    const { agentId, connectionId } = this.handshaken;
    try {
      await this.peer.request('check_schedule.changed', {});
      return true;
    } catch (error) {
      this.deps.logger.warn({ zoneId: this.deps.zoneId, agentId, connectionId, error: loggableError(error) }, 'check_schedule.changed not acknowledged');
      return false;
    }
  }

  /** Sends a request to the agent (host_info.get...); AGENT_CONNECTION_CLOSED once the session closed or before its hello. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.finished || this.handshaken === undefined) return Promise.reject(new StrataError('AGENT_CONNECTION_CLOSED', `cannot send ${method}: the agent session is closed`, { method }));
    return this.peer.request(method, params, timeoutMs);
  }

  /** Stops the timers and leaves the hub (reporting the disconnect) once. */
  private finish(error: StrataError | undefined): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.helloTimer);
    clearInterval(this.idleTimer);
    if (this.handshaken !== undefined) {
      this.deps.logger.info({ zoneId: this.deps.zoneId, agentId: this.handshaken.agentId, connectionId: this.handshaken.connectionId, errCode: error?.code }, 'agent disconnected');
    }
    this.deps.hub.remove(this);
  }

  private async onRequest(method: string, params: unknown, request: RequestMessage): Promise<unknown> {
    try {
      this.spend(request);
      return this.dispatch(method, params, request);
    } catch (error) {
      if (error instanceof StrataError) {
        this.deps.counters.protocolErrors++;
        if (error.code === 'AGENT_TOKEN_INVALID' || error.code === 'AGENT_CONNECTIONS_OVER_LIMIT') this.deps.counters.refused++;
      }
      throw error;
    }
  }

  /**
   * Spends one request of the budget. Over it the request is refused with a 400 AGENT_RATE_LIMITED
   * (the connection stays); the AGENT_RATE_LIMITED_CLOSE_AFTER-th refusal without a pause is answered
   * and then closes the connection.
   */
  private spend(request: RequestMessage): void {
    if (this.budget.take(this.deps.clock.now())) return;
    const error = new StrataError(
      'AGENT_RATE_LIMITED',
      `more than ${AGENT_REQUESTS_PER_SECOND_MAX} requests per second (bursts of ${AGENT_REQUESTS_BURST_MAX}) on this connection; ${request.method.slice(0, 64)} was not served`,
      { method: request.method.slice(0, 64), requestsPerSecondMax: AGENT_REQUESTS_PER_SECOND_MAX },
    );
    if (this.budget.refusedInRun >= AGENT_RATE_LIMITED_CLOSE_AFTER) {
      this.peer.fail(request.id, error);
      this.close(`${AGENT_RATE_LIMITED_CLOSE_AFTER} requests refused for their rate without a pause`, error);
    }
    throw error;
  }

  private dispatch(method: string, params: unknown, request: RequestMessage): unknown {
    const handshaken = this.handshaken;
    if (handshaken === undefined) {
      if (method !== 'handshake.hello') throw new StrataError('AGENT_HANDSHAKE_REQUIRED', `${method.slice(0, 64)} before handshake.hello`, { method: method.slice(0, 64) });
      return this.hello(params, request);
    }
    if (method === 'handshake.hello') throw new StrataError('AGENT_PARAMS_INVALID', 'the handshake is already done on this connection', { field: 'method' });
    if (method === 'heartbeat.post') return this.heartbeat(handshaken, params);
    return handleMethod(this.context(handshaken), method, params);
  }

  /** handshake.hello: authenticate, admit into the hub (limits, replacement), start the idle timer. */
  private hello(raw: unknown, request: RequestMessage): HelloResult {
    const params = helloParams(raw);
    const principal = this.deps.backend.authenticate(params.token);
    if (principal === undefined) throw new StrataError('AGENT_TOKEN_INVALID', 'the agent token is unknown or deleted');
    const connectionId = this.deps.hub.admit(this, principal, {
      agentId: params.agent_id,
      guid: request.source,
      processVersion: params.process_version,
      bundleVersion: params.bundle_version,
      agentIp: agentIp(this.deps.socket),
      zoneId: this.deps.zoneId,
    });
    const nowMs = this.deps.clock.now();
    this.handshaken = { principal, token: params.token, agentId: params.agent_id, connectionId, lastTouchMs: nowMs, lastAuthMs: nowMs };
    clearTimeout(this.helloTimer);
    this.peer.setPeer(request.source);
    this.peer.setLineBytesMax(AGENT_LINE_BYTES_MAX);
    this.startIdleTimer();
    this.deps.counters.hellos++;
    this.deps.onHello?.();
    this.deps.logger.info({ tenant: principal.tenant, agentId: params.agent_id, zoneId: this.deps.zoneId, connectionId, agentIp: agentIp(this.deps.socket) }, 'agent connected');
    const { heartbeatIntervalMs, channel } = this.deps.settings;
    return { heartbeat_interval: heartbeatIntervalMs, entity_id: this.deps.hub.entityOf(this), channel };
  }

  /**
   * heartbeat.post: checks the token again when AGENT_REAUTH_INTERVAL_MS passed since it was last
   * found valid (a deleted one closes the session); refreshes last_connected at most every AGENT_TOUCH_INTERVAL_MS.
   */
  private heartbeat(handshaken: Handshaken, raw: unknown): { timestamp: number } {
    heartbeatParams(raw);
    const nowMs = this.deps.clock.now();
    const { tenant, tokenId } = handshaken.principal;
    if (nowMs - handshaken.lastAuthMs >= AGENT_REAUTH_INTERVAL_MS) {
      const principal = this.deps.backend.authenticate(handshaken.token);
      if (principal === undefined || principal.tenant !== tenant || principal.tokenId !== tokenId) {
        throw new StrataError('AGENT_TOKEN_INVALID', 'the agent token was deleted');
      }
      handshaken.lastAuthMs = nowMs;
    }
    if (nowMs - handshaken.lastTouchMs >= AGENT_TOUCH_INTERVAL_MS) {
      handshaken.lastTouchMs = nowMs;
      this.deps.backend.touch(tenant, handshaken.agentId);
    }
    this.deps.counters.heartbeats++;
    return { timestamp: nowMs };
  }

  private context(handshaken: Handshaken): MethodContext {
    const { backend, clock, zoneId, counters, hub, settings } = this.deps;
    return {
      backend,
      clock,
      zoneId,
      counters,
      tenant: handshaken.principal.tenant,
      channel: settings.channel,
      checkOf: (checkId) => hub.checkOf(this, checkId),
      schedule: () => hub.schedule(this),
    };
  }

  /** Ticks every heartbeat interval; AGENT_IDLE_HEARTBEATS_MAX ticks in a row without a message close the session. */
  private startIdleTimer(): void {
    this.idleSeen = this.peer.messagesIn;
    this.idleTimer = setInterval(() => {
      const seen = this.peer.messagesIn;
      this.idleTicks = seen === this.idleSeen ? this.idleTicks + 1 : 0;
      this.idleSeen = seen;
      if (this.idleTicks >= AGENT_IDLE_HEARTBEATS_MAX) {
        this.close('idle', new StrataError('AGENT_REQUEST_TIMEOUT', `no message for ${AGENT_IDLE_HEARTBEATS_MAX} heartbeat intervals`));
      }
    }, this.deps.settings.heartbeatIntervalMs);
    this.idleTimer.unref();
  }
}
