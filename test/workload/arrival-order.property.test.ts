// Properties of the arrival plans: every point is sent exactly once, batches tile the order, arrivals never go back, and each shape keeps its promise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ARRIVAL_SEED_SALT,
  BURST_LARGE_BATCHES,
  BURST_SMALL_BATCHES,
  BURST_SMALL_DIVISOR,
  burstPlan,
  inOrderPlan,
  LATE_DELAY_MS_MAX,
  LATE_SHARE_PERCENT,
  latePlan,
  OUT_OF_ORDER_RUN_BATCHES,
  outOfOrderPlan,
  type ArrivalGrid,
  type ArrivalPlan,
} from '../../src/workload/arrival-order.js';
import { mulberry32, UINT32_RANGE, uniformInt } from '../../src/workload/prng.js';

const grid = fc.record({
  series: fc.integer({ min: 1, max: 40 }),
  points: fc.integer({ min: 1, max: 60 }),
  intervalMs: fc.constantFrom(1_000, 10_000, 30_000, 60_000, 600_000),
  seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
});
const batchPoints = fc.integer({ min: 1, max: 300 });

/** Checks what every plan owes: a permutation of 0..n-1 cut into contiguous batches of 1..limit points with non-decreasing arrivals. */
function expectWellFormed(plan: ArrivalPlan, length: number, limit: number): void {
  expect(plan.order.length).toBe(length);
  // One expect for the permutation, naming the first repeated or out-of-range index: an expect per point is slow.
  const seen = new Uint8Array(length);
  const bad = [...plan.order].find((i) => {
    if (i >= length || seen[i] === 1) return true;
    seen[i] = 1;
    return false;
  });
  expect(bad).toBeUndefined();
  let at = 0;
  let lastAt = 0;
  for (const b of plan.batches) {
    expect(b.start).toBe(at);
    expect(b.end - b.start).toBeGreaterThan(0);
    expect(b.end - b.start).toBeLessThanOrEqual(limit);
    expect(b.atPoints).toBeGreaterThanOrEqual(lastAt);
    at = b.end;
    lastAt = b.atPoints;
  }
  expect(at).toBe(length);
  expect(plan.description.length).toBeGreaterThan(0);
}

const plans = { inOrderPlan, burstPlan, latePlan, outOfOrderPlan } as const;

describe('every arrival plan', () => {
  for (const [name, make] of Object.entries(plans)) {
    it(`${name}: sends every point exactly once, in contiguous batches, deterministically`, () => {
      fc.assert(
        fc.property(grid, batchPoints, (g: ArrivalGrid, bp) => {
          const plan = make(g, bp);
          expectWellFormed(plan, g.series * g.points, bp);
          const again = make(g, bp);
          expect([...again.order]).toEqual([...plan.order]);
          expect(again.batches).toEqual(plan.batches);
        }),
      );
    });
  }
});

describe('inOrderPlan', () => {
  it('is the time-major order in full batches but the last, each arriving when the points before it are sent', () => {
    fc.assert(
      fc.property(grid, batchPoints, (g, bp) => {
        const plan = inOrderPlan(g, bp);
        expect([...plan.order]).toEqual(Array.from({ length: g.series * g.points }, (_, i) => i));
        expect(plan.batches.length).toBe(Math.ceil((g.series * g.points) / bp));
        for (const b of plan.batches) expect(b.atPoints).toBe(b.start);
      }),
    );
  });
});

describe('burstPlan', () => {
  it('keeps the time-major order and sends cycles of a burst of large batches at one instant, then small ones', () => {
    fc.assert(
      fc.property(grid, batchPoints, (g, bp) => {
        const plan = burstPlan(g, bp);
        expect([...plan.order]).toEqual(Array.from({ length: g.series * g.points }, (_, i) => i));
        const small = Math.ceil(bp / BURST_SMALL_DIVISOR);
        const cycle = BURST_LARGE_BATCHES + BURST_SMALL_BATCHES;
        plan.batches.forEach((b, j) => {
          const isLarge = j % cycle < BURST_LARGE_BATCHES;
          const last = j === plan.batches.length - 1;
          if (!last) expect(b.end - b.start).toBe(isLarge ? bp : small);
          if (isLarge && j % cycle > 0) expect(b.atPoints).toBe(plan.batches[j - 1]?.atPoints);
          if (!isLarge) expect(b.atPoints).toBeGreaterThan(plan.batches[j - 1]?.atPoints as number);
        });
      }),
    );
  });

  it('makes most batches small on a standard-sized workload', () => {
    const plan = burstPlan({ series: 1_000, points: 2_880, intervalMs: 30_000, seed: 42 }, 10_000);
    const small = plan.batches.filter((b) => b.end - b.start < 10_000).length;
    expect(small / plan.batches.length).toBeGreaterThan(0.8);
  });
});

