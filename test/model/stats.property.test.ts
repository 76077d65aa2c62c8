// Property tests of model/stats: the merge is associative, commutative, has an identity, and matches one pass.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_STATS, mergeStats, statsOfValues, type Stats } from '../../src/model/stats.js';

/** Allowed relative error of mean and m2, relative to the data's magnitude (see `close`). */
const RELATIVE_EPSILON = 1e-9;
/** Absolute slack for values so small (below about 1e-154) that their squares underflow into subnormals. */
const ABSOLUTE_FLOOR = 1e-300;

/** Values of mixed magnitudes: small integers, large offsets, tiny fractions. */
const value = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: -1e-3, max: 1e-3, noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 100 }).map((n) => 1e6 + n),
);
const values = fc.array(value, { maxLength: 60, size: 'max' });

const of = (xs: readonly number[]) => statsOfValues(Float64Array.from(xs), 0, xs.length);

/**
 * count, min and max must match exactly; mean within RELATIVE_EPSILON of max(|mean|, spread) and
 * m2 within RELATIVE_EPSILON of count * max(|mean|, spread)^2 (its units are squared values).
 */
function expectClose(actual: Stats, expected: Stats): void {
  expect(actual.count).toBe(expected.count);
  if (expected.count === 0) {
    expect(actual.mean).toBeNaN();
    return;
  }
  // + 0 turns -0 into 0: both are the same minimum, whichever one a path happened to keep.
  expect(actual.min + 0).toBe(expected.min + 0);
  expect(actual.max + 0).toBe(expected.max + 0);
  const scale = Math.max(Math.abs(expected.mean), expected.max - expected.min, Number.MIN_VALUE);
  expect(Math.abs(actual.mean - expected.mean)).toBeLessThanOrEqual(RELATIVE_EPSILON * scale + ABSOLUTE_FLOOR);
  expect(Math.abs(actual.m2 - expected.m2)).toBeLessThanOrEqual(RELATIVE_EPSILON * expected.count * scale * scale + ABSOLUTE_FLOOR);
}

describe('mergeStats properties', () => {
  it('is associative', () => {
    fc.assert(
      fc.property(values, values, values, (a, b, c) => {
        const [sa, sb, sc] = [of(a), of(b), of(c)];
        expectClose(mergeStats(mergeStats(sa, sb), sc), mergeStats(sa, mergeStats(sb, sc)));
      }),
    );
  });

  it('is commutative', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        expectClose(mergeStats(of(a), of(b)), mergeStats(of(b), of(a)));
      }),
    );
  });

  it('has EMPTY_STATS as identity', () => {
    fc.assert(
      fc.property(values, (a) => {
        const s = of(a);
        expect(mergeStats(s, EMPTY_STATS)).toEqual(s);
        expect(mergeStats(EMPTY_STATS, s)).toEqual(s);
      }),
    );
  });

  it('equals one Welford pass over the concatenation', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        expectClose(mergeStats(of(a), of(b)), of([...a, ...b]));
      }),
    );
  });

  it('keeps m2 non-negative', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        const m = mergeStats(of(a), of(b));
        if (m.count > 0) expect(m.m2).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
