// Owns the contract between the agent endpoint and what stands behind it: tokens, bound entities, agent checks, live connections, results, changes, updates.
import type { ConnectionFields } from '../../monitoring/agent-connections.js';
import type { MonitoringChange } from '../../monitoring/change-feed.js';
import type { CheckResult } from '../../monitoring/check-result.js';
import type { CheckDoc } from '../../monitoring/check-rules.js';
import type { StoredDoc } from '../../monitoring/doc-store.js';

/** Who an agent authenticated as: the tenant of its token and the token's id. */
export interface AgentPrincipal {
  readonly tenant: string;
  readonly tokenId: string;
}

/** One agent check of an entity bound to an agent. */
export interface AgentCheck {
  readonly entityId: string;
  readonly check: StoredDoc<CheckDoc>;
}

/** What the endpoint registers of a connection once its hello succeeded: the monitoring service's connection fields. */
export type LiveConnectionFields = ConnectionFields;

/** What the endpoint needs of the monitoring service and runtime. */
export interface AgentBackend {
  /** The tenant and token id of a presented agent token, or undefined when no token has this value. */
  authenticate(token: string): AgentPrincipal | undefined;
  /** Entities whose agent_id is this agent, sorted (at most AGENT_ENTITIES_MAX). */
  entitiesOf(tenant: string, agentId: string): readonly string[];
  /** The agent checks of those entities (disabled ones included), at most AGENT_SCHEDULE_CHECKS_MAX. */
  checksOf(tenant: string, entityIds: readonly string[]): readonly AgentCheck[];
  /** Registers a live connection (and touches last_connected); returns its id. */
  connected(tenant: string, fields: LiveConnectionFields): string;
  /** Removes a live connection; removing one twice is harmless. */
  disconnected(tenant: string, agentId: string, connectionId: string): void;
  /** Refreshes last_connected (the session calls it at most every AGENT_TOUCH_INTERVAL_MS). */
  touch(tenant: string, agentId: string): void;
  /** A result of an agent check: metrics to the engine (bare names), the alarms evaluated; throws AGENT_BUSY (taking nothing) when the queue to the engine is full. */
  accept(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void;
  /** Committed changes of entities and checks (to push check_schedule.changed); returns the unsubscribe function. */
  subscribe(listener: (change: MonitoringChange) => void): () => void;
  /** The agent_id an entity names now (null: none; undefined: the entity is gone). */
  agentOfEntity(tenant: string, entityId: string): string | null | undefined;
  /** Newest published bundle version of a channel, or null. */
  latestBundleVersion(channel: string): string | null;
}
