// Owns agents (listed while connected within 30 days), their live connections, and agent tokens.
import { createHmac } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { StrataError } from '../core/errors.js';
import { sha256 } from '../identity/secrets.js';
import { AgentConnections, type ConnectionFields, type LiveConnection } from './agent-connections.js';
import type { AgentRow, AgentTokenRow } from './agent-store.js';
import { isAgentId } from './agent-rules.js';
import { keep } from './body-merge.js';
import { newId } from './ids.js';
import { limitReached, notFound } from './monitoring-errors.js';
import { AGENT_RETENTION_MS, AGENT_TOKENS_PER_TENANT_MAX, AGENTS_PER_TENANT_MAX } from './monitoring-limits.js';
import type { MonitoringStore } from './monitoring-store.js';
import { pageOf, type Page, type PageRequest } from './paging.js';
import type { AgentTokenCreate, AgentTokenUpdate } from './schemas/agent-token-schema.js';

/** An agent token as the API shows it: the value is derived again on every read, never stored. */
export interface AgentTokenView {
  readonly id: string;
  readonly token: string;
  readonly label: string | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

/** Who presented an agent token: its tenant and the token's id. */
export interface AgentTokenOwner {
  readonly tenant: string;
  readonly tokenId: string;
}

/** Agents, their live connections and agent tokens of a tenant. */
export class AgentService {
  /** Counts a tenant's agents connected since a time, stopping at a limit (bounded work). */

  constructor(
    private readonly store: MonitoringStore,
    private readonly clock: Clock,
    /** Secret key the token values are derived with (kept outside the database). */
    private readonly tokenKey: Buffer,
    /** The live connections (in memory: they exist only while connected). */
    private readonly live: AgentConnections = new AgentConnections(),
    /** Most agents a tenant may have (AGENTS_PER_TENANT_MAX). */
    private readonly agentsMax: number = AGENTS_PER_TENANT_MAX,
  ) {}

  /** Agents that connected before this are gone from the list (spec 2.1). */
  private since(): number {
    return this.clock.now() - AGENT_RETENTION_MS;
  }

  /** A page of the agents connected within the retention, by id. */
  listAgents(tenant: string, page: PageRequest): Page<AgentRow> {
    return pageOf(this.store.agents.agents(tenant, page.marker ?? '', page.limit + 1, this.since()), page.limit, (row) => row.id);
  }

  /** One agent; MONITORING_OBJECT_NOT_FOUND when unknown or not connected within the retention. */
  agent(tenant: string, agentId: string): AgentRow {
    const found = isAgentId(agentId) ? this.store.agents.agent(tenant, agentId, this.since()) : undefined;
    if (found === undefined) throw notFound('Agent', agentId);
    return found;
  }

  /** A page of an agent's live connections, by id; MONITORING_OBJECT_NOT_FOUND when the agent is not listed. */
  listConnections(tenant: string, agentId: string, page: PageRequest): Page<LiveConnection> {
    this.agent(tenant, agentId);
    return pageOf(this.live.list(tenant, agentId, page.marker ?? '', page.limit + 1), page.limit, (row) => row.id);
  }

  /** One live connection of an agent; MONITORING_OBJECT_NOT_FOUND once it has disconnected. */
  connection(tenant: string, agentId: string, connectionId: string): LiveConnection {
    this.agent(tenant, agentId);
    const found = this.live.get(tenant, agentId, connectionId);
    if (found === undefined) throw notFound('AgentConnection', connectionId);
    return found;
  }

  /**
   * Registers a live connection (the agent endpoint's handshake) and records that the agent
   * connected now; returns the connection id. AGENT_CONNECTIONS_OVER_LIMIT when the registry is
   * full, or when the agent is a new one and the tenant has AGENTS_PER_TENANT_MAX agents.
   */
  connect(tenant: string, fields: ConnectionFields): string {
    const nowMs = this.clock.now();
    this.admitAgent(tenant, fields.agentId);
    const connection = this.live.add(tenant, fields, nowMs);
    try {
      this.store.agents.touchAgent(tenant, fields.agentId, nowMs);
    } catch (error) {
      // A connection the agent list cannot show must not stay registered.
      this.live.remove(tenant, fields.agentId, connection.id);
      throw error;
    }
    return connection.id;
  }

