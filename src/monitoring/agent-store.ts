// Owns the SQL of agents (when each last connected) and agent tokens; live connections are in memory (agent-connections.ts).
import type Database from 'better-sqlite3';

/** An agent as stored: its id and when it last connected (ms). */
export interface AgentRow {
  readonly id: string;
  readonly lastConnectedMs: number;
}

/** An agent token as stored: never its value, only its SHA-256. */
export interface AgentTokenRow {
  readonly id: string;
  readonly label: string | null;
  readonly tokenSha256: Buffer;
  readonly createdMs: number;
  readonly updatedMs: number;
}

interface RawToken {
  id: string;
  label: string | null;
  token_sha256: Buffer;
  created_ms: number;
  updated_ms: number;
}

function toToken(row: RawToken): AgentTokenRow {
  return { id: row.id, label: row.label, tokenSha256: row.token_sha256, createdMs: row.created_ms, updatedMs: row.updated_ms };
}

/** Prepared statements over mon_agent and mon_agent_token. */
export class AgentStore {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      upsertAgent: db.prepare(
        'INSERT INTO mon_agent (tenant, id, last_connected_ms) VALUES (?, ?, ?) ON CONFLICT (tenant, id) DO UPDATE SET last_connected_ms = max(last_connected_ms, excluded.last_connected_ms)',
      ),
      agent: db.prepare<[string, string, number], { id: string; last_connected_ms: number }>(
        'SELECT id, last_connected_ms FROM mon_agent WHERE tenant = ? AND id = ? AND last_connected_ms >= ?',
      ),
      agents: db.prepare<[string, string, number, number], { id: string; last_connected_ms: number }>(
        'SELECT id, last_connected_ms FROM mon_agent WHERE tenant = ? AND id >= ? AND last_connected_ms >= ? ORDER BY id LIMIT ?',
      ),
      insertToken: db.prepare('INSERT INTO mon_agent_token (tenant, id, label, token_sha256, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)'),
      token: db.prepare<[string, string], RawToken>('SELECT id, label, token_sha256, created_ms, updated_ms FROM mon_agent_token WHERE tenant = ? AND id = ?'),
      tokens: db.prepare<[string, string, number], RawToken>(
        'SELECT id, label, token_sha256, created_ms, updated_ms FROM mon_agent_token WHERE tenant = ? AND id >= ? ORDER BY id LIMIT ?',
      ),
      agentCount: db.prepare<[string, number, number], { n: number }>(
        'SELECT count(*) AS n FROM (SELECT 1 FROM mon_agent WHERE tenant = ? AND last_connected_ms >= ? LIMIT ?)',
      ),
      tokenCount: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM mon_agent_token WHERE tenant = ?'),
      labelToken: db.prepare('UPDATE mon_agent_token SET label = ?, updated_ms = ? WHERE tenant = ? AND id = ?'),
      deleteToken: db.prepare('DELETE FROM mon_agent_token WHERE tenant = ? AND id = ?'),
      tokenByHash: db.prepare<[Buffer], { tenant: string; id: string }>('SELECT tenant, id FROM mon_agent_token WHERE token_sha256 = ?'),
    };
  }

  /** Records that an agent connected at `nowMs` (at each handshake, and while it stays connected); the time never moves back. */
  touchAgent(tenant: string, agentId: string, nowMs: number): void {
    this.s.upsertAgent.run(tenant, agentId, nowMs);
  }

  /** The agent, when it connected at or after `sinceMs`. */
  agent(tenant: string, agentId: string, sinceMs: number): AgentRow | undefined {
    const row = this.s.agent.get(tenant, agentId, sinceMs);
    return row === undefined ? undefined : { id: row.id, lastConnectedMs: row.last_connected_ms };
  }

  /** Up to `limit` agents with id >= marker that connected at or after `sinceMs`, by id. */
  agents(tenant: string, marker: string, limit: number, sinceMs: number): AgentRow[] {
    return this.s.agents.all(tenant, marker, sinceMs, limit).map((row) => ({ id: row.id, lastConnectedMs: row.last_connected_ms }));
  }

  /** Inserts an agent token (its hash only). */
  insertToken(tenant: string, id: string, label: string | null, tokenSha256: Buffer, nowMs: number): void {
    this.s.insertToken.run(tenant, id, label, tokenSha256, nowMs, nowMs);
  }

  /** One agent token. */
  token(tenant: string, id: string): AgentTokenRow | undefined {
    const row = this.s.token.get(tenant, id);
    return row === undefined ? undefined : toToken(row);
  }

  /** Up to `limit` agent tokens with id >= marker, by id. */
  tokens(tenant: string, marker: string, limit: number): AgentTokenRow[] {
    return this.s.tokens.all(tenant, marker, limit).map(toToken);
  }

  /** How many agents connected at or after `sinceMs`, counted up to `limit` (the count stops there). */
  agentCount(tenant: string, sinceMs: number, limit: number): number {
    return this.s.agentCount.get(tenant, sinceMs, limit)?.n ?? 0;
  }

  /** How many agent tokens the tenant holds. */
  tokenCount(tenant: string): number {
    return this.s.tokenCount.get(tenant)?.n ?? 0;
  }

  /** Changes a token's label; false when it does not exist. */
  labelToken(tenant: string, id: string, label: string | null, nowMs: number): boolean {
    return this.s.labelToken.run(label, nowMs, tenant, id).changes === 1;
  }

  /** Deletes a token; false when it did not exist. */
  deleteToken(tenant: string, id: string): boolean {
    return this.s.deleteToken.run(tenant, id).changes === 1;
  }

  /** The tenant and id of the token with this hash (the agent endpoint's check). */
  tokenByHash(tokenSha256: Buffer): { tenant: string; id: string } | undefined {
    return this.s.tokenByHash.get(tokenSha256);
  }
}
