// Owns the bit-level views of doubles the float schemes share: ulp distances, stepping by ulps, binary places.
import { assert } from '../core/assert.js';
import { PACKED_INT_MAGNITUDE_MAX } from './int-column.js';

/** Largest ulp correction a decimal value may carry before it is stored raw instead. */
export const ULP_CORRECTION_MAX = 2 ** 20;

const scratch = new Float64Array(2);
const words = new Uint32Array(scratch.buffer);

/**
 * The signed number of representable doubles from `approx` up to `value` when both are finite,
 * non-zero-signed alike and within ULP_CORRECTION_MAX of each other; otherwise NaN. Adding it to
 * `approx` with stepUlps gives `value` back bit-exactly.
 */
export function ulpDistance(value: number, approx: number): number {
  scratch[0] = value;
  scratch[1] = approx;
  const highValue = words[1]!;
  const highApprox = words[3]!;
  if (highValue >>> 31 !== highApprox >>> 31) return Number.NaN;
  // Exponent all ones: Infinity or NaN, where stepping means nothing.
  if ((highValue & 0x7ff00000) === 0x7ff00000 || (highApprox & 0x7ff00000) === 0x7ff00000) return Number.NaN;
  const distance = (highValue - highApprox) * 4294967296 + (words[0]! - words[2]!);
  if (Math.abs(distance) > ULP_CORRECTION_MAX) return Number.NaN;
  // Below zero the bit pattern grows as the magnitude does; the distance counts in bit patterns.
  return distance;
}

/** `approx` moved by `ulps` bit patterns (a value ulpDistance returned for it). */
export function stepUlps(approx: number, ulps: number): number {
  scratch[0] = approx;
  let low = words[0]! + ulps;
  let high = words[1]!;
  if (low >= 4294967296) {
    low -= 4294967296;
    high += 1;
  } else if (low < 0) {
    low += 4294967296;
    high -= 1;
  }
  words[0] = low;
  words[1] = high;
  return scratch[0]!;
}

/** True when `a` and `b` have the same 64 bits (so -0 differs from 0, and NaN payloads count). */
export function sameBits(a: number, b: number): boolean {
  scratch[0] = a;
  scratch[1] = b;
  return words[0] === words[2] && words[1] === words[3];
}

/**
 * Binary places of `value`: the least k >= 0 with value * 2^k an integer, or -1 for -0, NaN,
 * Infinity and subnormals (which no useful k reaches).
 */
export function binaryPlaces(value: number): number {
  scratch[0] = value;
  const low = words[0]!;
  const high = words[1]!;
  const exponent = (high >>> 20) & 0x7ff;
  if (exponent === 0) return low === 0 && (high & 0x7fffffff) === 0 && high >>> 31 === 0 ? 0 : -1;
  if (exponent === 0x7ff) return -1;
  const mantissaHigh = (high & 0xfffff) | 0x100000;
  const trailing = low !== 0 ? 31 - Math.clz32(low & -low) : 32 + 31 - Math.clz32(mantissaHigh & -mantissaHigh);
  const places = 52 - (exponent - 1023) - trailing;
  return places > 0 ? places : 0;
}

/** Largest k the binary scheme tries: n = v * 2^k must stay within the packed range anyway. */
const BINARY_PLACES_MAX = 63;
/** log2 of PACKED_INT_MAGNITUDE_MAX. */
const PACKED_BITS = 50;
assert(2 ** PACKED_BITS === PACKED_INT_MAGNITUDE_MAX, 'PACKED_BITS is log2 of the packed range');
/** POWERS_OF_TWO[k] is 2^k, exact, for every k the binary scheme may use. */
export const POWERS_OF_TWO: Readonly<Float64Array> = Float64Array.from({ length: BINARY_PLACES_MAX + 1 }, (_, k) => 2 ** k);

/**
 * The binary places every value of a column fits (see binaryPlaces): the least k with every
 * v * 2^k an integer within the packed range; -1 when no k <= 63 does, or when k would be 0
 * (integers are the decimal scheme's with 0 digits; no need to write them twice). Works on the
 * bits: the largest exponent bounds max |v| * 2^k within a factor of two, so only a column right
 * at the bound needs its values themselves.
 */
export function binaryScale(values: Float64Array, halves: Uint32Array, length: number): number {
  let places = 0;
  // Largest unbiased exponent e (2^e <= |v| < 2^(e+1)) of the non-zero values.
  let top = -1075;
  for (let i = 0; i < length; i++) {
    const low = halves[2 * i]!;
    const high = halves[2 * i + 1]!;
    const biased = (high >>> 20) & 0x7ff;
    if (biased === 0) {
      // +0 fits any k; -0 and subnormals none.
      if (low === 0 && high === 0) continue;
      return -1;
    }
    if (biased === 0x7ff) return -1;
    const exponent = biased - 1023;
    const mantissaHigh = (high & 0xfffff) | 0x100000;
    const trailing = low !== 0 ? 31 - Math.clz32(low & -low) : 32 + 31 - Math.clz32(mantissaHigh & -mantissaHigh);
    const p = 52 - exponent - trailing;
    if (p > places) {
      if (p > BINARY_PLACES_MAX) return -1;
      places = p;
    }
    if (exponent > top) top = exponent;
    // max |v| * 2^places >= 2^(top + places): past the range for good (decimal data stops here at once).
    if (top + places > PACKED_BITS) return -1;
  }
  if (places === 0) return -1;
  // Below the bound max |v| * 2^places < 2^(top + places + 1) fits; at it, only 2^50 itself does.
  if (top + places === PACKED_BITS && maxMagnitude(values, length) * POWERS_OF_TWO[places]! > PACKED_INT_MAGNITUDE_MAX) return -1;
  return places;
}

/** Largest |v| of the column. */
function maxMagnitude(values: Float64Array, length: number): number {
  let magnitude = 0;
  for (let i = 0; i < length; i++) magnitude = Math.max(magnitude, Math.abs(values[i]!));
  return magnitude;
}
