// Owns the packed integer column: first value, then deltas bit-packed per block with a frame of reference.
import { assert } from '../core/assert.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { bitLength } from './bit-stream.js';
import { readSignedBits, writeSignedBits } from './varint.js';

/**
 * Largest magnitude an element may have. Deltas then stay within 2^51 and the per-block offsets
 * (delta minus the block's smallest delta) within 2^52, so every step is exact in a double and
 * fits the 53-bit width field. (Format 1 allowed 2^51, where alternating extremes made an offset
 * of 2^53, 54 bits wide: the writer refused it. Reading is unchanged.)
 */
export const PACKED_INT_MAGNITUDE_MAX = 2 ** 50;

/**
 * Deltas per block. Each block pays a 6-bit width and its reference (about 12 to 20 bits), so 64
 * keeps that near 0.25 bits a value while one outlier only widens its own 64 neighbours.
 */
const BLOCK_LENGTH = 64;

/** True when every element is an integer of magnitude at most PACKED_INT_MAGNITUDE_MAX. */
export function fitsPackedInts(ints: Float64Array, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const x = ints[i]!;
    if (!(Number.isInteger(x) && Math.abs(x) <= PACKED_INT_MAGNITUDE_MAX)) return false;
  }
  return true;
}

/**
 * Writes `length` integers (see fitsPackedInts): the first with writeSignedBits, then blocks of
 * deltas, each block as a 6-bit width W, its smallest delta, and every delta minus that smallest
 * one in W bits. Subtracting the smallest delta keeps trends (counters) as narrow as noise.
 * `blocks`, when given, holds each block's smallest delta and width (a caller that priced the
 * column already has them, int-stream.ts), so the deltas are not scanned twice.
 */
export function writePackedInts(writer: BitWriter, ints: Float64Array, length: number, blocks?: Float64Array): void {
  if (length === 0) return;
  writeSignedBits(writer, ints[0]!);
  for (let start = 1, b = 0; start < length; start += BLOCK_LENGTH, b += 2) {
    const end = Math.min(start + BLOCK_LENGTH, length);
    let min = Infinity;
    let width: number;
    if (blocks === undefined) {
      let max = -Infinity;
      for (let i = start; i < end; i++) {
        const delta = ints[i]! - ints[i - 1]!;
        if (delta < min) min = delta;
        if (delta > max) max = delta;
      }
      width = bitLength(max - min);
    } else {
      min = blocks[b]!;
      width = blocks[b + 1]!;
    }
    assert(width <= 53, 'packed integers out of range');
    writer.writeBits(width, 6);
    writeSignedBits(writer, min);
    // Width 0 (constant steps) writes nothing at all.
    writer.writeDeltas(ints, start, end, min, width);
  }
}

/** Reads `length` integers written by writePackedInts into `out`. */
export function readPackedInts(reader: BitReader, out: Float64Array, length: number): void {
  if (length === 0) return;
  let x = readSignedBits(reader);
  out[0] = x;
  for (let start = 1; start < length; start += BLOCK_LENGTH) {
    const end = Math.min(start + BLOCK_LENGTH, length);
    const width = reader.readBits(6);
    const min = readSignedBits(reader);
    if (width === 0) {
      for (let i = start; i < end; i++) {
        x += min;
        out[i] = x;
      }
    } else if (width <= 32) {
      for (let i = start; i < end; i++) {
        x += min + reader.readBits(width);
        out[i] = x;
      }
    } else {
      for (let i = start; i < end; i++) {
        x += min + reader.readWide(width);
        out[i] = x;
      }
    }
  }
}
