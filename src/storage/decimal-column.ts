// Owns the decimal float column: values with few decimal places stored as packed scaled integers.
import type { BitReader } from './bit-stream.js';
import { PACKED_INT_MAGNITUDE_MAX, readPackedInts } from './int-column.js';

/** Most decimal places the decimal column tries; past 15 a double has no exact decimal digits left. */
export const DECIMAL_DIGITS_MAX = 15;

/** POWERS_OF_TEN[d] is 10^d, exact in a double for every d used here (up to 10^22 is exact). */
const POWERS_OF_TEN = Float64Array.from({ length: DECIMAL_DIGITS_MAX + 1 }, (_, d) => 10 ** d);

/**
 * Finds the fewest decimal places d (0..DECIMAL_DIGITS_MAX) at which every value v survives
 * `Math.round(v * 10^d) / 10^d === v` with |v * 10^d| <= PACKED_INT_MAGNITUDE_MAX, and stores the
 * scaled integers in `scaledOut`. Returns d, or -1 when no d works (NaN, -0, too many digits or
 * too large). The decoder computes `n / 10^d`, the very expression checked here, so a value that
 * passes comes back bit-exact; multiplying by 10^-d instead would not be exact.
 */
export function scaleToDecimal(values: Float64Array, length: number, scaledOut: Float64Array): number {
  let digits = 0;
  let power = 1;
  for (let i = 0; i < length; i++) {
    const v = values[i]!;
    const scaled = Math.round(v * power);
    if (scaled / power === v && Math.abs(scaled) <= PACKED_INT_MAGNITUDE_MAX) {
      // -0 passes the check (-0 === 0) but an integer cannot carry its sign.
      if (scaled === 0 && 1 / v < 0) return -1;
      scaledOut[i] = scaled;
      continue;
    }
    // More digits cannot help NaN (never equal to itself) or a value already too large.
    if (v !== v || Math.abs(scaled) > PACKED_INT_MAGNITUDE_MAX) return -1;
    if (digits === DECIMAL_DIGITS_MAX) return -1;
    digits++;
    power = POWERS_OF_TEN[digits]!;
    // Values before i were scaled with fewer digits; start over (at most 15 times, usually 0-2).
    i = -1;
  }
  return digits;
}

/** Reads a decimal column: packed integers, each divided by 10^digits exactly as the encoder checked. */
export function readDecimalFloats(reader: BitReader, out: Float64Array, length: number, digits: number): void {
  readPackedInts(reader, out, length);
  if (digits === 0) return;
  const power = POWERS_OF_TEN[digits]!;
  for (let i = 0; i < length; i++) out[i] = out[i]! / power;
}
