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
});
