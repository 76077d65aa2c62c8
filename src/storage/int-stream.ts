// Owns the integer stream of the integer-valued float schemes: order 1 or 2 differences, bit-packed or as byte varints.
import type { BitReader, BitWriter } from './bit-stream.js';
import { bitLength } from './bit-stream.js';
import { PACKED_INT_MAGNITUDE_MAX, readPackedInts, writePackedInts } from './int-column.js';
import { readVarUint, unzigzag, writeVarUint, zigzag } from './varint.js';

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

/**
 * Writes `length` integers of `ints` (each |x| <= PACKED_INT_MAGNITUDE_MAX): a 2-bit header, then
 * the stream. `scratch` (at least `length` long) is overwritten.
 */
export function writeIntStream(writer: BitWriter, ints: Float64Array, length: number, layout: IntLayout, scratch: Float64Array): void {
  const second = secondOrderPays(ints, length, layout.bytes);
  let source = ints;
  if (second) {
    scratch[0] = ints[0]!;
    for (let i = 1; i < length; i++) scratch[i] = ints[i]! - ints[i - 1]!;
    source = scratch;
  }
  writer.writeBits((second ? 1 : 0) | (layout.bytes ? 2 : 0), HEADER_BITS);
  if (!layout.bytes) {
    writePackedInts(writer, source, length);
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

/** Elements per block of the estimate; the packed layout's blocks (int-column.ts) are as long. */
const ESTIMATE_BLOCK = 64;

/**
 * True when second differences are cheaper than first ones, estimated as the layout would store
 * them (packed: each block's width of its differences minus their minimum; bytes: varint bytes),
 * and stay within the packed range (a difference of two in-range integers may not).
 */
function secondOrderPays(ints: Float64Array, length: number, bytes: boolean): boolean {
  if (length < 3) return false;
  // What each order stores after the first element: first differences e_i, or f_i, the
  // differences of [ints[0], e_1, e_2, ...] (so f_1 = e_1 - ints[0], f_i = e_i - e_(i-1)).
  let first = 0;
  let second = 0;
  let min1 = Infinity;
  let max1 = -Infinity;
  let min2 = Infinity;
  let max2 = -Infinity;
  let previous = ints[0]!;
  for (let i = 1; i < length; i++) {
    const e = ints[i]! - ints[i - 1]!;
    const f = e - previous;
    previous = e;
    if (Math.abs(e) > PACKED_INT_MAGNITUDE_MAX) return false;
    if (bytes) {
      first += varintBytes(zigzag(e));
      second += varintBytes(zigzag(f));
      continue;
    }
    if (e < min1) min1 = e;
    if (e > max1) max1 = e;
    if (f < min2) min2 = f;
    if (f > max2) max2 = f;
    const blockLength = ((i - 1) % ESTIMATE_BLOCK) + 1;
    if (blockLength === ESTIMATE_BLOCK || i === length - 1) {
      // Each block: its width times its length, plus its reference's zigzag bits.
      first += bitLength(max1 - min1) * blockLength + bitLength(zigzag(min1));
      second += bitLength(max2 - min2) * blockLength + bitLength(zigzag(min2));
      min1 = min2 = Infinity;
      max1 = max2 = -Infinity;
    }
  }
  return second < first;
}

function varintBytes(x: number): number {
  return x < 128 ? 1 : x < 16384 ? 2 : x < 2097152 ? 3 : Math.ceil(bitLength(x) / 7);
}
