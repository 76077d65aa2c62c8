// Unit tests of model/stats: Welford over a slice, the pairwise merge, variance.
import { describe, expect, it } from 'vitest';
import { EMPTY_STATS, mergeStats, statsOfValues, varianceOf } from '../../src/model/stats.js';

const of = (...values: number[]) => statsOfValues(Float64Array.from(values), 0, values.length);

describe('statsOfValues', () => {
  it('summarises a slice with population variance', () => {
    const values = Float64Array.from([99, 2, 4, 4, 4, 5, 5, 7, 9, 99]);
    const s = statsOfValues(values, 1, 9);
    expect(s.count).toBe(8);
    expect(s.mean).toBe(5);
    expect(s.m2).toBe(32);
    expect(varianceOf(s)).toBe(4);
    expect(s.min).toBe(2);
    expect(s.max).toBe(9);
  });

  it('returns EMPTY_STATS for an empty slice', () => {
    expect(statsOfValues(Float64Array.from([1, 2]), 1, 1)).toBe(EMPTY_STATS);
    expect(EMPTY_STATS.count).toBe(0);
    expect(EMPTY_STATS.mean).toBeNaN();
    expect(varianceOf(EMPTY_STATS)).toBeNaN();
  });

  it('one value has zero spread', () => {
    expect(of(42)).toEqual({ count: 1, mean: 42, m2: 0, min: 42, max: 42 });
  });

  it('stays accurate far from zero, where a naive sum of squares cancels', () => {
    const s = of(1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16);
    expect(s.mean).toBe(1e9 + 10);
    expect(varianceOf(s)).toBeCloseTo(22.5, 6);
  });
});

describe('mergeStats', () => {
  it('equals the stats of the concatenation', () => {
    const merged = mergeStats(of(2, 4, 4), of(4, 5, 5, 7, 9));
    expect(merged.count).toBe(8);
    expect(merged.mean).toBeCloseTo(5, 12);
    expect(merged.m2).toBeCloseTo(32, 12);
    expect(merged.min).toBe(2);
    expect(merged.max).toBe(9);
  });

  it('returns the other operand when one is empty', () => {
    const a = of(1, 2, 3);
    expect(mergeStats(a, EMPTY_STATS)).toBe(a);
    expect(mergeStats(EMPTY_STATS, a)).toBe(a);
    expect(mergeStats(EMPTY_STATS, EMPTY_STATS)).toBe(EMPTY_STATS);
  });
});
