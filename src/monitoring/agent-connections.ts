// Owns the live agent connections of this process: registered at the agent's handshake, gone at disconnect (spec 2.2), held in memory only.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { isAgentId } from './agent-rules.js';
import { newId } from './ids.js';
import { MONITORING_AGENT_CONNECTIONS_MAX } from './monitoring-limits.js';

/** What the agent endpoint knows of a connection at its handshake. */
export interface ConnectionFields {
  readonly agentId: string;
  /** The agent's instance guid (the hello's `source`). */
  readonly guid: string;
  readonly processVersion: string;
  readonly bundleVersion: string;
  /** The remote address of the TLS connection. */
  readonly agentIp: string;
  /** The monitoring zone whose endpoint listener took the connection. */
  readonly zoneId: string;
}

/** One live connection of an agent (spec 2.2 plus the zone and when it connected). */
export interface LiveConnection extends ConnectionFields {
  readonly id: string;
  readonly connectedMs: number;
}

/** Orders ids as SQLite orders TEXT (by UTF-16 code unit here; ids are ASCII, so the same order). */
function byId(a: LiveConnection, b: LiveConnection): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The live connections by tenant, agent and id. A connection exists only while its TLS connection
 * is open, so nothing is stored: a restart starts empty, as the agents reconnect. Bounded by
 * `connectionsMax` in all (the endpoint refuses connections before that with its own, equal limit).
 * Tenants are separate maps, so a lookup never reaches another tenant's connections.
 */
export class AgentConnections {
  private readonly byTenant = new Map<string, Map<string, Map<string, LiveConnection>>>();
  private total = 0;

  constructor(private readonly connectionsMax: number = MONITORING_AGENT_CONNECTIONS_MAX) {
    assert(Number.isSafeInteger(connectionsMax) && connectionsMax > 0, 'connectionsMax is a positive integer');
  }

  /** How many connections are registered, every tenant together. */
  get size(): number {
    return this.total;
  }

  /** Registers a connection with a fresh id; AGENT_CONNECTIONS_OVER_LIMIT when `connectionsMax` are registered. */
  add(tenant: string, fields: ConnectionFields, connectedMs: number): LiveConnection {
    assert(isAgentId(fields.agentId), 'the endpoint registers only valid agent ids (the hello validator checks them)');
    if (this.total >= this.connectionsMax) {
      throw new StrataError('AGENT_CONNECTIONS_OVER_LIMIT', `${this.connectionsMax} agent connections are open`, { limit: this.connectionsMax });
    }
    let agents = this.byTenant.get(tenant);
    if (agents === undefined) this.byTenant.set(tenant, (agents = new Map()));
    let connections = agents.get(fields.agentId);
    if (connections === undefined) agents.set(fields.agentId, (connections = new Map()));
    let id = newId('connection');
    // 62^8 random ids make a clash within one agent's few connections all but impossible; never reuse one.
    while (connections.has(id)) id = newId('connection');
    const connection: LiveConnection = {
      id,
      agentId: fields.agentId,
      guid: fields.guid,
      processVersion: fields.processVersion,
      bundleVersion: fields.bundleVersion,
      agentIp: fields.agentIp,
      zoneId: fields.zoneId,
      connectedMs,
    };
    connections.set(id, connection);
    this.total += 1;
    return connection;
  }

  /** Removes a connection; false when it is not registered (removing twice is harmless). */
  remove(tenant: string, agentId: string, id: string): boolean {
    const agents = this.byTenant.get(tenant);
    const connections = agents?.get(agentId);
    if (agents === undefined || connections === undefined || !connections.delete(id)) return false;
    this.total -= 1;
    // Empty maps go too, so memory follows the live connections, not every agent ever seen.
    if (connections.size === 0) agents.delete(agentId);
    if (agents.size === 0) this.byTenant.delete(tenant);
    return true;
  }

  /** One connection of an agent, or undefined. */
  get(tenant: string, agentId: string, id: string): LiveConnection | undefined {
    return this.byTenant.get(tenant)?.get(agentId)?.get(id);
  }

  /** Up to `limit` connections of an agent with id >= `marker`, by id (one agent holds few: one per zone). */
  list(tenant: string, agentId: string, marker: string, limit: number): LiveConnection[] {
    const connections = this.byTenant.get(tenant)?.get(agentId);
    if (connections === undefined) return [];
    const from: LiveConnection[] = [];
    for (const connection of connections.values()) if (connection.id >= marker) from.push(connection);
    return from.sort(byId).slice(0, limit);
  }

  /** How many connections an agent holds. */
  countOf(tenant: string, agentId: string): number {
    return this.byTenant.get(tenant)?.get(agentId)?.size ?? 0;
  }
}
