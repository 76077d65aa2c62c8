// Owns the property tests of the retry delay: bounds of each jitter mode, caps that never decrease, the doubling itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffCapMs, backoffDelayMs } from '../../../src/monitoring/delivery/backoff.js';

const failures = fc.integer({ min: 1, max: 200 });
const base = fc.integer({ min: 1, max: 60_000 });
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
/** A base and a cap at least as large. */
const delays = fc.tuple(base, fc.integer({ min: 0, max: 24 * 3_600_000 })).map(([b, extra]) => ({ baseMs: b, maxMs: b + extra }));

describe('backoff', () => {
  it('caps double from the base and stop at the maximum', () => {
    fc.assert(
      fc.property(failures, delays, (n, { baseMs, maxMs }) => {
        const cap = backoffCapMs(n, baseMs, maxMs);
        expect(cap).toBe(Math.min(maxMs, baseMs * 2 ** Math.min(n - 1, 52)));
        expect(cap).toBeGreaterThanOrEqual(Math.min(baseMs, maxMs));
        expect(cap).toBeLessThanOrEqual(maxMs);
      }),
    );
  });

  it('caps never decrease as failures grow', () => {
    fc.assert(
      fc.property(failures, failures, delays, (a, b, { baseMs, maxMs }) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(backoffCapMs(low, baseMs, maxMs)).toBeLessThanOrEqual(backoffCapMs(high, baseMs, maxMs));
      }),
    );
  });

  it('full jitter stays in [0, cap], equal jitter in [cap/2, cap], both integers', () => {
    fc.assert(
      fc.property(failures, delays, random, (n, { baseMs, maxMs }, r) => {
        const cap = backoffCapMs(n, baseMs, maxMs);
        const full = backoffDelayMs(n, baseMs, maxMs, r, 'full');
        const equal = backoffDelayMs(n, baseMs, maxMs, r, 'equal');
        expect(Number.isSafeInteger(full) && Number.isSafeInteger(equal)).toBe(true);
        expect(full).toBeGreaterThanOrEqual(0);
        expect(full).toBeLessThanOrEqual(cap);
        expect(equal).toBeGreaterThanOrEqual(Math.floor(cap / 2));
        expect(equal).toBeLessThanOrEqual(cap);
      }),
    );
  });

  it('a larger random never gives a shorter delay (the jitter is monotone in its draw)', () => {
    fc.assert(
      fc.property(failures, delays, random, random, (n, { baseMs, maxMs }, r1, r2) => {
        const [low, high] = r1 <= r2 ? [r1, r2] : [r2, r1];
        for (const mode of ['full', 'equal'] as const) {
          expect(backoffDelayMs(n, baseMs, maxMs, low, mode)).toBeLessThanOrEqual(backoffDelayMs(n, baseMs, maxMs, high, mode));
        }
      }),
    );
  });

  it('defaults to equal jitter and never overflows', () => {
    expect(backoffDelayMs(1, 1000, 300_000, 0)).toBe(500);
    expect(backoffDelayMs(3, 1000, 300_000, 0.999_999)).toBe(3999);
    expect(backoffCapMs(10_000, 1000, 300_000)).toBe(300_000);
    expect(backoffCapMs(0, 1000, 300_000)).toBe(1000);
  });
});