describe('latePlan', () => {
  it('never sends a point more than LATE_DELAY_MS_MAX after a newer point', () => {
    fc.assert(
      fc.property(grid, batchPoints, (g, bp) => {
        const plan = latePlan(g, bp);
        let newestSlot = -1;
        let latestMs = 0;
        for (const i of plan.order) {
          const slot = Math.floor(i / g.series);
          newestSlot = Math.max(newestSlot, slot);
          latestMs = Math.max(latestMs, (newestSlot - slot) * g.intervalMs);
        }
        expect(latestMs).toBeLessThanOrEqual(LATE_DELAY_MS_MAX);
      }),
    );
  });

  it('equals a plain sort by (slot sent after, late after on time, index) of the same draws', () => {
    fc.assert(
      fc.property(grid, batchPoints, (g, bp) => {
        // The model: the same draws, then the obvious sort instead of the plan's counting sort.
        const next = mulberry32((g.seed ^ ARRIVAL_SEED_SALT) >>> 0);
        const delayMinMs = Math.min(g.intervalMs, LATE_DELAY_MS_MAX);
        const keyed = Array.from({ length: g.series * g.points }, (_, i) => {
          const slot = Math.floor(i / g.series);
          if (next() >= (UINT32_RANGE * LATE_SHARE_PERCENT) / 100) return { i, after: slot, late: 0 };
          const delayMs = delayMinMs + uniformInt(next, LATE_DELAY_MS_MAX - delayMinMs + 1);
          return { i, after: Math.min(g.points - 1, slot + Math.floor(delayMs / g.intervalMs)), late: 1 };
        });
        keyed.sort((a, b) => a.after - b.after || a.late - b.late || a.i - b.i);
        expect([...latePlan(g, bp).order]).toEqual(keyed.map((k) => k.i));
      }),
    );
  });

  it('delays about LATE_SHARE_PERCENT of the points on a standard-sized workload, each into a later slot', () => {
    const g = { series: 1_000, points: 2_880, intervalMs: 30_000, seed: 42 };
    const plan = latePlan(g, 10_000);
    let late = 0;
    let newestSlot = -1;
    for (const i of plan.order) {
      const slot = Math.floor(i / g.series);
      if (slot < newestSlot) late++;
      newestSlot = Math.max(newestSlot, slot);
    }
    const share = (late * 100) / plan.order.length;
    expect(share).toBeGreaterThan(LATE_SHARE_PERCENT * 0.95);
    expect(share).toBeLessThan(LATE_SHARE_PERCENT * 1.05);
  });
});

describe('outOfOrderPlan', () => {
  it('sends each in-order batch whole, shuffled, within its run of neighbouring batches', () => {
    fc.assert(
      fc.property(grid, batchPoints, (g, bp) => {
        const plan = outOfOrderPlan(g, bp);
        const inOrder = inOrderPlan(g, bp);
        expect(plan.batches.length).toBe(inOrder.batches.length);
        const runOf = (b: number): number => Math.floor(b / OUT_OF_ORDER_RUN_BATCHES);
        const sentBatches: number[] = [];
        plan.batches.forEach((b, j) => {
          const members = [...plan.order.subarray(b.start, b.end)];
          const source = Math.floor((members[0] as number) / bp);
          sentBatches.push(source);
          expect(runOf(source)).toBe(runOf(j));
          const expected = inOrder.batches[source];
          expect(members.sort((x, y) => x - y)).toEqual(Array.from({ length: (expected?.end ?? 0) - (expected?.start ?? 0) }, (_, k) => (expected?.start ?? 0) + k));
        });
        expect([...sentBatches].sort((x, y) => x - y)).toEqual(sentBatches.map((_, j) => j));
      }),
    );
  });

  it('actually reorders a standard-sized workload: batches and points', () => {
    const plan = outOfOrderPlan({ series: 1_000, points: 2_880, intervalMs: 30_000, seed: 42 }, 10_000);
    const firsts = plan.batches.map((b) => Math.floor((plan.order[b.start] as number) / 10_000));
    expect(firsts.some((source, j) => source !== j)).toBe(true);
    const first = plan.batches[0];
    const inBatch = [...plan.order.subarray(first?.start, first?.end)];
    expect(inBatch.some((i, k) => k > 0 && i < (inBatch[k - 1] as number))).toBe(true);
  });
});
