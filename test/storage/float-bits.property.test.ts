// Owns the properties of the bit-level double helpers: ulp distances and steps are inverse, binaryPlaces matches its definition, binaryScale the first encoder's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binaryPlaces, binaryScale, sameBits, stepUlps, ulpDistance, ULP_CORRECTION_MAX } from '../../src/storage/float-bits.js';
import { ADVERSARIAL_DOUBLES, adversarialDouble, binaryGridColumn, bitsOf, floatColumn, fromBits, nudge } from './float-arbitraries.js';
import { referenceBinaryScale } from './reference-float-column.js';

const SIGN_BIT = 1n << 63n;
const EXPONENT_MASK = 0x7ffn << 52n;

/** Reference ulpDistance on BigInt bit patterns: same sign, both finite, within the limit, else NaN. */
function referenceDistance(value: number, approx: number): number {
  const v = bitsOf(value);
  const a = bitsOf(approx);
  if ((v & SIGN_BIT) !== (a & SIGN_BIT)) return Number.NaN;
  if ((v & EXPONENT_MASK) === EXPONENT_MASK || (a & EXPONENT_MASK) === EXPONENT_MASK) return Number.NaN;
  const distance = v - a;
  const limit = BigInt(ULP_CORRECTION_MAX);
  return distance > limit || distance < -limit ? Number.NaN : Number(distance);
}

/** Binary places by definition: double the value until it is an integer (exact for normal doubles). */
function referencePlaces(value: number): number {
  if (Object.is(value, 0)) return 0;
  if (!Number.isFinite(value) || Object.is(value, -0) || Math.abs(value) < 2 ** -1022) return -1;
  let x = value;
  let k = 0;
  while (!Number.isInteger(x)) {
    x *= 2;
    k++;
  }
  return k;
}

/** Ulp offsets: small, around the correction limit, and far past it. */
const ulps = fc.oneof(
  fc.integer({ min: -64, max: 64 }),
  fc.integer({ min: -ULP_CORRECTION_MAX, max: ULP_CORRECTION_MAX }),
  fc.constantFrom(ULP_CORRECTION_MAX, -ULP_CORRECTION_MAX, ULP_CORRECTION_MAX + 1, -ULP_CORRECTION_MAX - 1, 2 ** 32, -(2 ** 32) - 1),
);