  /**
   * Refuses an agent id the tenant has not had within the retention when it already has
   * `agentsMax` agents: a token would otherwise add agents (rows kept for the retention) without
   * bound. Agents already listed always connect again.
   */
  private admitAgent(tenant: string, agentId: string): void {
    const since = this.since();
    if (this.store.agents.agent(tenant, agentId, since) !== undefined) return;
    const count = this.store.agents.agentCount(tenant, since, this.agentsMax);
    if (count < this.agentsMax) return;
    throw new StrataError('AGENT_CONNECTIONS_OVER_LIMIT', `the tenant has the most agents it may (${this.agentsMax}); agent ${agentId} is a new one`, {
      limit: 'tenant_agents',
      max: this.agentsMax,
    });
  }

  /** Removes a live connection (the endpoint's session closed) and records the time as last_connected; removing one twice is harmless. */
  disconnect(tenant: string, agentId: string, connectionId: string): void {
    // An agent was connected until now: last_connected moves to the disconnect, so the 30 days
    // of spec 2.1 count from when it left, not from its last hourly touch.
    if (this.live.remove(tenant, agentId, connectionId)) this.store.agents.touchAgent(tenant, agentId, this.clock.now());
  }

  /** Records that a connected agent is still connected now (last_connected; spec 2.1). */
  touch(tenant: string, agentId: string): void {
    this.store.agents.touchAgent(tenant, agentId, this.clock.now());
  }

  /** How many live connections this process holds, every tenant together. */
  liveConnections(): number {
    return this.live.size;
  }

  /** The token value of an id: a keyed hash of tenant and id, then `:tenant`, like the reference's values. */
  private tokenValue(tenant: string, id: string): string {
    return `${createHmac('sha256', this.tokenKey).update(`${tenant}\u0000${id}`).digest('hex')}:${tenant}`;
  }

  private view(tenant: string, row: AgentTokenRow): AgentTokenView {
    return { id: row.id, token: this.tokenValue(tenant, row.id), label: row.label, createdMs: row.createdMs, updatedMs: row.updatedMs };
  }

  /** Creates an agent token from a body its schema has admitted; returns its id. */
  createToken(tenant: string, body: AgentTokenCreate): string {
    const label = body.label ?? null;
    return this.store.transaction(() => {
      if (this.store.agents.tokenCount(tenant) >= AGENT_TOKENS_PER_TENANT_MAX) throw limitReached('AgentToken', AGENT_TOKENS_PER_TENANT_MAX);
      const id = newId('agentToken');
      this.store.agents.insertToken(tenant, id, label, sha256(this.tokenValue(tenant, id)), this.clock.now());
      return id;
    });
  }

  /** One agent token with its value. */
  token(tenant: string, id: string): AgentTokenView {
    const row = this.store.agents.token(tenant, id);
    if (row === undefined) throw notFound('AgentToken', id);
    return this.view(tenant, row);
  }

  /** Changes a token's label (a body without one keeps it). */
  updateToken(tenant: string, id: string, body: AgentTokenUpdate): void {
    const existing = this.token(tenant, id);
    this.store.agents.labelToken(tenant, id, keep(body.label, existing.label), this.clock.now());
  }

  /** Deletes a token; agents using it can no longer connect. */
  deleteToken(tenant: string, id: string): void {
    if (!this.store.agents.deleteToken(tenant, id)) throw notFound('AgentToken', id);
  }

  /** A page of agent tokens with their values. */
  listTokens(tenant: string, page: PageRequest): Page<AgentTokenView> {
    const rows = this.store.agents.tokens(tenant, page.marker ?? '', page.limit + 1).map((row) => this.view(tenant, row));
    return pageOf(rows, page.limit, (row) => row.id);
  }

  /** The tenant and id of a presented token value (the agent endpoint's check), or undefined when no token has it. */
  tokenOf(token: string): AgentTokenOwner | undefined {
    const found = this.store.agents.tokenByHash(sha256(token));
    return found === undefined ? undefined : { tenant: found.tenant, tokenId: found.id };
  }
}
