// Owns reading one JSON number from a byte buffer with exactly JSON.parse's result, fast for the shapes ingest carries.
import { Buffer } from 'node:buffer';

/**
 * Where parseJsonNumber puts the number it read. A class, not an object literal: a literal's map is
 * shared with every other `{ value }` literal in the process, and once one of them holds a
 * non-number, V8 stores the field boxed, which allocates per number.
 */
export class NumberSlot {
  value = 0;
  /**
   * The powers-of-five table, built on the first number that needs Eisel-Lemire and kept for the
   * slot's life: a decoder's slot builds it once (about 1.5 ms), a process that never reads a long
   * number never pays for it, and src/wire keeps no module-level state. Optional so a bare
   * `{ value }` still serves as a slot (it then builds the table for each such number).
   */
  five?: FivePowers;
}

/** The Eisel-Lemire table (see buildFivePowers), owned by the slot that first needed it. */
export interface FivePowers {
  /** Four 32-bit words per power, most significant first. */
  readonly words: Uint32Array;
  /** The binary exponent that goes with each power. */
  readonly exponents: Int16Array;
}

const CH_PLUS = 0x2b;
const CH_MINUS = 0x2d;
const CH_DOT = 0x2e;
const CH_ZERO = 0x30;
/** 'e'; OR-ing 0x20 into 'E' gives it too. */
const CH_LOWER_E = 0x65;
const ASCII_LOWER_BIT = 0x20;

/** Significant digits one double accumulates exactly (10^15 < 2^53). */
const HEAD_DIGITS_MAX = 15;
/** Digits past the head that still fit Eisel-Lemire's 64-bit mantissa (10^19 < 2^64); more nonzero ones go to Number(). */
const TAIL_DIGITS_MAX = 4;
/** Largest power of ten that is exactly a double (5^22 < 2^53), so Clinger's fast path applies up to it. */
const EXACT_POWER_OF_TEN_MAX = 22;
/** A 64-bit mantissa below 2^53 has a high word below this, and is then exactly a double. */
const EXACT_HIGH_WORD_LIMIT = 2 ** 21;
/** Exponent digits stop accumulating here; such numbers (far outside the double range) go to Number(). */
const EXPONENT_CLAMP = 100_000_000;
/** Below 10^-342 even a 19-digit mantissa is under half the smallest subnormal, so the result is zero. */
const POWER_MIN = -342;
/** Above 10^308 any nonzero mantissa overflows to infinity. */
const POWER_MAX = 308;
/** Binary exponents of a normal double m·2^e with m in [2^52, 2^53]. */
const BINARY_EXPONENT_MIN = -1074;
const BINARY_EXPONENT_MAX = 971;
const TWO_32 = 2 ** 32;
const HALF_TWO_32 = 2 ** 31;
/** 32-bit words per 128-bit table entry. */
const ENTRY_WORDS = 4;

/** 10^0 ... 10^22, each exactly a double, built by exact multiplication (** need not be exact). */
const POWERS_OF_TEN = ((): Float64Array => {
  const table = new Float64Array(EXACT_POWER_OF_TEN_MAX + 1);
  table[0] = 1;
  for (let k = 1; k <= EXACT_POWER_OF_TEN_MAX; k++) table[k] = table[k - 1]! * 10;
  return table;
})();

/** 2^e for e in [BINARY_EXPONENT_MIN, BINARY_EXPONENT_MAX], built by exact doubling and halving. */
const POWERS_OF_TWO = ((): Float64Array => {
  const table = new Float64Array(BINARY_EXPONENT_MAX - BINARY_EXPONENT_MIN + 1);
  const zero = -BINARY_EXPONENT_MIN;
  table[zero] = 1;
  for (let e = 1; e <= BINARY_EXPONENT_MAX; e++) table[zero + e] = table[zero + e - 1]! * 2;
  for (let e = -1; e >= BINARY_EXPONENT_MIN; e--) table[zero + e] = table[zero + e + 1]! / 2;
  return table;
})();

/**
 * For each q in [POWER_MIN, POWER_MAX]: T = floor(5^q·2^k) with k chosen so that 2^127 <= T < 2^128, as four 32-bit
 * words (most significant first), and 129 + q - k, the binary exponent that goes with a product by T (see eiselLemire).
 * T is exact for 0 <= q <= 55 and a truncation otherwise, so the true 5^q·2^k lies in [T, T + 1).
 */
