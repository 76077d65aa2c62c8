// Properties of the counter workload: deterministic, exact counts, integers that never decrease except at a reset to 0, timestamps on the grid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COUNTER_INCREMENT_MAX, COUNTER_RESET_ONE_IN, COUNTER_START_MAX, generateCounterWorkload, type CounterSpec } from '../../src/workload/counter-workload.js';

const spec: fc.Arbitrary<CounterSpec> = fc.record({
  series: fc.integer({ min: 1, max: 30 }),
  points: fc.integer({ min: 1, max: 200 }),
  seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  endMs: fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }),
  intervalMs: fc.constantFrom(1_000, 30_000, 60_000),
});

describe('generateCounterWorkload', () => {
  it('is deterministic and has exactly series x points points on the time-major grid within [t0, dataEnd)', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const w = generateCounterWorkload(s);
        const again = generateCounterWorkload(s);
        expect(w.length).toBe(s.series * s.points);
        expect([...again.values]).toEqual([...w.values]);
        expect(w.dataEndMs - w.t0Ms).toBe(s.points * s.intervalMs);
        // One expect per workload, naming the first bad point: an expect per point makes the run slow.
        const bad = Array.from({ length: w.length }, (_, i) => i).find((i) => {
          const t = w.timestampsMs[i] as number;
          return w.seriesIndex[i] !== i % s.series || t !== w.t0Ms + Math.floor(i / s.series) * s.intervalMs || t < w.t0Ms || t >= w.dataEndMs;
        });
        expect(bad).toBeUndefined();
      }),
    );
  });

  it('never decreases a counter except at a reset to 0, and holds non-negative safe integers', () => {
    fc.assert(
      fc.property(spec, (s) => {
        const w = generateCounterWorkload(s);
        const bad = Array.from({ length: w.length }, (_, i) => i).find((i) => {
          const v = w.values[i] as number;
          if (!Number.isSafeInteger(v) || v < 0) return true;
          if (i < s.series) return v >= COUNTER_START_MAX;
          const before = w.values[i - s.series] as number;
          return v !== 0 && (v < before || v - before > COUNTER_INCREMENT_MAX);
        });
        expect(bad === undefined ? 'ok' : `point ${bad}: ${w.values[bad - s.series]} -> ${w.values[bad]}`).toBe('ok');
      }),
    );
  });

  it('resets about one point in COUNTER_RESET_ONE_IN on a standard-sized workload, and counts up otherwise', () => {
    const w = generateCounterWorkload({ series: 1_000, points: 2_880, seed: 42, endMs: 1_763_990_000_000, intervalMs: 30_000 });
    let resets = 0;
    let rises = 0;
    for (let i = 1_000; i < w.length; i++) {
      const v = w.values[i] as number;
      const before = w.values[i - 1_000] as number;
      if (v < before) resets++;
      if (v > before) rises++;
    }
    const expected = (w.length - 1_000) / COUNTER_RESET_ONE_IN;
    expect(resets).toBeGreaterThan(expected * 0.7);
    expect(resets).toBeLessThan(expected * 1.3);
    expect(rises / w.length).toBeGreaterThan(0.9);
    expect(w.description).toContain('seed 42');
  });
});
