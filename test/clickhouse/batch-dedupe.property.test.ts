// Property: BatchDedupe marks exactly the points a later point of the same series and timestamp replaces, and nothing when no key repeats.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BatchDedupe } from '../../src/clickhouse/batch-dedupe.js';

/** The model: a point is replaced when a later point has its series and timestamp. */
function modelReplaced(ids: readonly number[], ts: readonly number[]): number[] {
  const last = new Map<string, number>();
  ids.forEach((id, i) => last.set(`${id}/${ts[i]}`, i));
  return ids.map((id, i) => (last.get(`${id}/${ts[i]}`) === i ? 0 : 1));
}

const pointArb = fc.record({
  id: fc.integer({ min: 0, max: 6 }),
  // Timestamps around now and across the 2^32 boundary, so both halves of the hash matter.
  ts: fc.oneof(fc.integer({ min: 1_795_000_000_000, max: 1_795_000_000_020 }), fc.integer({ min: 4_294_967_290, max: 4_294_967_300 }), fc.constant(0)),
});

describe('BatchDedupe', () => {
  it('marks the earlier of every repeated key, one reused instance over many batches', () => {
    const dedupe = new BatchDedupe();
    fc.assert(
      fc.property(fc.array(fc.array(pointArb, { maxLength: 3000 }), { minLength: 1, maxLength: 4 }), (batches) => {
        for (const points of batches) {
          const ids = Uint32Array.from(points.map((p) => p.id));
          const ts = Float64Array.from(points.map((p) => p.ts));
          const expected = modelReplaced([...ids], [...ts]);
          const got = dedupe.replacedPoints(ids, ts, points.length);
          if (expected.every((x) => x === 0)) expect(got).toBeNull();
          else expect(Array.from((got as Uint8Array).subarray(0, points.length))).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads only the first `length` points of longer columns', () => {
    const dedupe = new BatchDedupe();
    const ids = Uint32Array.from([1, 2, 1, 1]);
    const ts = Float64Array.from([5, 5, 5, 5]);
    expect(Array.from((dedupe.replacedPoints(ids, ts, 3) as Uint8Array).subarray(0, 3))).toEqual([1, 0, 0]);
    expect(dedupe.replacedPoints(ids, ts, 2)).toBeNull();
  });
});