function buildFivePowers(): FivePowers {
  const count = POWER_MAX - POWER_MIN + 1;
  const words = new Uint32Array(count * ENTRY_WORDS);
  const exponents = new Int16Array(count);
  const fives = [1n];
  for (let p = 1; p <= Math.max(-POWER_MIN, POWER_MAX); p++) fives.push(fives[p - 1]! * 5n);
  for (let q = POWER_MIN; q <= POWER_MAX; q++) {
    const five = fives[Math.abs(q)]!;
    const bits = five.toString(2).length;
    // 5^q has `bits` bits for q >= 0; for q < 0, 1/5^-q lies in (2^-bits, 2^(1-bits)).
    const k = q >= 0 ? 128 - bits : 127 + bits;
    const t = q < 0 ? (1n << BigInt(k)) / five : k >= 0 ? five << BigInt(k) : five >> BigInt(-k);
    const at = (q - POWER_MIN) * ENTRY_WORDS;
    for (let word = 0; word < ENTRY_WORDS; word++) {
      words[at + word] = Number((t >> BigInt(96 - 32 * word)) & 0xffffffffn);
    }
    exponents[q - POWER_MIN] = 129 + q - k;
  }
  return { words, exponents };
}

/** The slot's table, built on first use. */
function fivePowersOf(slot: NumberSlot): FivePowers {
  return (slot.five ??= buildFivePowers());
}

/** The byte at i, or 0 past the end (0 is neither a digit nor any character the grammar looks for). */
function byteAt(buf: Uint8Array, i: number, length: number): number {
  return i < length ? (buf[i] as number) : 0;
}

/** Whether buf[i] is an ASCII digit (false past the end). */
function isDigitAt(buf: Uint8Array, i: number, length: number): boolean {
  return i < length && ((buf[i] as number) - CH_ZERO) >>> 0 <= 9;
}

/** The index of the first byte at or after i that is not a digit. */
function digitsEnd(buf: Uint8Array, i: number, length: number): number {
  while (isDigitAt(buf, i, length)) i++;
  return i;
}

/**
 * Parses the JSON number (RFC 8259 grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) that starts at buf[start].
 * Returns the index just past it and sets slot.value, or returns -1 when the bytes at start are not a JSON number
 * (nothing is read past the end of buf: buf[i] past the end is undefined). It does not look at what follows the number
 * (the caller checks for a delimiter), so "01" parses as 0 and returns start+1.
 */
export function parseJsonNumber(buf: Uint8Array, start: number, slot: NumberSlot): number {
  const length = buf.length;
  let i = start;
  const negative = byteAt(buf, i, length) === CH_MINUS;
  if (negative) i++;
  // head gathers the first significant digits, at most HEAD_DIGITS_MAX; restStart marks the first digit past them.
  // The digit loops check one bound and one byte per digit: this is the hot part of the whole parse.
  let head = 0;
  let capacity = HEAD_DIGITS_MAX;
  let restStart = -1;
  const first = byteAt(buf, i, length) - CH_ZERO;
  if (first === 0) i++;
  else if (first > 0 && first <= 9) {
    const limit = Math.min(length, i + HEAD_DIGITS_MAX);
    const runStart = i;
    while (i < limit) {
      const d = (buf[i] as number) - CH_ZERO;
      if (d >>> 0 > 9) break;
      head = head * 10 + d;
      i++;
    }
    capacity -= i - runStart;
    if (isDigitAt(buf, i, length)) {
      restStart = i;
      i = digitsEnd(buf, i + 1, length);
    }
  } else return -1;
  let fractionLength = 0;
  if (byteAt(buf, i, length) === CH_DOT) {
    const fractionStart = ++i;
    if (!isDigitAt(buf, i, length)) return -1;
    if (restStart < 0) {
      // After "0." leading zeros only move the exponent.
      if (head === 0) while (byteAt(buf, i, length) === CH_ZERO) i++;
      const limit = Math.min(length, i + capacity);
      while (i < limit) {
        const d = (buf[i] as number) - CH_ZERO;
        if (d >>> 0 > 9) break;
        head = head * 10 + d;
        i++;
      }
      if (isDigitAt(buf, i, length)) restStart = i;
    }
    i = digitsEnd(buf, i, length);
    fractionLength = i - fractionStart;
  }
  const digitsStop = i;
  let exponent = 0;
  if ((byteAt(buf, i, length) | ASCII_LOWER_BIT) === CH_LOWER_E) {
    const sign = byteAt(buf, ++i, length);
    if (sign === CH_MINUS || sign === CH_PLUS) i++;
    const exponentStart = i;
    for (; isDigitAt(buf, i, length); i++) {
      if (exponent < EXPONENT_CLAMP) exponent = exponent * 10 + (buf[i] as number) - CH_ZERO;
    }
    if (i === exponentStart) return -1;
    // Such an exponent is far outside the double range unless as many digits offset it; Number() settles it.
    if (exponent >= EXPONENT_CLAMP) return readByNumber(buf, start, i, slot);
    if (sign === CH_MINUS) exponent = -exponent;
  }
  const exp10 = exponent - fractionLength;
  // Clinger: a mantissa below 2^53 and a power of ten up to 10^22 are exact, so one IEEE operation rounds correctly.
  if (restStart < 0 && exp10 >= -EXACT_POWER_OF_TEN_MAX && exp10 <= EXACT_POWER_OF_TEN_MAX) {
    const magnitude = exp10 < 0 ? head / POWERS_OF_TEN[-exp10]! : head * POWERS_OF_TEN[exp10]!;
    slot.value = negative ? -magnitude : magnitude;
    return i;
  }
  // head (up to 10^15) travels as two int32 words: a double passed to a call that is not inlined is boxed.
  const headHigh = Math.floor(head / TWO_32);
  if (!settleRest(buf, headHigh, (head - headHigh * TWO_32) | 0, restStart, digitsStop, exp10, negative, slot)) return readByNumber(buf, start, i, slot);
  return i;
}