describe('ulpDistance and stepUlps', () => {
  it('stepUlps undoes ulpDistance for any doubles within the limit, bit-exactly', () => {
    fc.assert(
      fc.property(adversarialDouble, ulps, (approx, n) => {
        const value = nudge(approx, n);
        const distance = ulpDistance(value, approx);
        expect(Object.is(distance, referenceDistance(value, approx))).toBe(true);
        if (distance === distance) {
          expect(Math.abs(distance)).toBeLessThanOrEqual(ULP_CORRECTION_MAX);
          expect(sameBits(stepUlps(approx, distance), value)).toBe(true);
          expect(bitsOf(stepUlps(approx, distance))).toBe(bitsOf(value));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('measures exactly the bit patterns stepped, across word and exponent boundaries', () => {
    fc.assert(
      fc.property(adversarialDouble, fc.integer({ min: -ULP_CORRECTION_MAX, max: ULP_CORRECTION_MAX }), (approx, n) => {
        const value = nudge(approx, n);
        // nudge leaves the value alone when the step would cross zero's sign or run off the patterns.
        fc.pre(bitsOf(value) - bitsOf(approx) === BigInt(n) && Number.isFinite(value) && Number.isFinite(approx));
        expect(ulpDistance(value, approx)).toBe(n);
        expect(bitsOf(stepUlps(approx, n))).toBe(bitsOf(value));
      }),
      { numRuns: 2000 },
    );
    // A carry out of and a borrow into the low 32-bit word.
    const lowAllOnes = fromBits(0x3ff0_0000_ffff_ffffn);
    expect(bitsOf(stepUlps(lowAllOnes, 1))).toBe(0x3ff0_0001_0000_0000n);
    expect(bitsOf(stepUlps(fromBits(0x3ff0_0001_0000_0000n), -1))).toBe(0x3ff0_0000_ffff_ffffn);
    expect(ulpDistance(fromBits(0x3ff0_0001_0000_0003n), lowAllOnes)).toBe(4);
    // Subnormals up into the normals, and negative values (patterns grow with the magnitude).
    expect(ulpDistance(2.2250738585072014e-308, fromBits(0x000f_ffff_ffff_fff0n))).toBe(16);
    expect(stepUlps(0, 1)).toBe(Number.MIN_VALUE);
    expect(ulpDistance(-(0.1 + 0.2), -0.3)).toBe(1);
    expect(stepUlps(-0.3, 1)).toBe(-(0.1 + 0.2));
  });

  it('gives NaN when the signs differ, -0 against 0 included', () => {
    fc.assert(
      fc.property(adversarialDouble, adversarialDouble, (a, b) => {
        fc.pre(((bitsOf(a) ^ bitsOf(b)) & SIGN_BIT) !== 0n);
        expect(ulpDistance(a, b)).toBeNaN();
        expect(ulpDistance(b, a)).toBeNaN();
      }),
    );
    expect(ulpDistance(-0, 0)).toBeNaN();
    expect(ulpDistance(0, -0)).toBeNaN();
    expect(ulpDistance(-Number.MIN_VALUE, Number.MIN_VALUE)).toBeNaN();
    expect(ulpDistance(-Number.MIN_VALUE, 0)).toBeNaN();
  });

  it('gives NaN for Infinity and NaN, and past the correction limit', () => {
    for (const x of ADVERSARIAL_DOUBLES) {
      for (const odd of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
        expect(ulpDistance(odd, x)).toBeNaN();
        expect(ulpDistance(x, odd)).toBeNaN();
      }
    }
    expect(ulpDistance(Number.MAX_VALUE, nudge(Number.MAX_VALUE, -3))).toBe(3);
    expect(ulpDistance(nudge(1, ULP_CORRECTION_MAX), 1)).toBe(ULP_CORRECTION_MAX);
    expect(ulpDistance(nudge(1, -ULP_CORRECTION_MAX), 1)).toBe(-ULP_CORRECTION_MAX);
    expect(ulpDistance(nudge(1, ULP_CORRECTION_MAX + 1), 1)).toBeNaN();
    expect(ulpDistance(nudge(1, -ULP_CORRECTION_MAX - 1), 1)).toBeNaN();
    // Far apart in the high word, yet the low words alone would look close.
    expect(ulpDistance(fromBits(0x4000_0000_0000_0001n), fromBits(0x3ff0_0000_0000_0000n))).toBeNaN();
  });
});

describe('sameBits', () => {
  it('compares the 64 bits', () => {
    fc.assert(
      fc.property(adversarialDouble, adversarialDouble, (a, b) => {
        expect(sameBits(a, b)).toBe(bitsOf(a) === bitsOf(b));
        expect(sameBits(a, a)).toBe(true);
      }),
    );
    expect(sameBits(0, -0)).toBe(false);
    expect(sameBits(Number.NaN, Number.NaN)).toBe(true);
    expect(sameBits(0.1 + 0.2, 0.3)).toBe(false);
  });
});

describe('binaryPlaces', () => {
  const gridValue = fc
    .tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 1100 }))
    .map(([k, p]) => k * 2 ** -Math.min(p, 1074));

  it('is the least k with value * 2^k an integer, -1 for -0, NaN, Infinity and subnormals', () => {
    fc.assert(
      fc.property(fc.oneof(adversarialDouble, gridValue), (x) => {
        expect(binaryPlaces(x)).toBe(referencePlaces(x));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the definition at the edges', () => {
    const cases: Array<[number, number]> = [
      [0, 0],
      [-0, -1],
      [1, 0],
      [-3, 0],
      [0.5, 1],
      [0.75, 2],
      [100 + 1 / 2 ** 32, 32],
      [2 ** 60, 0],
      [Number.MAX_VALUE, 0],
      [2 ** -1022, 1022],
      [3 * 2 ** -1022, 1022],
      [-(2 ** -1022) * 1.5, 1023],
      [2 ** -1023, -1],
      [Number.MIN_VALUE, -1],
      [Number.NaN, -1],
      [Number.POSITIVE_INFINITY, -1],
      [Number.NEGATIVE_INFINITY, -1],
      [0.1, 55],
    ];
    for (const [x, places] of cases) {
      expect(binaryPlaces(x), String(x)).toBe(places);
      expect(referencePlaces(x), String(x)).toBe(places);
    }
  });
});

describe('binaryScale', () => {
  /** Grids k / 2^p whose largest magnitude times 2^p is 2^50 or a step either side: the bound the bits alone cannot decide. */
  const edgeGrid = fc
    .record({
      places: fc.integer({ min: 1, max: 60 }),
      top: fc.constantFrom(2 ** 50, 2 ** 50 - 1, 2 ** 50 + 2, 2 ** 49 + 1, 2 ** 51 - 2),
      rest: fc.array(fc.integer({ min: -(2 ** 20), max: 2 ** 20 }), { maxLength: 80 }),
      zeros: fc.boolean(),
    })
    .map(({ places, top, rest, zeros }) => [...rest.map((k) => (zeros && k % 3 === 0 ? 0 : (2 * k + 1) / 2 ** places)), top / 2 ** places]);

  it('finds the places the first encoder found (per value, then the magnitude), from the bits', () => {
    fc.assert(
      fc.property(fc.oneof(floatColumn, binaryGridColumn, edgeGrid, fc.array(adversarialDouble, { maxLength: 50 })), (values) => {
        const column = Float64Array.from(values);
        const halves = new Uint32Array(column.buffer, column.byteOffset, 2 * column.length);
        expect(binaryScale(column, halves, column.length)).toBe(referenceBinaryScale(column));
      }),
      { numRuns: 1000 },
    );
  });
});
