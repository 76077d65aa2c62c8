// Owns the agents bench's workload and the messages between its orchestrator (bench/agents.ts) and its fleet processes (bench/agents-fleet.ts): the six checks of every agent, the period, the fleet's config, commands and reports.
import type { MetricsPostParams, WireMetric, WireMetricType } from '../src/agent/protocol/messages.js';
import { wireMetric } from '../src/agent/protocol/wire-metrics.js';

/** The workload: every check and every connection's heartbeat at 30 s. */
export const AGENT_CHECK_PERIOD_S = 30;
/** Connections each agent holds: one per endpoint (zone). */
export const AGENT_ZONES = 3;

/** The six agent checks every bench agent has (created over the API by bench/agents.ts), with the metrics the fleet posts for each. */
export const BENCH_CHECKS: readonly { readonly type: string; readonly details: Record<string, string>; readonly metrics: readonly (readonly [string, WireMetricType, string])[] }[] = [
  { type: 'agent.cpu', details: {}, metrics: ['usage_average', 'user_percent_average', 'sys_percent_average', 'idle_percent_average', 'wait_percent_average', 'irq_percent_average'].map((n) => [n, 'double', 'percent'] as const) },
  { type: 'agent.memory', details: {}, metrics: ['total', 'used', 'free', 'actual_used', 'actual_free', 'swap_total'].map((n) => [n, 'uint64', 'bytes'] as const) },
  { type: 'agent.load_average', details: {}, metrics: ['1m', '5m', '15m'].map((n) => [n, 'double', 'unknown'] as const) },
  { type: 'agent.filesystem', details: { target: '/' }, metrics: ['total', 'used', 'free', 'avail', 'files', 'free_files'].map((n) => [n, 'uint64', 'kilobytes'] as const) },
  { type: 'agent.disk', details: { target: 'sda' }, metrics: ['reads', 'writes', 'read_bytes', 'write_bytes', 'rtime', 'wtime'].map((n) => [n, 'uint64', 'unknown'] as const) },
  { type: 'agent.network', details: { target: 'eth0' }, metrics: ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors'].map((n) => [n, 'uint64', 'unknown'] as const) },
];

/** The check_metrics.post params of one run of a bench check: its metrics with random values of their types, on no dimension. */
export function metricsPostParams(checkId: string, checkType: string, timestampMs: number): MetricsPostParams {
  const metrics = BENCH_CHECKS.find((c) => c.type === checkType)?.metrics ?? [];
  const values: Record<string, WireMetric> = {};
  for (const [name, type, unit] of metrics) values[name] = wireMetric(type, type === 'double' ? Math.round(Math.random() * 10_000) / 100 : Math.floor(Math.random() * 1e9), unit);
  return { check_id: checkId, check_type: checkType, state: 'available', status: 'ok', metrics: [[null, values]], timestamp: timestampMs };
}

/** What a fleet process simulates: agents `first`, `first + 1`, ... against `endpoints`; mode `floor` accepts any answer (the bare server's `{}`). */
export interface FleetConfig {
  readonly endpoints: readonly { readonly host: string; readonly port: number }[];
  readonly ca: string;
  readonly tokens: readonly string[];
  readonly agentsPerToken: number;
  readonly first: number;
  readonly mode: 'server' | 'floor';
  readonly periodMs: number;
  readonly heartbeatMs: number;
  /** Agents started per second, and at most this many connecting at once. */
  readonly connectPerSecond: number;
  readonly connectConcurrency: number;
}

/** Orchestrator → fleet. */
export type FleetCommand = { readonly type: 'grow'; readonly agents: number } | { readonly type: 'window'; readonly durationMs: number } | { readonly type: 'stop' };

/** Fleet → orchestrator after a grow: the agents it now runs and how the new ones connected. */
export interface GrowReport {
  readonly type: 'grown';
  readonly agents: number;
  readonly failed: number;
  readonly failures: Record<string, number>;
  readonly tlsMs: number[];
  readonly helloMs: number[];
  readonly scheduleMs: number[];
  readonly seconds: number;
}

/** Fleet → orchestrator after a window: what happened to the heartbeats sent and the posts due in it. */
export interface WindowReport {
  readonly type: 'window';
  readonly seconds: number;
  readonly heartbeats: number;
  readonly heartbeatsOk: number;
  readonly heartbeatMs: number[];
  readonly postsExpected: number;
  readonly postsOk: number;
  readonly postMs: number[];
  readonly errors: Record<string, number>;
  readonly disconnects: number;
  /** Unexpected disconnects since the fleet started (the window's and the ramp's). */
  readonly disconnectsTotal: number;
  readonly connections: number;
  readonly cpuPerSecond: number;
  readonly loopDelayP99Ms: number;
  readonly timerLateP99Ms: number;
}
