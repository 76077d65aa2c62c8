// Owns the agent endpoint's Prometheus metrics on the server's registry: open connections and the endpoint's counters, read once per scrape.
import { Gauge, type Registry } from 'prom-client';
import { addStatsCounters, type StatsCounter } from './stats-counters.js';
import type { AgentEndpointStats } from '../agent/endpoint/agent-endpoint.js';

/** Counter name and help of each monotonic field of the endpoint's stats. */
const COUNTERS: readonly StatsCounter<AgentEndpointStats>[] = [
  ['hellos', 'strata_agent_hellos_total', 'Agent handshakes accepted.'],
  ['refused', 'strata_agent_refused_total', 'Agent connections refused: a bad token or agent id, a connection limit, no hello in time, a pending or download pool full (in all or for the remote address).'],
  ['tlsFailures', 'strata_agent_tls_failures_total', 'Agent TLS handshakes that failed (logged as a summary line a minute, never one by one).'],
  ['heartbeats', 'strata_agent_heartbeats_total', 'Agent heartbeats answered.'],
  ['metricPosts', 'strata_agent_metric_posts_total', 'check_metrics.post requests accepted.'],
  ['metricsAccepted', 'strata_agent_metrics_total', 'Agent check metrics handed to the engine and the alarms.'],
  ['schedulePushes', 'strata_agent_schedule_pushes_total', 'check_schedule.changed requests sent to agents.'],
  ['protocolErrors', 'strata_agent_protocol_errors_total', 'Agent requests answered with an error object.'],
];

/**
 * Adds the agent endpoint's metrics to `registry`: gauges of open connections (handshaken, and
 * still in a TLS or hello handshake) and one counter per endpoint counter. `stats` is read once per
 * scrape (the first collected metric reads it; the rest reuse that reading).
 */
export function addAgentMetrics(registry: Registry, stats: () => AgentEndpointStats): void {
  let reading: AgentEndpointStats | undefined;
  const read = (): AgentEndpointStats => (reading ??= stats());
  new Gauge({
    name: 'strata_agent_connections',
    help: 'Open agent connections by stage: handshaken sessions, connections still in their TLS or hello handshake, update downloads.',
    labelNames: ['stage'],
    registers: [registry],
    collect() {
      // The first metric of a scrape takes a fresh reading.
      reading = undefined;
      const now = read();
      this.set({ stage: 'session' }, now.sessions);
      this.set({ stage: 'handshake' }, now.handshaking);
      this.set({ stage: 'download' }, now.downloads);
    },
  });
  addStatsCounters(registry, COUNTERS, read);
}