/** Sets slot.value to Number() of the bytes [start, end), which always rounds correctly, and returns end. */
function readByNumber(buf: Uint8Array, start: number, end: number, slot: NumberSlot): number {
  slot.value = Number(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1'));
  return end;
}

/**
 * Sets slot.value to the number whose first 15 significant digits are head (headHigh·2^32 + headLow as uint32) and whose other digits (if restStart >= 0)
 * are the digits in [restStart, digitsStop), a dot perhaps among them, all times 10^exp10, negated when negative;
 * false, leaving slot alone, when the fast paths cannot decide it exactly.
 */
function settleRest(
  buf: Uint8Array,
  headHigh: number,
  headLow: number,
  restStart: number,
  digitsStop: number,
  exp10: number,
  negative: boolean,
  slot: NumberSlot,
): boolean {
  let high = headHigh;
  let low = headLow >>> 0;
  if (restStart >= 0) {
    // Up to four more digits join the mantissa; the rest only scale it, and must be zeros for it to stay exact.
    let tail = 0;
    let taken = 0;
    for (let at = restStart; at < digitsStop; at++) {
      const d = (buf[at] as number) - CH_ZERO;
      if (d < 0) continue; // the dot
      if (taken < TAIL_DIGITS_MAX) {
        tail = tail * 10 + d;
        taken++;
      } else if (d === 0) exp10++;
      else return false;
    }
    // Exact in doubles: low·10^4 + tail < 2^47 and high·10^4 + carry < 2^32.
    const scale = POWERS_OF_TEN[taken]!;
    const scaledLow = low * scale + tail;
    const carry = Math.floor(scaledLow / TWO_32);
    low = scaledLow - carry * TWO_32;
    high = high * scale + carry;
    if (high < EXACT_HIGH_WORD_LIMIT && exp10 >= -EXACT_POWER_OF_TEN_MAX && exp10 <= EXACT_POWER_OF_TEN_MAX) {
      const mantissa = high * TWO_32 + low;
      const magnitude = exp10 < 0 ? mantissa / POWERS_OF_TEN[-exp10]! : mantissa * POWERS_OF_TEN[exp10]!;
      slot.value = negative ? -magnitude : magnitude;
      return true;
    }
  }
  if (exp10 >= POWER_MIN && exp10 <= POWER_MAX && (high !== 0 || low !== 0)) {
    // As int32 the words travel as small integers: a double passed to a call that is not inlined is boxed.
    return eiselLemire(high | 0, low | 0, exp10, negative, slot);
  }
  const magnitude = exp10 > POWER_MAX && (high !== 0 || low !== 0) ? Infinity : 0;
  slot.value = negative ? -magnitude : magnitude;
  return true;
}

/** The high 32 bits of the 64-bit product of two unsigned 32-bit integers, from 16-bit halves. */
function mulHigh32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  // mid and mid2 stay below 2^32, so the wrapping arithmetic of Math.imul and >>> loses nothing.
  const mid = Math.imul(a1, b0) + (Math.imul(a0, b0) >>> 16);
  const mid2 = (mid & 0xffff) + Math.imul(a0, b1);
  return (Math.imul(a1, b1) + (mid >>> 16) + (mid2 >>> 16)) >>> 0;
}

