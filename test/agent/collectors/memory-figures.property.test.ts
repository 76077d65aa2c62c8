// Properties of the agent.memory arithmetic: used + free = total for memory and swap, nothing negative, RAM rounded up to 8 MiB.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryFigures } from '../../../src/agent/collectors/memory-figures.js';

const bytes = fc.nat({ max: 2 ** 45 });
const optional = fc.option(bytes, { nil: undefined });
const meminfo = fc
  .record({ MemTotal: bytes, MemFree: bytes, MemAvailable: optional, Buffers: optional, Cached: optional, SwapTotal: optional, SwapFree: optional })
  .map((fields) => new Map(Object.entries(fields).filter((entry): entry is [string, number] => entry[1] !== undefined)));

describe('memoryFigures', () => {
  it('splits memory and swap into used and free parts of their totals, none negative', () => {
    fc.assert(
      fc.property(meminfo, (info) => {
        const result = memoryFigures(info, undefined);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const m = result.value;
        expect(m.used + m.free).toBe(m.total);
        expect(m.actualUsed + m.actualFree).toBe(m.total);
        expect(m.swapUsed + m.swapFree).toBe(m.swapTotal);
        for (const value of [m.free, m.used, m.actualFree, m.actualUsed, m.swapFree, m.swapUsed]) expect(value).toBeGreaterThanOrEqual(0);
        expect(m.ramMb % 8).toBe(0);
        expect(m.ramMb * 1024 * 1024).toBeGreaterThanOrEqual(m.total - 1024 * 1024);
        expect(m.ramMb - Math.floor(m.total / (1024 * 1024))).toBeLessThan(8);
      }),
    );
  });

  it('uses MemAvailable for actual_free, else MemFree + Buffers + Cached', () => {
    const base = { MemTotal: 1000, MemFree: 100, Buffers: 50, Cached: 200 };
    const withAvailable = memoryFigures(new Map(Object.entries({ ...base, MemAvailable: 600 })), undefined);
    const without = memoryFigures(new Map(Object.entries(base)), undefined);
    expect(withAvailable.ok && withAvailable.value.actualFree).toBe(600);
    expect(without.ok && without.value.actualFree).toBe(350);
  });

  it('takes the paging counters from vmstat when given, and refuses meminfo without MemTotal or MemFree', () => {
    const result = memoryFigures(new Map([['MemTotal', 10], ['MemFree', 5]]), new Map([['pswpin', 3], ['pswpout', 4]]));
    expect(result.ok && [result.value.swapPagesIn, result.value.swapPagesOut]).toEqual([3, 4]);
    expect(memoryFigures(new Map([['MemTotal', 10]]), undefined)).toEqual({ ok: false, error: 'meminfo lacks MemTotal or MemFree' });
  });
});
