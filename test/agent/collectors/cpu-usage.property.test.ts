// Properties of the CPU usage arithmetic: percentages stay in [0, 100], the six states sum to 100, min <= average <= max.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cpuUsage } from '../../../src/agent/collectors/cpu-usage.js';
import type { CpuTimes } from '../../../src/agent/collectors/proc-stat.js';

const FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;
const ticks = fc.nat({ max: 2 ** 40 });
const times = fc.array(ticks, { minLength: 8, maxLength: 8 });

function cpu(id: string, values: readonly number[]): CpuTimes {
  const t: Record<string, string | number> = { id };
  FIELDS.forEach((field, i) => (t[field] = values[i] ?? 0));
  return t as unknown as CpuTimes;
}

/** Samples of N CPUs: a previous one and a later one whose counters moved forward or (iowait-style) back. */
const samples = fc.array(fc.tuple(times, fc.array(fc.integer({ min: -1000, max: 2 ** 30 }), { minLength: 8, maxLength: 8 })), { minLength: 1, maxLength: 16 }).map((cpus) => ({
  previous: cpus.map(([before], i) => cpu(`cpu${i}`, before)),
  current: cpus.map(([before, step], i) => cpu(`cpu${i}`, before.map((value, j) => Math.max(0, value + (step[j] ?? 0))))),
}));

describe('cpuUsage', () => {
  it('keeps every percentage in [0, 100], the six state averages summing to 100, and min <= average <= max', () => {
    fc.assert(
      fc.property(samples, fc.boolean(), ({ previous, current }, first) => {
        const usage = cpuUsage(first ? undefined : previous, current);
        const { averages } = usage;
        const all = [...Object.values(averages), usage.usageAverage, usage.minUsage, usage.maxUsage];
        for (const value of all) expect(value >= 0 && value <= 100).toBe(true);
        expect(Object.values(averages).reduce((a, b) => a + b, 0)).toBeCloseTo(100, 6);
        expect(usage.usageAverage).toBeCloseTo(100 - averages.idle, 6);
        expect(usage.minUsage).toBeLessThanOrEqual(usage.usageAverage + 1e-9);
        expect(usage.usageAverage).toBeLessThanOrEqual(usage.maxUsage + 1e-9);
        expect(usage.cpuCount).toBe(current.length);
      }),
    );
  });

  it('measures the interval between samples: equal steps in each state give equal shares', () => {
    fc.assert(
      fc.property(times, fc.integer({ min: 1, max: 1000 }), (before, step) => {
        const after = before.map((value) => value + step);
        const usage = cpuUsage([cpu('cpu0', before)], [cpu('cpu0', after)]);
        // user+nice and irq+softirq take two steps each, the four other states one: 8 steps in all.
        expect(usage.averages.user).toBeCloseTo(25, 9);
        expect(usage.averages.irq).toBeCloseTo(25, 9);
        expect(usage.averages.idle).toBeCloseTo(12.5, 9);
        expect(usage.usageAverage).toBeCloseTo(87.5, 9);
      }),
    );
  });

  it('falls back to since boot for a CPU that did not advance or is new, and counts an all-zero CPU as idle', () => {
    const boot = cpu('cpu0', [30, 10, 20, 40, 0, 0, 0, 0]);
    expect(cpuUsage([boot], [boot]).averages).toEqual(cpuUsage(undefined, [boot]).averages);
    expect(cpuUsage(undefined, [boot]).averages.user).toBeCloseTo(40, 9);
    expect(cpuUsage([cpu('cpu9', [1, 1, 1, 1, 1, 1, 1, 1])], [boot]).usageAverage).toBeCloseTo(60, 9);
    const zero = cpuUsage(undefined, [cpu('cpu0', [0, 0, 0, 0, 0, 0, 0, 0])]);
    expect([zero.averages.idle, zero.usageAverage]).toEqual([100, 0]);
  });

  it('averages per CPU, so min and max name the least and most busy CPU', () => {
    const usage = cpuUsage(undefined, [cpu('cpu0', [0, 0, 0, 100, 0, 0, 0, 0]), cpu('cpu1', [75, 0, 0, 25, 0, 0, 0, 0])]);
    expect([usage.minUsage, usage.maxUsage, usage.usageAverage]).toEqual([0, 75, 37.5]);
  });
});
