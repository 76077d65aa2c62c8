// Tests the agent endpoint's Prometheus metrics: gauges follow the open connections, counters follow the endpoint's counters, one stats reading per scrape.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AgentEndpointStats } from '../../src/agent/endpoint/agent-endpoint.js';
import { addAgentMetrics } from '../../src/http/agent-metrics.js';

function zero(): AgentEndpointStats {
  return { connections: 0, handshaking: 0, downloads: 0, sessions: 0, hellos: 0, refused: 0, heartbeats: 0, metricPosts: 0, metricsAccepted: 0, schedulePushes: 0, protocolErrors: 0, tlsFailures: 0 };
}

function value(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('addAgentMetrics', () => {
  it('exposes open connections by stage and the endpoint counters, reading the stats once per scrape', async () => {
    const registry = new Registry();
    let stats = zero();
    let reads = 0;
    addAgentMetrics(registry, () => {
      reads += 1;
      return stats;
    });
    stats = { ...zero(), connections: 5, handshaking: 2, downloads: 1, sessions: 3, tlsFailures: 7, hellos: 4, refused: 1, heartbeats: 10, metricPosts: 6, metricsAccepted: 60, schedulePushes: 2, protocolErrors: 1 };
    const first = await registry.metrics();
    expect(reads).toBe(1);
    expect(value(first, 'strata_agent_connections{stage="session"}')).toBe(3);
    expect(value(first, 'strata_agent_connections{stage="handshake"}')).toBe(2);
    expect(value(first, 'strata_agent_connections{stage="download"}')).toBe(1);
    expect(value(first, 'strata_agent_tls_failures_total')).toBe(7);
    expect(value(first, 'strata_agent_hellos_total')).toBe(4);
    expect(value(first, 'strata_agent_heartbeats_total')).toBe(10);
    expect(value(first, 'strata_agent_metrics_total')).toBe(60);
    stats = { ...stats, sessions: 1, handshaking: 0, heartbeats: 25, metricsAccepted: 61 };
    const second = await registry.metrics();
    expect(reads).toBe(2);
    expect(value(second, 'strata_agent_connections{stage="session"}')).toBe(1);
    expect(value(second, 'strata_agent_heartbeats_total')).toBe(25);
    expect(value(second, 'strata_agent_metrics_total')).toBe(61);
    expect(value(second, 'strata_agent_hellos_total')).toBe(4);
  });
});
