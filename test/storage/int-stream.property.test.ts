// Owns the integer stream's properties: any in-range integers read back exactly in both layouts, and the header says how.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../src/storage/bit-stream.js';
import { PACKED_INT_MAGNITUDE_MAX } from '../../src/storage/int-column.js';
import { PackedBlocks, planIntStream, planScaledIntStream, readIntStream, writeIntStream } from '../../src/storage/int-stream.js';
import { COLUMN_LENGTH_MAX } from './float-arbitraries.js';
import { secondOrderPays } from './reference-float-column.js';

/** The packed range, ±MAX (2^50 since format 2; format 1's 2^51 let alternating extremes overflow a block). */
const MAX = PACKED_INT_MAGNITUDE_MAX;
const SENTINEL = 0xc0ffee;
const LAYOUTS = [{ bytes: false }, { bytes: true }] as const;

const anyInt = fc.integer({ min: -MAX, max: MAX });
const edgeInt = fc.constantFrom(0, 1, -1, MAX, -MAX, MAX - 1, -MAX + 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 50);

/** Counters, drifting rates, noise, constants and extremes, of 0..3000 integers. */
const intColumn: fc.Arbitrary<number[]> = fc.oneof(
  fc.array(fc.oneof(anyInt, edgeInt), { maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
  fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
  // A counter whose rate drifts: second differences are small.
  fc
    .tuple(
      fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
      fc.integer({ min: -5000, max: 5000 }),
      fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
    )
    .map(([start, rate, drifts]) => {
      let x = start;
      let r = rate;
      return drifts.map((d) => {
        r += d;
        return (x += r);
      });
    }),
  fc.tuple(fc.oneof(anyInt, edgeInt), fc.integer({ min: 0, max: COLUMN_LENGTH_MAX })).map(([x, length]) => new Array<number>(length).fill(x)),
  // Swings across the whole range: differences up to 2 * MAX, past what second differences may hold.
  fc.array(fc.constantFrom(MAX, -MAX, 0), { maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
);

interface Written {
  readonly header: number;
  readonly bits: number;
  readonly endBit: number;
}

/** Writes after `prefixBits` bits and a sentinel, reads back into a dirty buffer, checks values and that the reader stopped at the end. */
function roundTrip(values: readonly number[], bytes: boolean, prefixBits: number): Written {
  const length = values.length;
  const ints = Float64Array.from(values);
  const writer = new BitWriter(8);
  writer.writeBits(0, prefixBits);
  writeIntStream(writer, ints, length, { bytes }, new Float64Array(length).fill(Number.NaN));
  const endBit = writer.bitLength;
  writer.writeBits(SENTINEL, 24);
  // The writer must leave its input alone.
  expect(Array.from(ints)).toEqual(values);
  const encoded = writer.finish();
  const reader = new BitReader(encoded);
  if (prefixBits > 0) reader.readBits(prefixBits);
  const header = new BitReader(encoded);
  if (prefixBits > 0) header.readBits(prefixBits);
  const out = new Float64Array(length).fill(0.5);
  readIntStream(reader, out, length);
  expect(Array.from(out)).toEqual(values);
  expect(reader.bitPosition).toBe(endBit);
  expect(reader.readBits(24)).toBe(SENTINEL);
  return { header: header.readBits(2), bits: endBit - prefixBits, endBit };
}

describe('integer stream', () => {
  it('reads back any integers within the packed range exactly, in both layouts, at any bit offset', () => {
    fc.assert(
      fc.property(intColumn, fc.integer({ min: 0, max: 7 }), (values, prefixBits) => {
        for (const { bytes } of LAYOUTS) {
          const { header, endBit } = roundTrip(values, bytes, prefixBits);
          // Bit 1 of the header names the layout; the byte layout ends on a byte boundary.
          expect((header & 2) !== 0).toBe(bytes);
          if (bytes) expect(endBit % 8).toBe(0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('stores a linear counter as second differences in varints, and not a constant in packed bits', () => {
    const counter = Array.from({ length: 240 }, (_, i) => 1_000_000 + i * 1000);
    expect(roundTrip(counter, true, 0).header).toBe(3);
    // Constant steps already cost 0 bits a value packed: nothing to gain from a second order.
    expect(roundTrip(counter, false, 0).header).toBe(0);
    // Two values have no second difference at all.
    for (const bytes of [false, true]) expect(roundTrip([5, 1_000_005], bytes, 0).header & 1).toBe(0);
  });

  it('keeps to first differences when a difference leaves the packed range', () => {
    // Steps of 2 * MAX - 1 would make second differences near 4 * MAX, past what the packed column holds.
    const swings = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? MAX : -MAX + 1));
    for (const bytes of [false, true]) expect(roundTrip(swings, bytes, 3).header & 1).toBe(0);
  });

  it('packs integers swinging across the whole packed range', () => {
    // Differences of ±2 * MAX in one block: a block range of 4 * MAX, the widest there is.
    for (const bytes of [false, true]) roundTrip([MAX, -MAX, MAX], bytes, 0);
  });

  it('packs second differences whose first element swings across the range', () => {
    // -MAX, 0, -MAX, then a quadratic: second differences win on every later block, and the
    // first block holds 0 - 2 * (-MAX) = 2 * MAX next to the second difference -2 * MAX.
    let x = -MAX;
    let step = 0;
    const values = [-MAX, 0, -MAX];
    for (let i = 3; i < 300; i++) values.push((x += ++step));
    for (const bytes of [false, true]) roundTrip(values, bytes, 0);
  });

  it('spends a byte a value on a drifting counter in varints, where first differences need more', () => {
    let rate = 100_000;
    let x = 0;
    const counter = Array.from({ length: 1000 }, (_, i) => (x += rate += i % 2 === 0 ? 1 : -1));
    const { header, bits } = roundTrip(counter, true, 0);
    expect(header).toBe(3);
    expect(bits).toBeLessThanOrEqual(2 + 6 + 8 * (1000 + 4));
  });
});

describe('integer stream plan', () => {
  /** Bits writeIntStream writes after `prefixBits` bits, with the plan given or left to it. */
  function writtenBits(values: Float64Array, bytes: boolean, prefixBits: number, blocks?: PackedBlocks): { bits: number; encoded: number[] } {
    const writer = new BitWriter(8);
    writer.writeBits(0, prefixBits);
    const plan = blocks === undefined ? undefined : planIntStream(values, values.length, { bytes }, prefixBits, blocks);
    writeIntStream(writer, values, values.length, { bytes }, new Float64Array(values.length), plan);
    return { bits: writer.bitLength - prefixBits, encoded: Array.from(writer.finish()) };
  }

  it('prices the stream exactly: planned bits equal written bits, in both layouts and at any offset', () => {
    fc.assert(
      fc.property(intColumn, fc.integer({ min: 0, max: 7 }), (values, prefixBits) => {
        const ints = Float64Array.from(values);
        for (const { bytes } of LAYOUTS) {
          const plan = planIntStream(ints, ints.length, { bytes }, prefixBits, new PackedBlocks());
          const written = writtenBits(ints, bytes, prefixBits);
          expect(plan.bits).toBe(written.bits);
          // The header's order bit is the plan's.
          const reader = new BitReader(Uint8Array.from(written.encoded));
          if (prefixBits > 0) reader.readBits(prefixBits);
          if (ints.length > 0) expect((reader.readBits(2) & 1) === 1).toBe(plan.second);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('writes the same bits from the blocks the plan kept as from scanning the deltas again', () => {
    fc.assert(
      fc.property(intColumn, fc.integer({ min: 0, max: 7 }), (values, prefixBits) => {
        const ints = Float64Array.from(values);
        expect(writtenBits(ints, false, prefixBits, new PackedBlocks()).encoded).toEqual(writtenBits(ints, false, prefixBits).encoded);
      }),
      { numRuns: 300 },
    );
  });

  it('prices second differences only where the first encoder chose them (its estimate, kept here)', () => {
    fc.assert(
      fc.property(intColumn, (values) => {
        const ints = Float64Array.from(values);
        for (const { bytes } of LAYOUTS) expect(planIntStream(ints, ints.length, { bytes }, 0, undefined).second).toBe(secondOrderPays(ints, bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('plans v * 2^k as it stores them: the same plan as for the scaled integers, and those integers', () => {
    const gridColumn = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.array(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), { maxLength: 400 }));
    fc.assert(
      fc.property(gridColumn, fc.integer({ min: 0, max: 7 }), ([places, ks], startBit) => {
        const scale = 2 ** places;
        const values = Float64Array.from(ks, (k) => k / scale);
        const expected = Float64Array.from(ks);
        for (const { bytes } of LAYOUTS) {
          const out = new Float64Array(ks.length).fill(Number.NaN);
          const scaled = planScaledIntStream(values, scale, out, ks.length, { bytes }, startBit, new PackedBlocks());
          expect(Array.from(out)).toEqual(Array.from(expected));
          const direct = planIntStream(expected, ks.length, { bytes }, startBit, undefined);
          expect([scaled.bits, scaled.second]).toEqual([direct.bits, direct.second]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
