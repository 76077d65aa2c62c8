// Tests of the collectors against this Linux host's own /proc, /sys and root file system: available, with plausible values.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectorFor } from '../../../src/agent/collectors/collector-registry.js';
import { parseDiskstats } from '../../../src/agent/collectors/diskstats.js';
import { metricsOf, valueOf } from './collected-metrics.js';

const PERCENT_METRICS = ['usage_average', 'min_cpu_usage', 'max_cpu_usage', 'user_percent_average', 'sys_percent_average', 'idle_percent_average', 'wait_percent_average', 'irq_percent_average', 'stolen_percent_average'];
const STATE_METRICS = ['user_percent_average', 'sys_percent_average', 'idle_percent_average', 'wait_percent_average', 'irq_percent_average', 'stolen_percent_average'];

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  let spin = 0;
  while (performance.now() < until) spin++;
  expect(spin).toBeGreaterThan(0);
}

describe('collectors on this host', () => {
  it('agent.cpu: percentages in [0, 100] that sum to 100, on the first and a second collection', async () => {
    const cpu = collectorFor('agent.cpu');
    for (const nowMs of [1, 2]) {
      const metrics = metricsOf(await cpu.collect({}, nowMs));
      for (const name of PERCENT_METRICS) expect(valueOf(metrics, name)).toSatisfy((v: number) => v >= 0 && v <= 100);
      expect(STATE_METRICS.reduce((sum, name) => sum + valueOf(metrics, name), 0)).toBeCloseTo(100, 6);
      expect(valueOf(metrics, 'cpu_count')).toBeGreaterThanOrEqual(1);
      expect(valueOf(metrics, 'min_cpu_usage')).toBeLessThanOrEqual(valueOf(metrics, 'max_cpu_usage'));
      busyFor(200);
    }
  });

  it('agent.memory: total > 0, used and actual_used within total, swap consistent', async () => {
    const metrics = metricsOf(await collectorFor('agent.memory').collect({}, 1));
    const total = valueOf(metrics, 'total');
    expect(total).toBeGreaterThan(0);
    expect(valueOf(metrics, 'used')).toBeLessThanOrEqual(total);
    expect(valueOf(metrics, 'actual_used')).toBeLessThanOrEqual(total);
    expect(valueOf(metrics, 'free') + valueOf(metrics, 'used')).toBe(total);
    expect(valueOf(metrics, 'swap_used')).toBeLessThanOrEqual(valueOf(metrics, 'swap_total'));
    expect(valueOf(metrics, 'ram') * 1024 * 1024).toBeGreaterThanOrEqual(total - 1024 * 1024);
  });

  it('agent.load_average: three non-negative averages', async () => {
    const metrics = metricsOf(await collectorFor('agent.load_average').collect({}, 1));
    for (const name of ['1m', '5m', '15m']) expect(valueOf(metrics, name)).toBeGreaterThanOrEqual(0);
  });

  it("agent.filesystem '/': total >= free >= 0, used = total - free", async () => {
    const metrics = metricsOf(await collectorFor('agent.filesystem').collect({ target: '/' }, 1));
    const total = valueOf(metrics, 'total');
    const free = valueOf(metrics, 'free');
    expect(total).toBeGreaterThanOrEqual(free);
    expect(free).toBeGreaterThanOrEqual(0);
    expect(valueOf(metrics, 'used')).toBe(total - free);
    expect(metrics.options?.v).toMatch(/\b(rw|ro)\b/);
  });

  it("agent.network 'lo': counters that only grow, and a link state", async () => {
    const network = collectorFor('agent.network');
    const first = metricsOf(await network.collect({ target: 'lo' }, 1));
    const second = metricsOf(await network.collect({ target: 'lo' }, 2));
    expect(valueOf(second, 'rx_bytes')).toBeGreaterThanOrEqual(valueOf(first, 'rx_bytes'));
    expect(valueOf(second, 'tx_packets')).toBeGreaterThanOrEqual(valueOf(first, 'tx_packets'));
    expect(['up', 'down', 'unknown']).toContain(second.link_state?.v);
  });

  it('agent.disk: the first device /proc/diskstats lists, twice', async () => {
    const first = parseDiskstats(readFileSync('/proc/diskstats', 'utf8'))[0];
    expect(first).toBeDefined();
    const disk = collectorFor('agent.disk');
    for (const nowMs of [1000, 2000]) {
      const metrics = metricsOf(await disk.collect({ target: `/dev/${first?.name ?? ''}` }, nowMs));
      expect(valueOf(metrics, 'queue')).toBeGreaterThanOrEqual(0);
      expect(valueOf(metrics, 'service_time')).toBeGreaterThanOrEqual(0);
    }
  });
});
