// Owns the decimal view's properties: the guessed search finds the same places as trying every d, the one-pass scan the same scales, histogram and integers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalPlaces, DecimalExceptions, scaleDecimals, scanDecimals } from '../../src/storage/decimal-scale.js';
import { stepUlps } from '../../src/storage/float-bits.js';
import { PACKED_INT_MAGNITUDE_MAX } from '../../src/storage/int-column.js';
import { adversarialDouble, artefact, bitsDifference, decimalValue, floatColumn, nudge } from './float-arbitraries.js';
import { referenceDecimalCandidates, referenceDecimalPlaces } from './reference-float-column.js';

const DIGITS_MAX = 15;

/** Decimals of every length 0..15 and magnitudes up to past the packed range, where places run out. */
const anyDecimal = fc
  .tuple(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.integer({ min: 0, max: 18 }))
  .map(([k, d]) => k / 10 ** d);

/** Values right at the range: n / 10^d with |n| near 2^50, where the largest d within it decides. */
const rangeEdgeDecimal = fc
  .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 15 }), fc.boolean())
  .map(([offset, d, negative]) => ((negative ? -1 : 1) * (PACKED_INT_MAGNITUDE_MAX + offset)) / 10 ** d);

const value = fc.oneof(adversarialDouble, decimalValue, artefact, anyDecimal, rangeEdgeDecimal);

/** Columns of a few decimal lengths side by side, trailing zeros dropped (0.5 next to 0.25), with zeros and oddities. */
const mixedColumn = fc.array(
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.constantFrom(0, 1, 2, 3, 8, 12)).map(([k, d]) => k / 10 ** d) },
    { weight: 1, arbitrary: fc.constantFrom(0, -0, Number.NaN, 1e300, 2 ** 60) },
    { weight: 1, arbitrary: artefact },
  ),
  { minLength: 1, maxLength: 700 },
);

/** The reference scan: d7855df's histogram of decimalPlaces, one value at a time. */
function referenceHistogram(values: Float64Array): number[] {
  const histogram = new Array<number>(DIGITS_MAX + 1).fill(0);
  for (const v of values) {
    const d = referenceDecimalPlaces(v);
    if (d >= 0) histogram[d]!++;
  }
  return histogram;
}

describe('decimalPlaces', () => {
  it('finds the least fitting places from any guess, as trying d = 0, 1, 2, ... does', () => {
    fc.assert(
      fc.property(value, (v) => {
        const expected = referenceDecimalPlaces(v);
        for (let guess = 0; guess <= DIGITS_MAX; guess++) expect(decimalPlaces(v, guess), `${v} from ${guess}`).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('handles the zeros, non-finite values and artefacts named in its contract', () => {
    const cases: Array<[number, number]> = [
      [0, 0],
      [-0, -1],
      [Number.NaN, -1],
      [Number.POSITIVE_INFINITY, -1],
      [0.3, 1],
      [0.1 + 0.2, -1],
      [100.5, 1],
      [100.25, 2],
      [1e14, 0],
      [nudge(0.5, 1), -1],
      [PACKED_INT_MAGNITUDE_MAX, 0],
      [PACKED_INT_MAGNITUDE_MAX + 1, -1],
    ];
    for (const [v, places] of cases) {
      for (let guess = 0; guess <= DIGITS_MAX; guess++) expect(decimalPlaces(v, guess), `${v} from ${guess}`).toBe(places);
    }
  });
});

describe('scanDecimals', () => {
  it('picks the scales the first encoder picked, counts the same places, and scales the column as scaleDecimals does', () => {
    const histogram = new Int32Array(DIGITS_MAX + 1);
    const candidates: number[] = [];
    fc.assert(
      fc.property(fc.oneof(floatColumn, mixedColumn), (values) => {
        const column = Float64Array.from(values);
        const length = column.length;
        const ints = new Float64Array(length).fill(0.5);
        const exceptions = new DecimalExceptions();
        const scanned = scanDecimals(column, length, histogram, candidates, ints, exceptions);
        expect(candidates).toEqual(referenceDecimalCandidates(column));
        if (scanned < 0) {
          expect(candidates).toEqual([]);
          return;
        }
        expect(Array.from(histogram)).toEqual(referenceHistogram(column));
        const expectedInts = new Float64Array(length);
        const expectedExceptions = new DecimalExceptions();
        scaleDecimals(column, length, scanned, expectedInts, expectedExceptions);
        expect(bitsDifference(ints, expectedInts)).toBeNull();
        expect(exceptions).toEqual(expectedExceptions);
      }),
      { numRuns: 600 },
    );
  });
});

describe('scaleDecimals', () => {
  it('gives back every value bit-exactly from n / 10^d, its corrections and its raws, at any scale', () => {
    fc.assert(
      fc.property(fc.oneof(floatColumn, mixedColumn), fc.integer({ min: 0, max: DIGITS_MAX }), (values, digits) => {
        const column = Float64Array.from(values);
        const length = column.length;
        const ints = new Float64Array(length);
        const exceptions = new DecimalExceptions();
        scaleDecimals(column, length, digits, ints, exceptions);
        const out = Float64Array.from(ints, (n) => n / 10 ** digits);
        for (let k = 0; k < exceptions.corrections.length; k += 2) {
          const position = exceptions.corrections[k]!;
          out[position] = stepUlps(out[position]!, exceptions.corrections[k + 1]!);
        }
        for (let k = 0; k < exceptions.raws.length; k += 2) out[exceptions.raws[k]!] = exceptions.raws[k + 1]!;
        expect(bitsDifference(out, column)).toBeNull();
        // Every integer stays within the packed range, and a raw value's repeats the one before it.
        for (let i = 0; i < length; i++) expect(Math.abs(ints[i]!)).toBeLessThanOrEqual(PACKED_INT_MAGNITUDE_MAX);
        for (let k = 0; k < exceptions.raws.length; k += 2) {
          const position = exceptions.raws[k]!;
          expect(ints[position]).toBe(position === 0 ? 0 : ints[position - 1]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
