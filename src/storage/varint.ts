// Owns zigzag mapping and the variable-length integer forms (LEB128 bytes and length-prefixed bits).
import type { BitReader, BitWriter } from './bit-stream.js';
import { bitLength } from './bit-stream.js';

/**
 * Largest magnitude the signed helpers accept: zigzag doubles it, and 2^53 is the last integer
 * up to which every integer is exact in a double.
 */
export const SIGNED_MAGNITUDE_MAX = 2 ** 52;

/** Maps a signed integer to an unsigned one, small magnitudes to small numbers; exact for |v| <= 2^52. */
export function zigzag(value: number): number {
  // Double arithmetic instead of 32-bit ops, so that magnitudes above 2^31 stay exact.
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

/** Inverse of zigzag. */
export function unzigzag(mapped: number): number {
  return mapped % 2 === 0 ? mapped / 2 : -(mapped + 1) / 2;
}

/** Writes a non-negative integer (up to 2^53) as LEB128: 7 bits a byte, high bit set on all but the last. */
export function writeVarUint(writer: BitWriter, value: number): void {
  let rest = value;
  while (rest >= 128) {
    writer.writeBits((rest % 128) | 128, 8);
    rest = Math.floor(rest / 128);
  }
  writer.writeBits(rest, 8);
}

/** Bytes writeVarUint takes for `value`: at least one, seven bits a byte. */
export function varUintBytes(value: number): number {
  return value < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : Math.ceil(bitLength(value) / 7);
}

/** Reads an integer written by writeVarUint. */
export function readVarUint(reader: BitReader): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = reader.readBits(8);
    value += (byte & 127) * scale;
    if (byte < 128) return value;
    scale *= 128;
    // Eight bytes already carry 56 bits; more means the input is corrupt, not a longer number.
    if (scale > 2 ** 56) return Number.NaN;
  }
}

/**
 * Writes a signed integer (|v| <= 2^52) as a 6-bit bit length then its zigzag bits: cheap for the
 * few per-block references and first values of the packed columns, at most 60 bits.
 */
export function writeSignedBits(writer: BitWriter, value: number): void {
  const mapped = zigzag(value);
  const width = bitLength(mapped);
  writer.writeBits(width, 6);
  writer.writeWide(mapped, width);
}

/** Reads an integer written by writeSignedBits. */
export function readSignedBits(reader: BitReader): number {
  return unzigzag(reader.readWide(reader.readBits(6)));
}
