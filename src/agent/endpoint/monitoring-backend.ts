// Owns the agent backend over the monitoring service and runtime: what the agent endpoint asks of them, bounded by the agent limits, with the newest bundle version of a channel cached.
import { systemClock, type Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import type { MonitoringChange } from '../../monitoring/change-feed.js';
import type { MonitoringRuntime } from '../../monitoring/monitoring-runtime.js';
import type { MonitoringService } from '../../monitoring/monitoring-service.js';
import { AGENT_ENTITIES_MAX, AGENT_SCHEDULE_CHECKS_MAX, AGENT_UPDATE_VERSION_CACHE_CHANNELS_MAX, AGENT_UPDATE_VERSION_CACHE_MS } from '../agent-limits.js';
import type { UpdateStore } from '../update/update-store.js';
import type { AgentBackend, AgentCheck } from './agent-backend.js';

/** What the backend is built from. */
export interface MonitoringBackendDeps {
  readonly monitoring: MonitoringService;
  /** The runtime that stores results and evaluates alarms (only acceptAgentResult is used). */
  readonly runtime: Pick<MonitoringRuntime, 'acceptAgentResult'>;
  /** The published update bundles (only latestVersion is used). */
  readonly updates: Pick<UpdateStore, 'latestVersion'>;
  /** Times the version cache (the system clock by default). */
  readonly clock?: Clock;
}

/**
 * latestVersion of each channel, read from the update directory at most once every
 * AGENT_UPDATE_VERSION_CACHE_MS (a directory read per get_version request is work an agent could
 * make the endpoint do at will); at most AGENT_UPDATE_VERSION_CACHE_CHANNELS_MAX channels, emptied when full.
 */
function cachedLatestVersion(updates: Pick<UpdateStore, 'latestVersion'>, clock: Clock): (channel: string) => string | null {
  const cache = new Map<string, { readonly version: string | null; readonly readMs: number }>();
  return (channel) => {
    const nowMs = clock.now();
    const cached = cache.get(channel);
    if (cached !== undefined && nowMs - cached.readMs < AGENT_UPDATE_VERSION_CACHE_MS && nowMs >= cached.readMs) return cached.version;
    const version = updates.latestVersion(channel);
    if (cached === undefined && cache.size >= AGENT_UPDATE_VERSION_CACHE_CHANNELS_MAX) cache.clear();
    cache.set(channel, { version, readMs: nowMs });
    return version;
  };
}

/** The agent_id an entity names, null when none, undefined when the entity does not exist. */
function agentOfEntity(monitoring: MonitoringService, tenant: string, entityId: string): string | null | undefined {
  try {
    // `?? null`: a document written without the key names no agent (it exists, so never undefined).
    return monitoring.entities.entity(tenant, entityId).doc.agent_id ?? null;
  } catch (error) {
    if (isStrataError(error) && error.code === 'MONITORING_OBJECT_NOT_FOUND') return undefined;
    throw error;
  }
}

/** The agent backend of `strata serve`: tokens, entities and checks from monitoring.sqlite, live connections in memory, results to the runtime. */
export function monitoringBackend(deps: MonitoringBackendDeps): AgentBackend {
  const { monitoring, runtime, updates } = deps;
  const latestVersion = cachedLatestVersion(updates, deps.clock ?? systemClock);
  return {
    authenticate: (token) => monitoring.agents.tokenOf(token),
    entitiesOf: (tenant, agentId) => monitoring.entities.entitiesOfAgent(tenant, agentId, AGENT_ENTITIES_MAX),
    checksOf: (tenant, entityIds): AgentCheck[] =>
      monitoring.entities
        .agentChecksOf(tenant, entityIds.slice(0, AGENT_ENTITIES_MAX))
        .slice(0, AGENT_SCHEDULE_CHECKS_MAX)
        .map((check) => ({ entityId: check.entityId ?? '', check })),
    connected: (tenant, fields) => monitoring.agents.connect(tenant, fields),
    disconnected: (tenant, agentId, connectionId) => monitoring.agents.disconnect(tenant, agentId, connectionId),
    touch: (tenant, agentId) => monitoring.agents.touch(tenant, agentId),
    accept: (tenant, check, result) => runtime.acceptAgentResult(tenant, check, result),
    // Alarm changes do not change what an agent runs: only entities and checks reach the endpoint.
    subscribe: (listener) => monitoring.changes.subscribe((change: MonitoringChange) => {
      if (change.kind !== 'alarm') listener(change);
    }),
    agentOfEntity: (tenant, entityId) => agentOfEntity(monitoring, tenant, entityId),
    latestBundleVersion: latestVersion,
  };
}
