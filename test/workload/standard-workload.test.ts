// Tests of the standard workload moved from bench/: the grid, the walk and rounded values, NAB tiling from a folder, and the Point batches.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32, UINT32_RANGE } from '../../src/workload/prng.js';
import {
  BATCH_POINTS,
  batchAt,
  batchCount,
  BENCH_TENANT,
  chooseT0Ms,
  generateWorkload,
  metricName,
  metricNames,
  standardSpec,
  STANDARD_INTERVAL_MS,
  STANDARD_POINTS,
  STANDARD_SEED,
  STANDARD_SERIES,
  toBatches,
  VALUE_KINDS,
} from '../../src/workload/standard-workload.js';

const END_MS = 1_763_990_123_456;
const MINUTE_MS = 60_000;

describe('the standard workload', () => {
  it('keeps the benchmark\'s constants and kinds', () => {
    expect([STANDARD_SERIES, STANDARD_POINTS, STANDARD_INTERVAL_MS, STANDARD_SEED, BATCH_POINTS, BENCH_TENANT]).toEqual([1_000, 2_880, 30_000, 42, 10_000, 'bench']);
    expect(VALUE_KINDS).toEqual(['walk', 'rounded', 'nab']);
    expect(standardSpec('walk', END_MS)).toEqual({ series: 1_000, points: 2_880, seed: 42, kind: 'walk', endMs: END_MS, intervalMs: 30_000 });
    expect(metricName(7)).toBe('bench.s0007');
    expect(metricName(12_345)).toBe('bench.s12345');
    expect(metricNames(3)).toEqual(['bench.s0000', 'bench.s0001', 'bench.s0002']);
  });

  it('puts t0 on a 5-minute boundary with the last point 2 to 7 minutes before the end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1_000, max: 600_000 }), (endMs, points, intervalMs) => {
        const t0 = chooseT0Ms(endMs, points, intervalMs);
        expect(t0 % (5 * MINUTE_MS)).toBe(0);
        const age = endMs - (t0 + (points - 1) * intervalMs);
        expect(age).toBeGreaterThanOrEqual(2 * MINUTE_MS);
        expect(age).toBeLessThan(7 * MINUTE_MS);
      }),
    );
  });

  it('walks from 100 in time-major order with mulberry32 steps, and rounds to 2 decimals for rounded', () => {
    const spec = { series: 3, points: 4, seed: 42, endMs: END_MS, intervalMs: 30_000 };
    const walk = generateWorkload({ ...spec, kind: 'walk' });
    const rounded = generateWorkload({ ...spec, kind: 'rounded' });
    const next = mulberry32(42);
    const current = [100, 100, 100];
    for (let i = 0; i < walk.length; i++) {
      const s = i % 3;
      current[s] = (current[s] as number) + (next() / UINT32_RANGE - 0.5);
      expect(walk.values[i]).toBe(current[s]);
      expect(rounded.values[i]).toBe(Math.round((current[s] as number) * 100) / 100);
      expect(walk.seriesIndex[i]).toBe(s);
      expect(walk.timestampsMs[i]).toBe(walk.t0Ms + Math.floor(i / 3) * 30_000);
    }
    expect(walk.dataEndMs).toBe(walk.t0Ms + 4 * 30_000);
    expect(walk.description).toMatch(/seed 42.*full precision$/);
    expect(rounded.description).toMatch(/rounded to 2 decimals/);
  });

  it('cuts into Point batches of the bench tenant in time-major order', () => {
    const w = generateWorkload({ series: 3, points: 5, seed: 1, endMs: END_MS, intervalMs: 30_000, kind: 'walk' });
    expect(batchCount(w, 4)).toBe(4);
    const batches = toBatches(w, 4);
    expect(batches.map((b) => b.length)).toEqual([4, 4, 4, 3]);
    expect(batchAt(w, 1, metricNames(3), 4)[0]).toEqual({ tenant: 'bench', metric: 'bench.s0001', timestamp: w.t0Ms + 30_000, value: w.values[4] });
    expect(batches.flat().map((p) => p.value)).toEqual([...w.values]);
  });

  it('tiles NAB recordings from a folder onto the series (a clean clone has no shared folder, so the test makes its own)', () => {
    const nabDir = mkdtempSync(join(tmpdir(), 'strata-nab-'));
    try {
      mkdirSync(join(nabDir, 'b'));
      writeFileSync(join(nabDir, 'a.csv'), 'timestamp,value\n2015-01-01 00:00:00,1.5\n2015-01-01 00:05:00,2.5\n2015-01-01 00:10:00,3.5\n');
      writeFileSync(join(nabDir, 'b', 'c.csv'), 'timestamp,value,extra\r\n2015-01-01 00:00:00,10,x\r\n2015-01-01 00:05:00,20,y');
      const w = generateWorkload({ series: 4, points: 5, seed: 42, endMs: END_MS, intervalMs: 30_000, kind: 'nab', nabDir });
      expect(w.length).toBe(20);
      // Series 0 and 2 replay a.csv, 1 and 3 replay b/c.csv; the second pass starts 97 values later (mod length), wrapping.
      const seriesValues = (s: number): number[] => Array.from({ length: 5 }, (_, k) => w.values[k * 4 + s] as number);
      expect(seriesValues(0)).toEqual([1.5, 2.5, 3.5, 1.5, 2.5]);
      expect(seriesValues(1)).toEqual([10, 20, 10, 20, 10]);
      expect(seriesValues(2)).toEqual([2.5, 3.5, 1.5, 2.5, 3.5]);
      expect(seriesValues(3)).toEqual([20, 10, 20, 10, 20]);
      expect(w.description).toMatch(/^NAB: 2 CSVs \(5 values\)/);
    } finally {
      rmSync(nabDir, { recursive: true, force: true });
    }
  });
});
