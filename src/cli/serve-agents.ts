// Owns starting the agent endpoint inside `strata serve`: its TLS material from the data directory, one listener per zone, the lines scripts read.
import type { Logger } from 'pino';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls } from '../agent/endpoint/agent-ca.js';
import { AgentEndpoint } from '../agent/endpoint/agent-endpoint.js';
import { monitoringBackend } from '../agent/endpoint/monitoring-backend.js';
import { UpdateStore } from '../agent/update/update-store.js';
import { systemClock } from '../core/clock.js';
import { addAgentMetrics } from '../http/agent-metrics.js';
import type { StrataServer } from '../http/server.js';
import { agentCertHostsOf, agentListenOf, type AgentServeFlags } from './agent-serve-options.js';

/** What serve passes: the agent flags, the data directory and the zones this process runs (--zones). */
export interface ServeAgentsOptions extends AgentServeFlags {
  readonly data: string;
  readonly zones?: readonly string[];
}

/**
 * Starts the agent endpoint of a built server (undefined with --no-agent-endpoint): the root CA and
 * server certificate are created on first start in <data>/agent-ca, each zone this process runs gets
 * its TLS listener, and `agent endpoint <zone> listening on tls://host:port` is printed per zone. Once listening, the
 * endpoint is attached to `monitoring.hostInfo` (host info requests of the API), and detached when it stops.
 */
export async function startAgentEndpoint(app: StrataServer, options: ServeAgentsOptions, logger: Logger): Promise<AgentEndpoint | undefined> {
  if (!options.agentEndpoint) return undefined;
  const { monitoring, runtime } = app.strata;
  // The zones in configured (id) order, as the runtime runs them.
  const configured = monitoring.zones.map((zone) => zone.id);
  const zoneIds = configured.filter((id) => options.zones === undefined || options.zones.includes(id));
  const listen = agentListenOf(options, configured, zoneIds);
  const hosts = agentCertHostsOf(options, AGENT_CERT_HOSTS_DEFAULT);
  const tls = loadAgentTls({ dataDir: options.data, hosts, clock: systemClock });
  if (tls.created) logger.info({ dir: options.data, hosts }, 'created the agent root CA and endpoint certificate');
  else if (tls.renewed) logger.info({ hosts }, 'issued a new agent endpoint certificate under the existing root');
  const updates = new UpdateStore(options.data);
  const endpoint = new AgentEndpoint({
    backend: monitoringBackend({ monitoring, runtime, updates }),
    clock: systemClock,
    logger,
    options: { listen, tls, heartbeatIntervalMs: options.agentHeartbeatMs, updates },
    // The monitoring API's host info requests reach connected agents through the endpoint while it runs.
    hostInfo: monitoring.hostInfo,
  });
  const bound = await endpoint.start();
  addAgentMetrics(app.strata.metrics.registry, () => endpoint.stats());
  for (const { zoneId, host, port } of bound) {
    const shown = host.includes(':') ? `[${host}]` : host;
    process.stdout.write(`agent endpoint ${zoneId} listening on tls://${shown}:${port}\n`);
  }
  logger.info({ endpoints: bound }, 'agent endpoint listening');
  return endpoint;
}
