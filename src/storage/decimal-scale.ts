// Owns the decimal view of a float column: each value's decimal places, the scales worth trying, and the scaled integers with their exceptions.
import { ulpDistance } from './float-bits.js';
import { PACKED_INT_MAGNITUDE_MAX } from './int-column.js';

/** Most decimal places tried; past 15 a double has no exact decimal digits left. */
export const DECIMAL_DIGITS_MAX = 15;
/** Values sampled to decide whether the decimal scheme is worth a full pass. */
const DECIMAL_SAMPLE = 32;
/** Share of values whose decimal places set the scale; the rest become exceptions. */
const DECIMAL_COVERAGE = 0.9;

/** POWERS_OF_TEN[d] is 10^d, exact in a double for every d used here (up to 10^22 is exact). */
export const POWERS_OF_TEN: Readonly<Float64Array> = Float64Array.from({ length: DECIMAL_DIGITS_MAX + 1 }, (_, d) => 10 ** d);

const MAX = PACKED_INT_MAGNITUDE_MAX;
/**
 * TOP_LIMITS[d]: a magnitude above which round(v * 10^d) is surely past the packed range (a hair
 * above MAX / 10^d, so that rounding never makes it skip a d that is within the range).
 */
const TOP_LIMITS: Readonly<Float64Array> = Float64Array.from({ length: DECIMAL_DIGITS_MAX + 1 }, (_, d) => ((MAX + 1) / 10 ** d) * (1 + 2 ** -40));

/**
 * Decimal places of `value`: the least d in 0..15 with round(value * 10^d) / 10^d === value and
 * that integer within the packed range; -1 when none is, or when an integer leaves the range
 * before one fits; -1 for -0 and NaN. `guess` (0..15) is tried first: a neighbour's places, so
 * that a column of like values costs one division a value instead of up to sixteen.
 *
 * Why this finds the least d. Call d "fitting" when the test above holds. If d fits with integer
 * n and |10n| <= 2^50, then d + 1 fits with 10n: value * 10^(d+1) is within 10|n| * 2^-52 < 0.5
 * of 10n, so it rounds to 10n, and 10n / 10^(d+1) is the same correctly rounded quotient as
 * n / 10^d. Conversely, if d fits with n and n is a multiple of 10, d - 1 fits with n / 10 (the
 * same argument). The integers only grow with d, so the places within the range are 0..top, and
 * there the fitting ones are one run up to top: a d that does not fit has none below it, and from
 * a fitting d the least one is found by dropping trailing decimal zeros of its integer.
 */
export function decimalPlaces(value: number, guess: number): number {
  const power = POWERS_OF_TEN[guess]!;
  const scaled = Math.round(value * power);
  if (Math.abs(scaled) <= MAX && scaled / power === value) {
    // Zeros fit anywhere: 0 has 0 places, -0 none (its sign is lost in an integer).
    if (scaled === 0) return 1 / value > 0 ? 0 : -1;
    return leastPlaces(scaled, guess);
  }
  return placesAbove(value, guess);
}

/**
 * decimalPlaces of a value that does not fit at `guess` (or leaves the range there): the least
 * fitting d above guess within the range, or when guess is out of it, the least at or below top.
 */
function placesAbove(value: number, guess: number): number {
  const top = topPlaces(value);
  if (top < 0 || top === guess) return -1;
  const topPower = POWERS_OF_TEN[top]!;
  const topScaled = Math.round(value * topPower);
  if (topScaled / topPower !== value) return -1;
  if (top < guess) return leastPlaces(topScaled, top);
  // guess is within the range and does not fit, so neither does anything below it: the least
  // fitting d is above guess, and usually just above (a neighbour with one digit less).
  for (let d = guess + 1; d < top; d++) {
    const p = POWERS_OF_TEN[d]!;
    if (Math.round(value * p) / p === value) return d;
  }
  return top;
}

/** The largest d in 0..15 with round(value * 10^d) within the packed range, or -1 (value not NaN). */
function topPlaces(value: number): number {
  const magnitude = Math.abs(value);
  let top = DECIMAL_DIGITS_MAX;
  while (top > 0 && magnitude > TOP_LIMITS[top]!) top--;
  for (;;) {
    if (Math.abs(Math.round(value * POWERS_OF_TEN[top]!)) <= MAX) return top;
    if (top === 0) return -1;
    top--;
  }
}

/** The least fitting places, given that `places` fits with integer `scaled`: one less per trailing decimal zero. */
function leastPlaces(scaled: number, places: number): number {
  let d = places;
  if (scaled === (scaled | 0)) {
    // Most integers are small: int32 arithmetic strips the zeros without rounding doubles.
    let small = scaled | 0;
    while (d > 0 && small % 10 === 0) {
      small = (small / 10) | 0;
      d--;
    }
    return d;
  }
  let n = scaled;
  while (d > 0) {
    // Exact for |n| <= 2^50: n * 0.1 is within 0.03 of n / 10, so it rounds to n / 10 when that is an integer.
    const tenth = Math.round(n * 0.1);
    if (tenth * 10 !== n) break;
    n = tenth;
    d--;
  }
  return d;
}

