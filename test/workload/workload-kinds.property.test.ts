// Properties of buildWorkload across kinds: deterministic, exact counts, every series gets exactly its points whatever the arrival shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildWorkload, valueKindOf, WORKLOAD_KINDS, type BuiltWorkload, type WorkloadKind, type WorkloadOptions } from '../../src/workload/workload-kinds.js';

/** Every kind but nab, which reads files (test/workload/standard-workload.test.ts covers it). */
const GENERATED_KINDS = WORKLOAD_KINDS.filter((k) => k !== 'nab');

const options = (kind: WorkloadKind): fc.Arbitrary<WorkloadOptions> =>
  fc.record({
    kind: fc.constant(kind),
    series: fc.integer({ min: 1, max: 25 }),
    points: fc.integer({ min: 1, max: 80 }),
    intervalMs: fc.constantFrom(1_000, 30_000, 300_000),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    endMs: fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }),
    batchPoints: fc.integer({ min: 1, max: 500 }),
  });

/** The (series, timestamp) of every point in the order it is sent, as sortable strings. */
function sentKeys(built: BuiltWorkload): string[] {
  return [...built.plan.order].map((i) => `${built.columns.seriesIndex[i]}@${built.columns.timestampsMs[i]}`);
}

describe('buildWorkload', () => {
  for (const kind of GENERATED_KINDS) {
    it(`${kind}: deterministic, series x points points in batches of at most batchPoints, all within [t0, dataEnd)`, () => {
      fc.assert(
        fc.property(options(kind), (o) => {
          const built = buildWorkload(o);
          const again = buildWorkload(o);
          expect([...again.columns.values]).toEqual([...built.columns.values]);
          expect([...again.plan.order]).toEqual([...built.plan.order]);
          expect(again.plan.batches).toEqual(built.plan.batches);
          expect(again.description).toBe(built.description);
          expect(built.columns.length).toBe(o.series * o.points);
          expect(built.plan.batches.reduce((sum, b) => sum + b.end - b.start, 0)).toBe(o.series * o.points);
          expect(built.plan.batches.every((b) => b.end - b.start <= o.batchPoints)).toBe(true);
          const { t0Ms, dataEndMs, timestampsMs } = built.columns;
          expect(timestampsMs.every((t) => t >= t0Ms && t < dataEndMs)).toBe(true);
          expect(built.unit).toBe(kind === 'counter' ? 'count' : undefined);
          expect(built.description).toContain(built.plan.description);
        }),
      );
    });
  }

  for (const kind of ['burst', 'late', 'out-of-order'] as const) {
    it(`${kind}: sends the walk's points, each series exactly its own (series, timestamp, value) multiset`, () => {
      fc.assert(
        fc.property(options(kind), (o) => {
          const shaped = buildWorkload(o);
          const walk = buildWorkload({ ...o, kind: 'walk' });
          expect(valueKindOf(kind)).toBe('walk');
          expect([...shaped.columns.values]).toEqual([...walk.columns.values]);
          expect(sentKeys(shaped).sort()).toEqual(sentKeys(walk).sort());
          // Each series' values, in timestamp order, are the walk's: the shape moves points, never changes them.
          const bySeries = (b: BuiltWorkload): string[] =>
            [...b.plan.order].map((i) => `${b.columns.seriesIndex[i]}@${b.columns.timestampsMs[i]}=${b.columns.values[i]}`).sort();
          expect(bySeries(shaped)).toEqual(bySeries(walk));
        }),
      );
    });
  }

  it('gives each kind its own values or arrival sentence', () => {
    const base = { series: 3, points: 4, intervalMs: 30_000, seed: 42, endMs: 1_763_990_000_000, batchPoints: 5 };
    const descriptions = GENERATED_KINDS.map((kind) => buildWorkload({ ...base, kind }).description);
    expect(new Set(descriptions).size).toBe(GENERATED_KINDS.length);
    expect(descriptions[0]).toMatch(/^3 series x 4 points at 30000 ms; random walk .* full precision\. Arrival: points are sent in time-major order/);
  });
});
