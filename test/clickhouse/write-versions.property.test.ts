// Property: WriteVersions hands out strictly increasing safe-integer versions, never below the clock's ms times CLICKHOUSE_VERSIONS_PER_MS, under any non-decreasing clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WriteVersions } from '../../src/clickhouse/write-versions.js';
import { ManualClock } from '../../src/core/clock.js';
import { CLICKHOUSE_VERSIONS_PER_MS } from '../../src/core/limits.js';

/** A turn of the test: move the clock forward by `advanceMs` (0 included), then take `takes` versions. */
const turnArb = fc.record({ advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 86_400_000 })), takes: fc.integer({ min: 0, max: 2_000 }) });
/** Clocks from the epoch to the year 2100 (where ms × 1024 still stays below 2^53). */
const startArb = fc.integer({ min: 0, max: 4_102_444_800_000 });

describe('WriteVersions', () => {
  it('is strictly increasing, a safe integer, and at least now × CLICKHOUSE_VERSIONS_PER_MS, whatever the calls and the clock', () => {
    fc.assert(
      fc.property(startArb, fc.array(turnArb, { maxLength: 20 }), (start, turns) => {
        const clock = new ManualClock(start);
        const versions = new WriteVersions(clock);
        let last = -1;
        for (const { advanceMs, takes } of turns) {
          clock.advance(advanceMs);
          for (let i = 0; i < takes; i++) {
            const v = versions.next();
            if (!(v > last && Number.isSafeInteger(v) && v >= clock.now() * CLICKHOUSE_VERSIONS_PER_MS)) {
              expect.fail(`version ${v} after ${last} at ${clock.now()} ms`);
            }
            last = v;
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('orders the versions of two stores by their clocks while each takes fewer than CLICKHOUSE_VERSIONS_PER_MS a millisecond', () => {
    fc.assert(
      fc.property(startArb, fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 0, max: CLICKHOUSE_VERSIONS_PER_MS - 1 }), fc.integer({ min: 1, max: 50 }), (start, gapMs, takesA, takesB) => {
        const a = new WriteVersions(new ManualClock(start));
        const b = new WriteVersions(new ManualClock(start + gapMs));
        let lastA = 0;
        for (let i = 0; i < takesA + 1; i++) lastA = a.next();
        for (let i = 0; i < takesB; i++) expect(b.next()).toBeGreaterThan(lastA);
      }),
    );
  });

  it('a burst of many versions in one millisecond still increases, and the clock catches up once it moves past the burst', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const versions = new WriteVersions(clock);
    const burst = Array.from({ length: 5 * CLICKHOUSE_VERSIONS_PER_MS }, () => versions.next());
    expect(new Set(burst).size).toBe(burst.length);
    expect(burst.every((v, i) => i === 0 || v === (burst[i - 1] as number) + 1)).toBe(true);
    clock.advance(1);
    expect(versions.next()).toBe((burst.at(-1) as number) + 1);
    clock.advance(10);
    expect(versions.next()).toBe(clock.now() * CLICKHOUSE_VERSIONS_PER_MS);
  });
});