/**
 * Sets slot.value to w·10^q rounded to the nearest double (negated when negative), for w = mantissaHigh·2^32 +
 * mantissaLow (each word given as int32) in [1, 2^64) and q in [POWER_MIN, POWER_MAX]; false, leaving slot alone,
 * when it cannot be decided from the truncated table or the result is not a normal double.
 *
 * With W = w·2^lz normalised to [2^63, 2^64) and R = 5^q·2^k the exact table value, X = W·R lies in [2^190, 2^192) and
 * w·10^q = X·2^(q-lz-k). The product P1 = W·(high 64 bits of T) satisfies X/2^64 in [P1, P1 + W): the top 64 bits A
 * of P1 (then shifted to 54 bits: 53 of mantissa and a rounding bit) are exact unless the low word B plus W carries
 * into A, and that matters only when the bits of A below the rounding bit are all ones; then the full 192-bit W·T
 * narrows the error to [0, W) in its lowest word (see refined). A product whose dropped bits are all zero with the
 * rounding bit set may be an exact tie (round to even) or just above; we give up on it (see rounded).
 */
function eiselLemire(
  mantissaHigh: number,
  mantissaLow: number,
  q: number,
  negative: boolean,
  slot: NumberSlot,
): boolean {
  // Fresh variables rather than reassigned parameters keep V8 from boxing the normalised words.
  const lz = mantissaHigh === 0 ? 32 + Math.clz32(mantissaLow) : Math.clz32(mantissaHigh);
  let wHigh: number;
  let wLow: number;
  if (lz >= 32) {
    wHigh = (mantissaLow << (lz - 32)) >>> 0;
    wLow = 0;
  } else if (lz !== 0) {
    wHigh = ((mantissaHigh << lz) | (mantissaLow >>> (32 - lz))) >>> 0;
    wLow = (mantissaLow << lz) >>> 0;
  } else {
    wHigh = mantissaHigh >>> 0;
    wLow = mantissaLow >>> 0;
  }
  const at = (q - POWER_MIN) * ENTRY_WORDS;
  const five = fivePowersOf(slot);
  const t3 = five.words[at]!;
  const t2 = five.words[at + 1]!;
  // P1 = W·(t3:t2) as words a1 a0 b1 b0, column by column; a wrapped 32-bit sum is below an addend exactly when it
  // carried. (Written out rather than through helpers: each inlined call to a module function costs a guard.)
  const b0 = Math.imul(wLow, t2) >>> 0;
  const lh = Math.imul(wLow, t3) >>> 0;
  const hl = Math.imul(wHigh, t2) >>> 0;
  const s1 = (mulHigh32(wLow, t2) + lh) >>> 0;
  const b1 = (s1 + hl) >>> 0;
  const c1 = (s1 < lh ? 1 : 0) + (b1 < hl ? 1 : 0);
  const hlHigh = mulHigh32(wHigh, t2);
  const hh = Math.imul(wHigh, t3) >>> 0;
  const s2 = (mulHigh32(wLow, t3) + hlHigh) >>> 0;
  const s3 = (s2 + hh) >>> 0;
  const a0 = (s3 + c1) >>> 0;
  const c2 = (s2 < hlHigh ? 1 : 0) + (s3 < hh ? 1 : 0) + (a0 < c1 ? 1 : 0);
  const a1 = (mulHigh32(wHigh, t3) + c2) >>> 0;
  const below = (1 << (9 + (a1 >>> 31))) - 1;
  // Words travel as int32 and the result through slot: doubles crossing a call that is not inlined are boxed.
  return (a0 & below) === below && carriesOut(b1, b0, wHigh, wLow)
    ? refined(wHigh | 0, wLow | 0, at, a1 | 0, a0 | 0, b1 | 0, b0 | 0, lz, q, negative, slot)
    : rounded(a1 | 0, a0 | 0, (b1 | b0) === 0, lz, q, negative, slot);
}

