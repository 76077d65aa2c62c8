// Owns the bit stream's properties: any sequence of writes reads back identically, at any alignment.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter, bitLength } from '../../src/storage/bit-stream.js';

type Op =
  | { readonly kind: 'bits'; readonly count: number; readonly value: number }
  | { readonly kind: 'wide'; readonly count: number; readonly value: number }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bytes'; readonly value: Uint8Array };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc
    .integer({ min: 1, max: 32 })
    .chain((count) => fc.record({ kind: fc.constant('bits' as const), count: fc.constant(count), value: fc.integer({ min: 0, max: 2 ** count - 1 }) })),
  fc
    .integer({ min: 0, max: 53 })
    .chain((count) => fc.record({ kind: fc.constant('wide' as const), count: fc.constant(count), value: fc.integer({ min: 0, max: 2 ** count - 1 }) })),
  fc.record({ kind: fc.constant('float' as const), value: fc.double() }),
  fc.record({ kind: fc.constant('bytes' as const), value: fc.uint8Array({ maxLength: 9 }) }),
);

function write(writer: BitWriter, o: Op): void {
  if (o.kind === 'bits') writer.writeBits(o.value, o.count);
  else if (o.kind === 'wide') writer.writeWide(o.value, o.count);
  else if (o.kind === 'float') writer.writeFloat64(o.value);
  else {
    writer.alignToByte();
    writer.writeBytes(o.value);
  }
}

function expectRead(reader: BitReader, o: Op): void {
  if (o.kind === 'bits') expect(reader.readBits(o.count)).toBe(o.value);
  else if (o.kind === 'wide') expect(reader.readWide(o.count)).toBe(o.value);
  else if (o.kind === 'float') expect(Object.is(reader.readFloat64(), o.value)).toBe(true);
  else {
    reader.alignToByte();
    expect(Array.from(reader.readBytes(o.value.length))).toEqual(Array.from(o.value));
  }
}

describe('BitWriter / BitReader', () => {
  it('read back every write in order, from a tiny starting buffer that must grow', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const writer = new BitWriter(1);
        let expectedBits = 0;
        for (const o of ops) {
          write(writer, o);
          expectedBits = o.kind === 'bytes' ? ((expectedBits + 7) & ~7) + o.value.length * 8 : expectedBits + (o.kind === 'float' ? 64 : o.count);
          expect(writer.bitLength).toBe(expectedBits);
        }
        const bytes = writer.finish();
        expect(bytes.length).toBe((expectedBits + 7) >>> 3);
        const reader = new BitReader(bytes);
        for (const o of ops) expectRead(reader, o);
        expect(reader.bitPosition).toBe(expectedBits);
        reader.assertWithinInput();
      }),
      { numRuns: 500 },
    );
  });

  it('truncate takes back exactly the bits written after the mark', () => {
    const ops = fc.array(op, { maxLength: 40 });
    fc.assert(
      fc.property(ops, ops, ops, (kept, dropped, after) => {
        const writer = new BitWriter(1);
        for (const o of kept) write(writer, o);
        const mark = writer.bitLength;
        for (const o of dropped) write(writer, o);
        writer.truncate(mark);
        expect(writer.bitLength).toBe(mark);
        for (const o of after) write(writer, o);
        const reader = new BitReader(writer.finish());
        for (const o of [...kept, ...after]) expectRead(reader, o);
        reader.assertWithinInput();
      }),
      { numRuns: 300 },
    );
  });

  it('reads input at any byte offset of a larger buffer', () => {
    const writer = new BitWriter();
    writer.writeBits(0xdeadbeef, 32);
    writer.writeBits(5, 3);
    const bytes = writer.finish();
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    const reader = new BitReader(padded.subarray(3));
    expect(reader.readBits(32)).toBe(0xdeadbeef);
    expect(reader.readBits(3)).toBe(5);
  });

  it('lays bits out LSB-first within bytes', () => {
    const writer = new BitWriter();
    writer.writeBits(1, 1);
    writer.writeBits(0, 1);
    writer.writeBits(0b101, 3);
    expect(Array.from(writer.finish())).toEqual([0b10101]);
  });

  it('computes bit lengths up to 2^53', () => {
    expect([0, 1, 2, 3, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53].map(bitLength)).toEqual([
      0, 1, 2, 2, 32, 32, 33, 53, 54,
    ]);
  });

  it('writeDeltas writes the same bits as one writeWide per delta, after any prefix and from a tiny buffer', () => {
    // Deltas of `ints` minus `base` within [0, 2^width): built from the fields themselves.
    const run = fc.integer({ min: 0, max: 53 }).chain((width) =>
      fc.record({
        width: fc.constant(width),
        base: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        first: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fields: fc.array(fc.oneof(fc.integer({ min: 0, max: 2 ** width - 1 }), fc.constantFrom(0, 2 ** width - 1)), { maxLength: 150 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 6 }), fc.array(run, { minLength: 1, maxLength: 4 }), (prefix, runs) => {
        const bulk = new BitWriter(1);
        const single = new BitWriter(1);
        for (const o of prefix) {
          write(bulk, o);
          write(single, o);
        }
        for (const { width, base, first, fields } of runs) {
          const ints = new Float64Array(fields.length + 1);
          ints[0] = first;
          fields.forEach((field, i) => (ints[i + 1] = ints[i]! + base + field));
          bulk.writeDeltas(ints, 1, ints.length, base, width);
          for (let i = 1; i < ints.length; i++) single.writeWide(ints[i]! - ints[i - 1]! - base, width);
          expect(bulk.bitLength).toBe(single.bitLength);
        }
        expect(Array.from(bulk.finish())).toEqual(Array.from(single.finish()));
      }),
      { numRuns: 500 },
    );
  });

  it('reset forgets what was written and keeps writing from bit zero', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.array(op, { maxLength: 40 }), (before, after) => {
        const reused = new BitWriter(1);
        for (const o of before) write(reused, o);
        reused.reset();
        const fresh = new BitWriter(1);
        for (const o of after) {
          write(reused, o);
          write(fresh, o);
        }
        expect(reused.bitLength).toBe(fresh.bitLength);
        expect(Array.from(reused.finish())).toEqual(Array.from(fresh.finish()));
      }),
      { numRuns: 300 },
    );
  });
});