/**
 * Finds the decimal scales worth trying, into `out` (cleared first): none when a sample of the
 * first values shows mostly values with no decimal form (full-precision data, left to XOR and
 * binary); else the scale that covers DECIMAL_COVERAGE of the values and, when larger, the one
 * that covers them all. On the way it scales the column at the largest places of the sample (the
 * usual answer), into `ints` and `exceptions` as scaleDecimals would: returns those places, so
 * that the caller skips scaleDecimals for them, or -1 when `out` is empty. `histogram` (scratch of
 * DECIMAL_DIGITS_MAX + 1 counts) ends up counting the values of each decimalPlaces.
 */
export function scanDecimals(
  values: Float64Array,
  length: number,
  histogram: Int32Array,
  out: number[],
  ints: Float64Array,
  exceptions: DecimalExceptions,
): number {
  out.length = 0;
  histogram.fill(0);
  const sample = length < DECIMAL_SAMPLE ? length : DECIMAL_SAMPLE;
  let guess = DECIMAL_DIGITS_MAX;
  let clean = 0;
  let digits = 0;
  for (let i = 0; i < sample; i++) {
    const d = decimalPlaces(values[i]!, guess);
    if (d >= 0) {
      histogram[d]!++;
      guess = d;
      if (d > digits) digits = d;
      clean++;
    } else if ((clean + sample - 1 - i) * 2 < sample) {
      // The sample can no longer reach half clean values: not decimal data.
      return -1;
    }
  }
  exceptions.clear();
  scaleRange(values, 0, sample, digits, ints, exceptions);
  // The rest in one pass: a value that fits at `digits` (the commonest case) has its integer
  // there and its places from its trailing decimal zeros (none: exactly `digits`, counted in
  // atDigits); any other goes the general ways.
  const power = POWERS_OF_TEN[digits]!;
  let atDigits = 0;
  for (let i = sample; i < length; i++) {
    const v = values[i]!;
    const scaled = Math.round(v * power);
    // (+0 fits with places 0; -0 does not fit at all, and 1 / -0 is below zero.)
    if (Math.abs(scaled) <= MAX && scaled / power === v && (scaled !== 0 || 1 / v > 0)) {
      ints[i] = scaled;
      // Exact for |scaled| <= 2^50 (see leastPlaces).
      const tenth = Math.round(scaled * 0.1);
      if (tenth * 10 !== scaled || digits === 0) atDigits++;
      else histogram[leastPlaces(tenth, digits - 1)]!++;
      continue;
    }
    scaleRange(values, i, i + 1, digits, ints, exceptions);
    // A non-zero integer within the range that did not fit: straight to the search above digits.
    const d = scaled !== 0 && Math.abs(scaled) <= MAX ? placesAbove(v, digits) : decimalPlaces(v, digits);
    if (d >= 0) histogram[d]!++;
  }
  histogram[digits]! += atDigits;
  let covered = 0;
  let most = -1;
  for (let d = 0; d <= DECIMAL_DIGITS_MAX; d++) {
    if (histogram[d]! === 0) continue;
    covered += histogram[d]!;
    most = d;
    if (out.length === 0 && covered >= DECIMAL_COVERAGE * length) out.push(d);
  }
  if (most >= 0 && out[0] !== most) out.push(most);
  return digits;
}

/**
 * The values a decimal column cannot hold as n / 10^d alone, as position and payload pairs:
 * `corrections` (position, signed ulp step from n / 10^d) and `raws` (position, the double).
 */
export class DecimalExceptions {
  readonly corrections: number[] = [];
  readonly raws: number[] = [];

  /** Forgets every exception. */
  clear(): void {
    this.corrections.length = 0;
    this.raws.length = 0;
  }
}

/**
 * Fills `ints` with n = round(v * 10^digits) for each value and `exceptions` with what n / 10^d
 * misses: a binary artefact as a correction of a few ulps, anything else (-0, NaN, out of range)
 * raw, its n repeating the one before so that it costs the integer stream nothing.
 */
export function scaleDecimals(values: Float64Array, length: number, digits: number, ints: Float64Array, exceptions: DecimalExceptions): void {
  exceptions.clear();
  scaleRange(values, 0, length, digits, ints, exceptions);
}

/** scaleDecimals for the values in [start, end), after those before start were done (in order). */
function scaleRange(values: Float64Array, start: number, end: number, digits: number, ints: Float64Array, exceptions: DecimalExceptions): void {
  const power = POWERS_OF_TEN[digits]!;
  let previous = start > 0 ? ints[start - 1]! : 0;
  for (let i = start; i < end; i++) {
    const v = values[i]!;
    let scaled = Math.round(v * power);
    if (Math.abs(scaled) <= MAX) {
      if (scaled === 0) scaled = 0; // -0 from rounding a small negative: the integer stream has no sign for it
      const approx = scaled / power;
      // Equal doubles have equal bits except 0 and -0; approx is never -0 and never NaN here.
      if (approx === v && (scaled !== 0 || 1 / v > 0)) {
        ints[i] = previous = scaled;
        continue;
      }
      const ulps = ulpDistance(v, approx);
      if (ulps === ulps) {
        ints[i] = previous = scaled;
        exceptions.corrections.push(i, ulps);
        continue;
      }
    }
    ints[i] = previous;
    exceptions.raws.push(i, v);
  }
}
