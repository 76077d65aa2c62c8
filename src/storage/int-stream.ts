// Owns the integer stream of the integer-valued float schemes: order 1 or 2 differences, bit-packed or as byte varints, and its exact price.
import type { BitReader, BitWriter } from './bit-stream.js';
import { bitLength } from './bit-stream.js';
import { PACKED_INT_MAGNITUDE_MAX, readPackedInts, writePackedInts } from './int-column.js';
import { readVarUint, unzigzag, varUintBytes, writeVarUint, zigzag } from './varint.js';

/**
 * How the integers are laid out. `bytes`: byte-aligned zigzag varints of the differences, which an
 * entropy stage after it (entropy-stage.ts) compresses far better than packed bits, since repeats
 * stay byte-aligned; without that stage the packed bits are smaller. `order` 2 stores the
 * differences of the differences: a counter whose rate drifts, or a linear one in varints.
 */
export interface IntLayout {
  readonly bytes: boolean;
}

// Header bits: bit 0 = second order, bit 1 = byte varints.
const HEADER_BITS = 2;
/** Elements per block of the packed layout (int-column.ts's BLOCK_LENGTH, which it does not export). */
const PACKED_BLOCK = 64;
/** Bits of writeSignedBits' length field, and of each packed block's width field. */
const FIELD_BITS = 6;

/**
 * Each packed block's smallest difference and width, for first and for second differences, as
 * writePackedInts takes them: the pass that prices a column keeps them for the pass that writes it.
 */
export class PackedBlocks {
  first = new Float64Array(0);
  second = new Float64Array(0);

  /** Makes room for the blocks of a column of `length` integers. */
  ensure(length: number): void {
    const needed = 2 * Math.ceil(length / PACKED_BLOCK);
    if (this.first.length >= needed) return;
    const capacity = Math.max(needed, 2 * this.first.length);
    this.first = new Float64Array(capacity);
    this.second = new Float64Array(capacity);
  }
}

/** What writeIntStream will write for a column: its exact size and whether it stores second differences. */
export interface IntStreamPlan {
  /** Bits the stream takes (header, padding to a byte in the byte layout, and data). */
  readonly bits: number;
  readonly second: boolean;
  /** The packed blocks of both orders, when planIntStream was given somewhere to keep them. */
  readonly blocks: PackedBlocks | undefined;
}

/**
 * Writes `length` integers of `ints` (each |x| <= PACKED_INT_MAGNITUDE_MAX): a 2-bit header, then
 * the stream. `scratch` (at least `length` long) is overwritten. `plan`, when given, must be
 * planIntStream's for the same integers, layout and writer position; it saves that pass.
 */
export function writeIntStream(
  writer: BitWriter,
  ints: Float64Array,
  length: number,
  layout: IntLayout,
  scratch: Float64Array,
  plan: IntStreamPlan = planIntStream(ints, length, layout, writer.bitLength, undefined),
): void {
  const second = plan.second;
  let source = ints;
  if (second) {
    scratch[0] = ints[0]!;
    for (let i = 1; i < length; i++) scratch[i] = ints[i]! - ints[i - 1]!;
    source = scratch;
  }
  writer.writeBits((second ? 1 : 0) | (layout.bytes ? 2 : 0), HEADER_BITS);
  if (!layout.bytes) {
    const blocks = plan.blocks;
    writePackedInts(writer, source, length, blocks === undefined ? undefined : second ? blocks.second : blocks.first);
    return;
  }
  writer.alignToByte();
  let previous = 0;
  for (let i = 0; i < length; i++) {
    const x = source[i]!;
    writeVarUint(writer, zigzag(x - previous));
    previous = x;
  }
}

/** Reads `length` integers written by writeIntStream into `out`. */
export function readIntStream(reader: BitReader, out: Float64Array, length: number): void {
  const header = reader.readBits(HEADER_BITS);
  if ((header & 2) === 0) {
    readPackedInts(reader, out, length);
  } else {
    reader.alignToByte();
    let x = 0;
    for (let i = 0; i < length; i++) {
      x += unzigzag(readVarUint(reader));
      out[i] = x;
    }
  }
  if ((header & 1) !== 0) {
    for (let i = 1; i < length; i++) out[i] = out[i]! + out[i - 1]!;
  }
}

/**
 * The exact size of writeIntStream's output for these integers when it starts at bit `startBit`
 * of its writer (the byte layout pads to a byte there), and which order it stores: second
 * differences when they are smaller and stay within the packed range (a difference of two
 * in-range integers may not), first ones otherwise. One pass, nothing written, so that a column
 * can price several candidate schemes and write only the smallest. `blocks`, when given, keeps
 * the packed blocks for writeIntStream.
 */
export function planIntStream(ints: Float64Array, length: number, layout: IntLayout, startBit: number, blocks: PackedBlocks | undefined): IntStreamPlan {
  return planScaledIntStream(ints, 1, ints, length, layout, startBit, blocks);
}

