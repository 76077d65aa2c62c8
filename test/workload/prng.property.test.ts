// Properties of the workloads' generator: mulberry32 is a pure function of its seed, uniformInt stays in bounds, shuffleRange permutes only its range.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32, shuffleRange, UINT32_RANGE, uniformInt } from '../../src/workload/prng.js';

const seed = fc.integer({ min: 0, max: 2 ** 32 - 1 });

describe('mulberry32', () => {
  it('gives the same uint32 sequence for the same seed', () => {
    fc.assert(
      fc.property(seed, fc.integer({ min: 1, max: 200 }), (s, n) => {
        const a = mulberry32(s);
        const b = mulberry32(s);
        for (let i = 0; i < n; i++) {
          const x = a();
          expect(x).toBe(b());
          expect(Number.isInteger(x) && x >= 0 && x < UINT32_RANGE).toBe(true);
        }
      }),
    );
  });

  it('keeps its known first values (the benchmarks and peers rely on them)', () => {
    const next = mulberry32(42);
    expect([next(), next(), next()]).toEqual([2581720956, 1925393290, 3661312704]);
  });
});

describe('uniformInt', () => {
  it('draws integers in [0, bound)', () => {
    fc.assert(
      fc.property(seed, fc.integer({ min: 1, max: 1_000_000 }), (s, bound) => {
        const next = mulberry32(s);
        for (let i = 0; i < 50; i++) {
          const v = uniformInt(next, bound);
          expect(Number.isInteger(v) && v >= 0 && v < bound).toBe(true);
        }
      }),
    );
  });
});

describe('shuffleRange', () => {
  it('permutes items[start, end) and leaves the rest alone, deterministically', () => {
    fc.assert(
      fc.property(seed, fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 60 }), fc.nat(), fc.nat(), (s, items, a, b) => {
        const start = items.length === 0 ? 0 : a % (items.length + 1);
        const end = start + (items.length === 0 ? 0 : b % (items.length - start + 1));
        const array = Uint32Array.from(items);
        shuffleRange(array, start, end, mulberry32(s));
        const again = Uint32Array.from(items);
        shuffleRange(again, start, end, mulberry32(s));
        expect([...array]).toEqual([...again]);
        expect([...array.subarray(0, start)]).toEqual(items.slice(0, start));
        expect([...array.subarray(end)]).toEqual(items.slice(end));
        expect([...array.subarray(start, end)].sort((x, y) => x - y)).toEqual(items.slice(start, end).sort((x, y) => x - y));
      }),
    );
  });
});
