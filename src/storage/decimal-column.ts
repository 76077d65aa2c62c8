// Owns reading the decimal float column of chunk format 1: packed scaled integers divided by 10^d.
import type { BitReader } from './bit-stream.js';
import { readPackedInts } from './int-column.js';

/** POWERS_OF_TEN[d] is 10^d, exact in a double for every d used here (up to 10^22 is exact). */
const POWERS_OF_TEN = Float64Array.from({ length: 16 }, (_, d) => 10 ** d);

/**
 * Reads a format-1 decimal column: packed integers, each divided by 10^digits. Format 2 writes
 * decimals through float-column.ts (with exceptions); this stays so that files written before
 * still read.
 */
export function readDecimalFloats(reader: BitReader, out: Float64Array, length: number, digits: number): void {
  readPackedInts(reader, out, length);
  if (digits === 0) return;
  const power = POWERS_OF_TEN[digits]!;
  for (let i = 0; i < length; i++) out[i] = out[i]! / power;
}