/**
 * planIntStream of the integers `source[i] * scale`, which it also stores into `ints` (the same
 * array as `source` or not), in the same pass: the binary scheme's n = v * 2^k.
 */
export function planScaledIntStream(
  source: Float64Array,
  scale: number,
  ints: Float64Array,
  length: number,
  layout: IntLayout,
  startBit: number,
  blocks: PackedBlocks | undefined,
): IntStreamPlan {
  if (length === 0) return { bits: HEADER_BITS + (layout.bytes ? padBits(startBit + HEADER_BITS) : 0), second: false, blocks: undefined };
  // Both orders store ints[0] first, then first differences e_i, or f_i, the differences of
  // [ints[0], e_1, e_2, ...] (so f_1 = e_1 - ints[0], f_i = e_i - e_(i-1)); only those differ.
  let costs: OrderCosts;
  let packedBlocks: PackedBlocks | undefined;
  if (layout.bytes) {
    for (let i = 0; i < length; i++) ints[i] = source[i]! * scale;
    costs = varintCosts(ints, length);
  } else {
    packedBlocks = blocks;
    packedBlocks?.ensure(length);
    costs = packedCosts(source, scale, ints, length, packedBlocks);
  }
  const second = length >= 3 && costs.secondValid && costs.second < costs.first;
  const data = second ? costs.second : costs.first;
  const x0 = ints[0]!;
  if (layout.bytes) return { bits: HEADER_BITS + padBits(startBit + HEADER_BITS) + 8 * (varUintBytes(zigzag(x0)) + data), second, blocks: undefined };
  return { bits: HEADER_BITS + FIELD_BITS + bitLength(zigzag(x0)) + data, second, blocks: packedBlocks };
}

interface OrderCosts {
  /** Cost of the differences after the first element, in the layout's unit (bits or bytes). */
  readonly first: number;
  readonly second: number;
  /** False when a first difference leaves the packed range, so second differences are not an option. */
  readonly secondValid: boolean;
}

/** Zero bits up to the next byte boundary after bit `bit`. */
function padBits(bit: number): number {
  return (8 - (bit & 7)) & 7;
}

/**
 * Packed bits of both orders' differences of the integers `source[i] * scale` (stored into `ints`
 * on the way): per block of 64, a width, a signed minimum and width bits a value. Each block's
 * minimum and width go to `blocks` when given.
 */
function packedCosts(source: Float64Array, scale: number, ints: Float64Array, length: number, blocks: PackedBlocks | undefined): OrderCosts {
  let first = 0;
  let second = 0;
  let secondValid = true;
  // Planning integers already in place (source === ints) stores nothing.
  const store = source !== ints;
  let x = source[0]! * scale;
  if (store) ints[0] = x;
  let previous = x;
  for (let start = 1; start < length; start += PACKED_BLOCK) {
    const end = Math.min(start + PACKED_BLOCK, length);
    let min1 = Infinity;
    let max1 = -Infinity;
    let min2 = Infinity;
    let max2 = -Infinity;
    for (let i = start; i < end; i++) {
      const next = source[i]! * scale;
      if (store) ints[i] = next;
      const e = next - x;
      x = next;
      const f = e - previous;
      previous = e;
      if (e < min1) min1 = e;
      if (e > max1) max1 = e;
      if (f < min2) min2 = f;
      if (f > max2) max2 = f;
    }
    if (min1 < -PACKED_INT_MAGNITUDE_MAX || max1 > PACKED_INT_MAGNITUDE_MAX) secondValid = false;
    const blockLength = end - start;
    const width1 = bitLength(max1 - min1);
    const width2 = bitLength(max2 - min2);
    first += 2 * FIELD_BITS + bitLength(zigzag(min1)) + width1 * blockLength;
    second += 2 * FIELD_BITS + bitLength(zigzag(min2)) + width2 * blockLength;
    if (blocks !== undefined) {
      const b = 2 * ((start - 1) / PACKED_BLOCK);
      blocks.first[b] = min1;
      blocks.first[b + 1] = width1;
      blocks.second[b] = min2;
      blocks.second[b + 1] = width2;
    }
  }
  return { first, second, secondValid };
}

/** Varint bytes of both orders' zigzagged differences. */
function varintCosts(ints: Float64Array, length: number): OrderCosts {
  let first = 0;
  let second = 0;
  let secondValid = true;
  let x = ints[0]!;
  let previous = x;
  for (let i = 1; i < length; i++) {
    const next = ints[i]!;
    const e = next - x;
    x = next;
    const f = e - previous;
    previous = e;
    if (Math.abs(e) > PACKED_INT_MAGNITUDE_MAX) secondValid = false;
    first += varUintBytes(zigzag(e));
    second += varUintBytes(zigzag(f));
  }
  return { first, second, secondValid };
}
