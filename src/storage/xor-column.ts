// Owns the Gorilla XOR float column: each double XORed with the previous, only the changed bits stored.
import type { BitReader, BitWriter } from './bit-stream.js';

// Doubles are handled as two uint32 halves through a Uint32Array view of the column itself:
// no BigInt, no per-value conversion, and every bit (NaN payloads, -0) survives. On the
// little-endian hosts bit-stream.ts insists on, word 2i is the low half of element i.
//
// Control codes per value after the first (prefixes LSB-first, as everywhere in the stream):
//   0                       same value as before
//   1 0 + bits              the XOR fits the previous window of meaningful bits
//   1 1 + 5 + 6 + bits      new window: leading zeros (capped at 31), length - 1, the bits

/** Leading-zero counts above this do not fit the 5-bit field; such XORs store a few zeros. */
const LEADING_ZEROS_MAX = 31;

/** Writes `length` doubles of `values` as Gorilla XOR. */
export function writeXorFloats(writer: BitWriter, values: Float64Array, length: number): void {
  if (length === 0) return;
  const words = new Uint32Array(values.buffer, values.byteOffset, length * 2);
  let previousLow = words[0]!;
  let previousHigh = words[1]!;
  writer.writeBits(previousLow, 32);
  writer.writeBits(previousHigh, 32);
  // Impossible window so that the first non-zero XOR opens one.
  let windowLeading = 65;
  let windowTrailing = 0;
  let windowLength = 0;
  for (let i = 1; i < length; i++) {
    const low = words[2 * i]!;
    const high = words[2 * i + 1]!;
    const xorLow = low ^ previousLow;
    const xorHigh = high ^ previousHigh;
    previousLow = low;
    previousHigh = high;
    if ((xorLow | xorHigh) === 0) {
      writer.writeBits(0, 1);
      continue;
    }
    let leading = xorHigh !== 0 ? Math.clz32(xorHigh) : 32 + Math.clz32(xorLow);
    if (leading > LEADING_ZEROS_MAX) leading = LEADING_ZEROS_MAX;
    const trailing = xorLow !== 0 ? 31 - Math.clz32(xorLow & -xorLow) : 63 - Math.clz32(xorHigh & -xorHigh);
    let shift: number;
    let count: number;
    if (leading >= windowLeading && trailing >= windowTrailing) {
      writer.writeBits(0b01, 2);
      shift = windowTrailing;
      count = windowLength;
    } else {
      windowLeading = leading;
      windowTrailing = trailing;
      windowLength = 64 - leading - trailing;
      writer.writeBits(0b11 | (leading << 2) | ((windowLength - 1) << 7), 13);
      shift = trailing;
      count = windowLength;
    }
    // The meaningful bits are the XOR shifted right by `shift`, written low half first.
    if (shift >= 32) {
      writer.writeBits(xorHigh >>> (shift - 32), count);
    } else if (shift === 0) {
      writeUpTo64(writer, xorLow >>> 0, xorHigh >>> 0, count);
    } else {
      writeUpTo64(writer, ((xorLow >>> shift) | (xorHigh << (32 - shift))) >>> 0, xorHigh >>> shift, count);
    }
  }
}

/**
 * Bits writeXorFloats would use, without writing. Stops counting once the total passes
 * `limitBits`, because the caller only needs to know that another scheme is smaller.
 */
export function xorFloatsBitCost(values: Float64Array, length: number, limitBits = Infinity): number {
  if (length === 0) return 0;
  const words = new Uint32Array(values.buffer, values.byteOffset, length * 2);
  let previousLow = words[0]!;
  let previousHigh = words[1]!;
  let bits = 64;
  let windowLeading = 65;
  let windowTrailing = 0;
  let windowLength = 0;
  for (let i = 1; i < length && bits <= limitBits; i++) {
    const low = words[2 * i]!;
    const high = words[2 * i + 1]!;
    const xorLow = low ^ previousLow;
    const xorHigh = high ^ previousHigh;
    previousLow = low;
    previousHigh = high;
    if ((xorLow | xorHigh) === 0) {
      bits += 1;
      continue;
    }
    let leading = xorHigh !== 0 ? Math.clz32(xorHigh) : 32 + Math.clz32(xorLow);
    if (leading > LEADING_ZEROS_MAX) leading = LEADING_ZEROS_MAX;
    const trailing = xorLow !== 0 ? 31 - Math.clz32(xorLow & -xorLow) : 63 - Math.clz32(xorHigh & -xorHigh);
    if (leading >= windowLeading && trailing >= windowTrailing) {
      bits += 2 + windowLength;
    } else {
      windowLeading = leading;
      windowTrailing = trailing;
      windowLength = 64 - leading - trailing;
      bits += 13 + windowLength;
    }
  }
  return bits;
}

/** Reads `length` doubles written by writeXorFloats into `out`. */
export function readXorFloats(reader: BitReader, out: Float64Array, length: number): void {
  if (length === 0) return;
  const words = new Uint32Array(out.buffer, out.byteOffset, length * 2);
  let low = reader.readBits(32);
  let high = reader.readBits(32);
  words[0] = low;
  words[1] = high;
  let windowTrailing = 0;
  let windowLength = 0;
  for (let i = 1; i < length; i++) {
    if (reader.readBit() !== 0) {
      if (reader.readBit() !== 0) {
        const header = reader.readBits(11);
        windowLength = (header >>> 5) + 1;
        windowTrailing = 64 - (header & 31) - windowLength;
      }
      let bitsLow: number;
      let bitsHigh = 0;
      if (windowLength <= 32) {
        bitsLow = reader.readBits(windowLength);
      } else {
        bitsLow = reader.readBits(32);
        bitsHigh = reader.readBits(windowLength - 32);
      }
      // Shift the meaningful bits back into place and undo the XOR.
      const shift = windowTrailing;
      if (shift >= 32) {
        high ^= bitsLow << (shift - 32);
      } else if (shift === 0) {
        low ^= bitsLow;
        high ^= bitsHigh;
      } else {
        low ^= bitsLow << shift;
        high ^= (bitsHigh << shift) | (bitsLow >>> (32 - shift));
      }
    }
    words[2 * i] = low;
    words[2 * i + 1] = high;
  }
}

function writeUpTo64(writer: BitWriter, low: number, high: number, count: number): void {
  if (count <= 32) {
    writer.writeBits(low, count);
  } else {
    writer.writeBits(low, 32);
    writer.writeBits(high, count - 32);
  }
}
