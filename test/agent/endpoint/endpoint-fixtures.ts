// Owns the endpoint tests' fixtures: an in-memory AgentBackend, agent checks, a started endpoint, and a test agent (real TLS to 127.0.0.1 plus an RpcPeer).
import { once } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import type { AgentBackend, AgentCheck, AgentPrincipal, LiveConnectionFields } from '../../../src/agent/endpoint/agent-backend.js';
import { AgentEndpoint, type AgentEndpointOptions, type AgentListen, type EndpointLogger } from '../../../src/agent/endpoint/agent-endpoint.js';
import type { AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import type { HelloParams } from '../../../src/agent/protocol/messages.js';
import { RpcPeer } from '../../../src/agent/protocol/rpc-peer.js';
import type { Clock } from '../../../src/core/clock.js';
import type { StrataError } from '../../../src/core/errors.js';
import type { MonitoringChange } from '../../../src/monitoring/change-feed.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { CheckTypeId } from '../../../src/monitoring/check-types.js';
import { checkResultTimestamp } from '../../../src/monitoring/runner/result-timestamp.js';
import type { TimestampBounds } from '../../../src/store-types.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';

/** A logger that keeps nothing. */
export const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A stored agent check of `entityId`. */
export function agentCheck(entityId: string, id: string, type: CheckTypeId = 'agent.cpu', extra: Partial<CheckDoc> = {}): AgentCheck {
  const doc: CheckDoc = {
    label: id,
    type,
    details: {},
    monitoring_zones_poll: null,
    target_alias: null,
    target_hostname: null,
    target_resolver: null,
    period: 60,
    timeout: 30,
    disabled: false,
    metadata: null,
    ...extra,
  };
  return { entityId, check: { id, entityId, doc, createdMs: 0, updatedMs: 0 } };
}

/** One registered connection of the fake backend. */
export interface FakeConnection {
  readonly tenant: string;
  readonly id: string;
  readonly fields: LiveConnectionFields;
}

/** An in-memory AgentBackend: tokens, entities bound to agents, agent checks, live connections, accepted results, changes. */
export class FakeBackend implements AgentBackend {
  readonly tokens = new Map<string, AgentPrincipal>();
  /** Entity `tenant/id` → the agent it names. */
  readonly entities = new Map<string, string | null>();
  readonly checks: { tenant: string; check: AgentCheck }[] = [];
  readonly live = new Map<string, FakeConnection>();
  readonly disconnects: string[] = [];
  readonly touches: string[] = [];
  readonly accepted: { tenant: string; check: StoredDoc<CheckDoc>; result: CheckResult }[] = [];
  latest: string | null = null;
  /** The timestamps the engine would take; set, accept() refuses others as the real runtime does. */
  engineBounds: TimestampBounds | undefined;
  private readonly listeners = new Set<(change: MonitoringChange) => void>();
  private connectionCount = 0;

  authenticate(token: string): AgentPrincipal | undefined {
    return this.tokens.get(token);
  }

  entitiesOf(tenant: string, agentId: string): readonly string[] {
    const prefix = `${tenant}/`;
    return [...this.entities].filter(([key, agent]) => key.startsWith(prefix) && agent === agentId).map(([key]) => key.slice(prefix.length)).sort();
  }

  checksOf(tenant: string, entityIds: readonly string[]): readonly AgentCheck[] {
    return this.checks.filter((entry) => entry.tenant === tenant && entityIds.includes(entry.check.entityId)).map((entry) => entry.check);
  }

  connected(tenant: string, fields: LiveConnectionFields): string {
    const id = `cn${++this.connectionCount}`;
    this.live.set(id, { tenant, id, fields });
    return id;
  }

  disconnected(tenant: string, agentId: string, connectionId: string): void {
    if (this.live.get(connectionId)?.fields.agentId === agentId) this.live.delete(connectionId);
    this.disconnects.push(connectionId);
  }

  touch(tenant: string, agentId: string): void {
    this.touches.push(`${tenant}/${agentId}`);
  }

  accept(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void {
    // The runtime's own timestamp rule over the bounds a test gives the engine, when it gives any.
    if (this.engineBounds !== undefined) checkResultTimestamp(result.timestampMs, this.engineBounds);
    this.accepted.push({ tenant, check, result });
  }

  subscribe(listener: (change: MonitoringChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  agentOfEntity(tenant: string, entityId: string): string | null | undefined {
    return this.entities.get(`${tenant}/${entityId}`);
  }

  latestBundleVersion(): string | null {
    return this.latest;
  }

  /** Binds an entity to an agent (null: unbinds) and tells subscribers. */
  bind(tenant: string, entityId: string, agentId: string | null, announce = true): void {
    const op = this.entities.has(`${tenant}/${entityId}`) ? 'update' : 'create';
    this.entities.set(`${tenant}/${entityId}`, agentId);
    if (announce) this.emit({ kind: 'entity', op, tenant, entityId, id: entityId });
  }

  /** Adds a check and tells subscribers. */
  addCheck(tenant: string, check: AgentCheck, announce = true): void {
    this.checks.push({ tenant, check });
    if (announce) this.emit({ kind: 'check', op: 'create', tenant, entityId: check.entityId, id: check.check.id });
  }

  /** Tells subscribers about a change. */
  emit(change: MonitoringChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Subscribers now. */
  get subscribers(): number {
    return this.listeners.size;
  }
}

/** A hello's params with a token and agent id. */
export function helloOf(token: string, agentId: string): HelloParams {
  return { token, agent_id: agentId, agent_name: 'Strata test agent', process_version: '1.0.0', bundle_version: '1.0.1', features: [{ name: 'upgrades', version: '1.0.0' }] };
}

/** A test agent: one TLS connection with an RpcPeer, the requests the endpoint sent it, and how it closed. */
export interface TestAgent {
  readonly socket: TLSSocket;
  readonly peer: RpcPeer;
  /** Requests the endpoint sent, in order. */
  readonly received: { method: string; params: unknown }[];
  /** Settles with the error that closed the connection (undefined for a clean end). */
  readonly closed: Promise<StrataError | undefined>;
  /** Resolves once `count` requests arrived. */
  receivedAtLeast(count: number): Promise<void>;
}

/** Connects to the endpoint at `port` trusting only `ca`; resolves once TLS is up. */
export async function connectAgent(port: number, ca: string, source = 'guid-1'): Promise<TestAgent> {
  const socket = connect({ host: '127.0.0.1', port, ca, rejectUnauthorized: true });
  await once(socket, 'secureConnect');
  const received: { method: string; params: unknown }[] = [];
  const waiters: (() => void)[] = [];
  let onClosed: (error: StrataError | undefined) => void = () => undefined;
  const closed = new Promise<StrataError | undefined>((resolve) => (onClosed = resolve));
  const peer = new RpcPeer({
    socket,
    self: source,
    peer: 'endpoint',
    onRequest: (method, params) => {
      received.push({ method, params });
      for (const wake of waiters.splice(0)) wake();
      return {};
    },
    onClose: (error) => onClosed(error),
  });
  const receivedAtLeast = async (count: number): Promise<void> => {
    while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { socket, peer, received, closed, receivedAtLeast };
}

/** A started endpoint and what a test needs of it; stop() is idempotent. */
export interface RunningEndpoint {
  readonly endpoint: AgentEndpoint;
  readonly bound: readonly AgentListen[];
  /** The port of a zone's listener (the first one's by default). */
  port(zoneId?: string): number;
}

/** One line a RecordingLogger kept. */
export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: Record<string, unknown>;
  readonly msg: string;
}

/** A logger that keeps every line (bounded by what a test logs). */
export class RecordingLogger {
  readonly lines: LoggedLine[] = [];
  info(obj: object, msg: string): void {
    this.lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg });
  }
  warn(obj: object, msg: string): void {
    this.lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg });
  }
  error(obj: object, msg: string): void {
    this.lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg });
  }
}

/** Starts an endpoint on 127.0.0.1 port 0 for each zone (mzdfw by default), logging to `logger` (quiet by default). */
export async function startEndpoint(
  backend: AgentBackend,
  tls: AgentTlsMaterial,
  clock: Clock,
  options: Partial<AgentEndpointOptions> & { zones?: readonly string[]; logger?: EndpointLogger } = {},
): Promise<RunningEndpoint> {
  const { zones = ['mzdfw'], logger = quietLogger, ...rest } = options;
  const endpoint = new AgentEndpoint({ backend, clock, logger, options: { ...rest, tls, listen: zones.map((zoneId) => ({ zoneId, host: '127.0.0.1', port: 0 })) } });
  const bound = await endpoint.start();
  return {
    endpoint,
    bound,
    port: (zoneId = zones[0] as string) => {
      const found = bound.find((listen) => listen.zoneId === zoneId);
      if (found === undefined) throw new Error(`no listener for ${zoneId}`);
      return found.port;
    },
  };
}

/** Resolves once `condition()` holds, polling every 5 ms (at most `tries` times). */
export async function until(condition: () => boolean, tries = 1_000): Promise<void> {
  for (let i = 0; i < tries && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition never held');
}