/** Whether the 64-bit sum x1:x0 + y1:y0 reaches 2^64. */
function carriesOut(x1: number, x0: number, y1: number, y0: number): boolean {
  return x1 + y1 + (x0 + y0 >= TWO_32 ? 1 : 0) >= TWO_32;
}

/**
 * Sets slot.value to the double (negated when negative) for the product whose top 64 bits are a1:a0 (as int32; bit
 * 127 or 126 of the 128-bit product set) with lowZero telling whether the 64 bits below them are all zero; false,
 * leaving slot alone, for a possible exact tie or a result that is not normal.
 */
function rounded(a1Word: number, a0Word: number, lowZero: boolean, lz: number, q: number, negative: boolean, slot: NumberSlot): boolean {
  const a1 = a1Word >>> 0;
  const a0 = a0Word >>> 0;
  const shift = 9 + (a1 >>> 31);
  const mantissaHigh = a1 >>> shift;
  const mantissaLow = ((a1 << (32 - shift)) | (a0 >>> shift)) >>> 0;
  if ((mantissaLow & 3) === 1 && (a0 & ((1 << shift) - 1)) === 0 && lowZero) return false;
  const exponent = fivePowersOf(slot).exponents[q - POWER_MIN]! + shift - lz;
  if (exponent < BINARY_EXPONENT_MIN || exponent > BINARY_EXPONENT_MAX) return false;
  // Round half up on 54 bits (an exact tie with an even mantissa was sent away above), halving first: a 54-bit
  // integer need not be a double, but the 53-bit result (at most 2^53) is.
  const mantissa = mantissaHigh * HALF_TWO_32 + (mantissaLow >>> 1) + (mantissaLow & 1);
  const magnitude = mantissa * POWERS_OF_TWO[exponent - BINARY_EXPONENT_MIN]!;
  slot.value = negative ? -magnitude : magnitude;
  return true;
}

/**
 * eiselLemire's rare second step: adds W times the low 64 bits of T into P1 = a1:a0:b1:b0 (words as int32), giving
 * the top 128 bits of the exact 192-bit W·T; the unknown rest is below W in the lowest word, so false when it could
 * still carry into the rounding bits, else rounded's answer.
 */
function refined(
  wHighWord: number,
  wLowWord: number,
  at: number,
  a1Word: number,
  a0Word: number,
  b1Word: number,
  b0Word: number,
  lz: number,
  q: number,
  negative: boolean,
  slot: NumberSlot,
): boolean {
  const wHigh = wHighWord >>> 0;
  const wLow = wLowWord >>> 0;
  const a1 = a1Word >>> 0;
  const a0 = a0Word >>> 0;
  const b1 = b1Word >>> 0;
  const b0 = b0Word >>> 0;
  const words = fivePowersOf(slot).words;
  const t1 = words[at + 2]!;
  const t0 = words[at + 3]!;
  // W·(t1:t0) = c1:c0:d1:d0, then c1:c0 added into b1:b0 with the carry rippling into a0 and a1. This rare path sums
  // columns in doubles instead: every sum is an integer below 2^35, so exact.
  const d0 = Math.imul(wLow, t0) >>> 0;
  const column1 = mulHigh32(wLow, t0) + (Math.imul(wLow, t1) >>> 0) + (Math.imul(wHigh, t0) >>> 0);
  const d1 = column1 >>> 0;
  const column2 =
    mulHigh32(wLow, t1) + mulHigh32(wHigh, t0) + (Math.imul(wHigh, t1) >>> 0) + Math.floor(column1 / TWO_32);
  const c0 = column2 >>> 0;
  const c1 = mulHigh32(wHigh, t1) + Math.floor(column2 / TWO_32);
  const sum0 = b0 + c0;
  const sum1 = b1 + c1 + Math.floor(sum0 / TWO_32);
  const sum2 = a0 + Math.floor(sum1 / TWO_32);
  const m1 = (a1 + Math.floor(sum2 / TWO_32)) >>> 0;
  const m0 = sum2 >>> 0;
  const below = (1 << (9 + (m1 >>> 31))) - 1;
  const restOnes = (sum1 >>> 0) === 0xffffffff && (sum0 >>> 0) === 0xffffffff;
  if ((m0 & below) === below && restOnes && carriesOut(d1, d0, wHigh, wLow)) return false;
  return rounded(m1 | 0, m0 | 0, ((sum1 >>> 0) | (sum0 >>> 0)) === 0, lz, q, negative, slot);
}
