// Owns the agent endpoint's settings (where it listens, its limits and timers, each checked with a coded CONFIG_INVALID) and the shape of its stats.
import { configError } from '../../core/config-error.js';
import {
  AGENT_CONNECTIONS_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS,
  AGENT_HEARTBEAT_INTERVAL_MS_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS_MIN,
  AGENT_HELLO_TIMEOUT_MS,
  AGENT_PENDING_HANDSHAKES_MAX,
  AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX,
  AGENT_TOKEN_CONNECTIONS_MAX,
  AGENT_UPDATE_DOWNLOADS_MAX,
  AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX,
} from '../agent-limits.js';
import { isChannel, UPDATE_CHANNEL_DEFAULT, type UpdateStore } from '../update/update-store.js';
import type { AgentTlsMaterial } from './agent-ca.js';
import type { SessionCounters } from './agent-methods.js';
import type { SessionSettings } from './agent-session.js';

/** One listener: the monitoring zone its agents' results belong to, and where it listens. */
export interface AgentListen {
  readonly zoneId: string;
  readonly host: string;
  readonly port: number;
}

/** Settings of the endpoint (the CLI fills them from `strata serve` flags). */
export interface AgentEndpointOptions {
  /** One TLS listener per zone. */
  readonly listen: readonly AgentListen[];
  readonly tls: AgentTlsMaterial;
  /** Told to agents in the hello result (AGENT_HEARTBEAT_INTERVAL_MS; from AGENT_HEARTBEAT_INTERVAL_MS_MIN to AGENT_HEARTBEAT_INTERVAL_MS_MAX). */
  readonly heartbeatIntervalMs?: number;
  /** Most handshaken connections in all (AGENT_CONNECTIONS_MAX); a hello beyond it is refused with AGENT_CONNECTIONS_OVER_LIMIT. */
  readonly connectionsMax?: number;
  /** Most handshaken connections of one agent token (AGENT_TOKEN_CONNECTIONS_MAX). */
  readonly tokenConnectionsMax?: number;
  /** Most connections not handshaken (in TLS, before or in hello) (AGENT_PENDING_HANDSHAKES_MAX); beyond it new connections are dropped at once. */
  readonly pendingHandshakesMax?: number;
  /** Most of those from one remote address, an IPv6 /64 (AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX); beyond it that address's new connections are dropped at once. */
  readonly pendingPerAddressMax?: number;
  /** Most update downloads at once (AGENT_UPDATE_DOWNLOADS_MAX), a pool apart from the pending handshakes; a download beyond it is dropped. */
  readonly downloadsMax?: number;
  /** Most update downloads of one remote address, an IPv6 /64 (AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX). */
  readonly downloadsPerAddressMax?: number;
  /** How long a connection has from its TCP accept to a successful hello, TLS and first bytes included (AGENT_HELLO_TIMEOUT_MS, also its maximum); tests shorten it. */
  readonly helloTimeoutMs?: number;
  /** The update channel agents are told (UPDATE_CHANNEL_DEFAULT). */
  readonly channel?: string;
  /** Published update bundles, served as `GET /upgrades/...` over the same TLS ports; without it HTTP connections are dropped. */
  readonly updates?: UpdateStore;
}

/** The endpoint's counters: gauges (connections, handshaking, downloads, sessions) and, from the sessions' counters, totals since start. */
export interface AgentEndpointStats extends SessionCounters {
  connections: number;
  /** Connections in their TLS handshake, before their first bytes or before a successful hello (the pending pool). */
  handshaking: number;
  /** Update downloads in progress (their own pool). */
  downloads: number;
  sessions: number;
  /** TLS handshakes that failed (logged only as a summary line at most every AGENT_LOG_SUMMARY_INTERVAL_MS). */
  tlsFailures: number;
}

/** The settings every part of the endpoint reads, defaults filled in. */
export interface EndpointLimits extends SessionSettings {
  readonly connectionsMax: number;
  readonly tokenConnectionsMax: number;
  readonly pendingHandshakesMax: number;
  readonly pendingPerAddressMax: number;
  readonly downloadsMax: number;
  readonly downloadsPerAddressMax: number;
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) throw configError(option, 'a positive integer', chosen);
  return chosen;
}

/** The endpoint's settings from its options; CONFIG_INVALID naming the first option out of range. */
export function endpointLimits(options: AgentEndpointOptions): EndpointLimits {
  if (options.listen.length === 0) throw configError('listen', 'at least one zone listener', '(none)');
  const zones = new Set(options.listen.map((listen) => listen.zoneId));
  if (zones.size !== options.listen.length) throw configError('listen', 'one listener per zone', options.listen.map((listen) => listen.zoneId).join(','));
  const heartbeatIntervalMs = positiveInteger('heartbeatIntervalMs', options.heartbeatIntervalMs, AGENT_HEARTBEAT_INTERVAL_MS);
  if (heartbeatIntervalMs < AGENT_HEARTBEAT_INTERVAL_MS_MIN || heartbeatIntervalMs > AGENT_HEARTBEAT_INTERVAL_MS_MAX) {
    throw configError('heartbeatIntervalMs', `from ${AGENT_HEARTBEAT_INTERVAL_MS_MIN} to ${AGENT_HEARTBEAT_INTERVAL_MS_MAX} ms (what agents accept)`, heartbeatIntervalMs);
  }
  const helloTimeoutMs = positiveInteger('helloTimeoutMs', options.helloTimeoutMs, AGENT_HELLO_TIMEOUT_MS);
  if (helloTimeoutMs > AGENT_HELLO_TIMEOUT_MS) throw configError('helloTimeoutMs', `at most ${AGENT_HELLO_TIMEOUT_MS} ms`, helloTimeoutMs);
  const channel = options.channel ?? UPDATE_CHANNEL_DEFAULT;
  if (!isChannel(channel)) throw configError('channel', 'an update channel name (a-z, 0-9, dash)', channel);
  return {
    heartbeatIntervalMs,
    helloTimeoutMs,
    channel,
    connectionsMax: positiveInteger('connectionsMax', options.connectionsMax, AGENT_CONNECTIONS_MAX),
    tokenConnectionsMax: positiveInteger('tokenConnectionsMax', options.tokenConnectionsMax, AGENT_TOKEN_CONNECTIONS_MAX),
    pendingHandshakesMax: positiveInteger('pendingHandshakesMax', options.pendingHandshakesMax, AGENT_PENDING_HANDSHAKES_MAX),
    pendingPerAddressMax: positiveInteger('pendingPerAddressMax', options.pendingPerAddressMax, AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX),
    downloadsMax: positiveInteger('downloadsMax', options.downloadsMax, AGENT_UPDATE_DOWNLOADS_MAX),
    downloadsPerAddressMax: positiveInteger('downloadsPerAddressMax', options.downloadsPerAddressMax, AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX),
  };
}
