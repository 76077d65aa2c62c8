// Owns the float column's properties: the XOR cost count matches what is written, and the smaller scheme wins.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../src/storage/bit-stream.js';
import { scaleToDecimal } from '../../src/storage/decimal-column.js';
import { readFloatColumn, writeFloatColumn } from '../../src/storage/float-column.js';
import { writePackedInts } from '../../src/storage/int-column.js';
import { writeXorFloats, xorFloatsBitCost } from '../../src/storage/xor-column.js';
import { columnDifference } from './codec-fixtures.js';

const decimalValue = fc
  .tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 0, max: 4 }))
  .map(([k, d]) => k / 10 ** d);
const value = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), decimalValue, fc.constantFrom(0, 1, 1, 1, 2.5));
/** Mostly repeats with rare jumps: a shape where XOR can beat a feasible decimal scheme. */
const spiky = fc.array(fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: decimalValue }), {
  maxLength: 300,
});

function bitsWritten(write: (writer: BitWriter) => void): number {
  const writer = new BitWriter(8);
  write(writer);
  return writer.bitLength;
}

describe('float column properties', () => {
  it('xorFloatsBitCost equals the bits writeXorFloats writes', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), (values) => {
        const column = Float64Array.from(values);
        const written = bitsWritten((w) => writeXorFloats(w, column, column.length));
        expect(xorFloatsBitCost(column, column.length)).toBe(written);
      }),
    );
  });

  it('writes the smaller of the two schemes and reads it back bit-exactly', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(value, { maxLength: 300 }), fc.array(decimalValue, { maxLength: 300 }), spiky), (values) => {
        const column = Float64Array.from(values);
        const length = column.length;
        const scaled = new Float64Array(length);
        const xorBits = xorFloatsBitCost(column, length);
        const decimalBits =
          scaleToDecimal(column, length, scaled) >= 0 ? bitsWritten((w) => writePackedInts(w, scaled, length)) : Infinity;
        const writer = new BitWriter(8);
        writeFloatColumn(writer, column, length, new Float64Array(length));
        expect(writer.bitLength).toBe(length === 0 ? 0 : 8 + Math.min(xorBits, decimalBits));
        const out = new Float64Array(length);
        readFloatColumn(new BitReader(writer.finish()), out, length);
        expect(columnDifference(out, column)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('finds the fewest decimal places and refuses what integers cannot carry', () => {
    const scaled = new Float64Array(4);
    expect(scaleToDecimal(Float64Array.from([1, 2.5, 3.25, -7]), 4, scaled)).toBe(2);
    expect(Array.from(scaled)).toEqual([100, 250, 325, -700]);
    expect(scaleToDecimal(Float64Array.from([0.1 + 0.2]), 1, scaled)).toBe(-1);
    expect(scaleToDecimal(Float64Array.from([-0]), 1, scaled)).toBe(-1);
    expect(scaleToDecimal(Float64Array.from([Number.NaN]), 1, scaled)).toBe(-1);
    expect(scaleToDecimal(Float64Array.from([2 ** 52]), 1, scaled)).toBe(-1);
    expect(scaleToDecimal(Float64Array.from([0.001, 2 ** 51 / 1000]), 2, scaled)).toBe(3);
  });
});
