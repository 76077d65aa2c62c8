// Properties of an agent connection's request budget: a burst then the refill rate, never more served than the bucket allows, refusals counted until a pause refills it, a clock stepping back refilling nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/agent/endpoint/request-budget.js';
import { AssertionFailure } from '../../../src/core/assert.js';

const rate = fc.integer({ min: 1, max: 500 });
const size = fc.integer({ min: 1, max: 500 });
const start = fc.integer({ min: 0, max: 2 ** 45 });

describe('RequestBudget', () => {
  it('serves exactly `burst` requests at one instant, refusing and counting the rest', () => {
    fc.assert(
      fc.property(rate, size, start, fc.integer({ min: 0, max: 1_000 }), (perSecond, burst, nowMs, count) => {
        const budget = new RequestBudget(perSecond, burst, nowMs);
        const served = Array.from({ length: count }, () => budget.take(nowMs)).filter(Boolean).length;
        expect(served).toBe(Math.min(count, burst));
        expect(budget.refusedInRun).toBe(Math.max(0, count - burst));
      }),
    );
  });

  it('never serves more than the burst plus what the elapsed time refills, whatever the request times', () => {
    fc.assert(
      fc.property(rate, size, start, fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }), (perSecond, burst, startMs, steps) => {
        const budget = new RequestBudget(perSecond, burst, startMs);
        let nowMs = startMs;
        let served = 0;
        for (const step of steps) {
          nowMs += step;
          if (budget.take(nowMs)) served++;
          expect(served).toBeLessThanOrEqual(burst + Math.floor(((nowMs - startMs) * perSecond) / 1_000));
        }
      }),
    );
  });

  it('serves again, with its refusals forgotten, after a pause of burst / perSecond seconds', () => {
    fc.assert(
      fc.property(rate, size, start, fc.integer({ min: 1, max: 2_000 }), (perSecond, burst, nowMs, extra) => {
        const budget = new RequestBudget(perSecond, burst, nowMs);
        for (let i = 0; i < burst + extra; i++) budget.take(nowMs);
        expect(budget.refusedInRun).toBe(extra);
        const later = nowMs + Math.ceil((burst * 1_000) / perSecond);
        expect(budget.take(later)).toBe(true);
        expect(budget.refusedInRun).toBe(0);
        // A shorter pause refills only part of the bucket: the count goes on.
        for (let i = 0; i < burst + 1; i++) budget.take(later);
        expect(budget.refusedInRun).toBe(2);
      }),
    );
  });

  it('refills nothing when the clock steps back, and refills from the latest time seen', () => {
    fc.assert(
      fc.property(rate, size, start, fc.integer({ min: 1, max: 10_000 }), (perSecond, burst, nowMs, backMs) => {
        const budget = new RequestBudget(perSecond, burst, nowMs);
        for (let i = 0; i < burst; i++) budget.take(nowMs);
        expect(budget.take(nowMs - backMs)).toBe(false);
        // Back at the time it saw last, still empty: the step back did not move its refill mark.
        expect(budget.take(nowMs)).toBe(false);
        expect(budget.take(nowMs + Math.ceil(1_000 / perSecond))).toBe(true);
      }),
    );
  });

  it('treats a bound that is not a positive integer as a programmer error', () => {
    expect(() => new RequestBudget(0, 1, 0)).toThrow(AssertionFailure);
    expect(() => new RequestBudget(1, 0, 0)).toThrow(AssertionFailure);
    expect(() => new RequestBudget(1.5, 2, 0)).toThrow(AssertionFailure);
  });
});
