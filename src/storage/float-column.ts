// Owns the float column: picks, per column, the smallest exact scheme (constant, decimal, binary, XOR) behind a scheme byte.
import { assert } from '../core/assert.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { readDecimalFloats } from './decimal-column.js';
import { binaryPlaces, sameBits, stepUlps, ulpDistance } from './float-bits.js';
import { PACKED_INT_MAGNITUDE_MAX } from './int-column.js';
import { readIntStream, writeIntStream, type IntLayout } from './int-stream.js';
import { readVarUint, unzigzag, writeVarUint, zigzag } from './varint.js';
import { readXorFloats, writeXorFloats, xorFloatsBitCost } from './xor-column.js';

// The scheme byte: high nibble the scheme, low nibble its parameter.
//   0x00        Gorilla XOR (xor-column.ts)
//   0x10 | d    decimal, format 1 only: packed integers n, value n / 10^d (decimal-column.ts)
//   0x20        constant: one double, every value the same 64 bits
//   0x30 | d    decimal with exceptions: integer stream of n = round(v * 10^d), value n / 10^d,
//               then the exceptions (below)
//   0x40        binary fixed point: 6 bits k, integer stream of n = v * 2^k, value n / 2^k, then
//               the exceptions
// Exceptions, after the integer stream: one bit (0: none), else a varint count K of corrections,
// each a varint position delta and a zigzag varint ulp step (the value is n / 10^d moved by that
// many doubles: a binary artefact such as 0.30000000000000004 next to 0.3), then a varint count R
// of raw values, each a varint position delta and its 64 bits. A raw value's n repeats the one
// before it, so it costs the integer stream nothing.
const SCHEME_XOR = 0x00;
const SCHEME_DECIMAL_V1 = 0x10;
const SCHEME_CONSTANT = 0x20;
const SCHEME_DECIMAL = 0x30;
const SCHEME_BINARY = 0x40;

/** Scheme names, for the encoding histogram (chunk-describe.ts). */
export type FloatScheme = 'xor' | 'decimal' | 'constant' | 'decimal-exceptions' | 'binary';

/** Largest k the binary scheme tries: n = v * 2^k must stay within the packed range anyway. */
const BINARY_PLACES_MAX = 63;
/** Values sampled to decide whether the decimal scheme is worth a full pass. */
const DECIMAL_SAMPLE = 32;
/** Most decimal places tried; past 15 a double has no exact decimal digits left. */
const DECIMAL_DIGITS_MAX = 15;
/** Share of values whose decimal places set the scale; the rest become exceptions. */
const DECIMAL_COVERAGE = 0.9;

const POWERS_OF_TEN = Float64Array.from({ length: DECIMAL_DIGITS_MAX + 1 }, (_, d) => 10 ** d);

/** What a column may use beyond the schemes every column may. */
export interface FloatColumnOptions extends IntLayout {}

/** Reusable arrays for writing columns of up to `capacity` values. */
export class FloatScratch {
  ints: Float64Array;
  diffs: Float64Array;
  constructor(capacity: number) {
    this.ints = new Float64Array(capacity);
    this.diffs = new Float64Array(capacity);
  }
  ensure(length: number): void {
    if (this.ints.length >= length) return;
    this.ints = new Float64Array(length);
    this.diffs = new Float64Array(length);
  }
}

interface Exceptions {
  corrections: number[];
  raws: number[];
}

/**
 * Writes `length` doubles of `values` bit-exactly: a scheme byte and its data, whichever of the
 * schemes that apply is smallest.
 */
export function writeFloatColumn(writer: BitWriter, values: Float64Array, length: number, scratch: FloatScratch, options: FloatColumnOptions): void {
  if (length === 0) return;
  scratch.ensure(length);
  const start = writer.bitLength;
  let bestBits = Infinity;
  let best: ((w: BitWriter) => void) | undefined;
  const tryScheme = (write: (w: BitWriter) => void): void => {
    write(writer);
    const bits = writer.bitLength - start;
    writer.truncate(start);
    if (bits < bestBits) {
      bestBits = bits;
      best = write;
    }
  };
  // A constant costs 72 bits whatever the length: a short decimal column may cost less.
  if (isConstant(values, length)) {
    tryScheme((w) => {
      w.writeBits(SCHEME_CONSTANT, 8);
      w.writeFloat64(values[0]!);
    });
  }
  const places = binaryScale(values, length);
  if (places >= 0) tryScheme((w) => writeBinary(w, values, length, places, scratch, options));
  for (const digits of decimalCandidates(values, length)) {
    tryScheme((w) => writeDecimal(w, values, length, digits, scratch, options));
  }
  // XOR is counted only as far as it takes to lose: decimal data costs a few bits a value and XOR 50.
  if (best === undefined || xorFloatsBitCost(values, length, bestBits - 8) + 8 < bestBits) {
    writer.writeBits(SCHEME_XOR, 8);
    writeXorFloats(writer, values, length);
    return;
  }
  best(writer);
}

/** Reads `length` doubles written by writeFloatColumn (either format) into `out`; returns the scheme it used. */
export function readFloatColumn(reader: BitReader, out: Float64Array, length: number): FloatScheme | undefined {
  if (length === 0) return undefined;
  const scheme = reader.readBits(8);
  const kind = scheme & 0xf0;
  if (scheme === SCHEME_XOR) {
    readXorFloats(reader, out, length);
  } else if (kind === SCHEME_DECIMAL_V1) {
    readDecimalFloats(reader, out, length, scheme & 0x0f);
  } else if (scheme === SCHEME_CONSTANT) {
    out.fill(reader.readFloat64(), 0, length);
  } else if (kind === SCHEME_DECIMAL) {
    const digits = scheme & 0x0f;
    readIntStream(reader, out, length);
    const power = POWERS_OF_TEN[digits]!;
    for (let i = 0; i < length; i++) out[i] = out[i]! / power;
    readExceptions(reader, out, length);
  } else {
    assert(scheme === SCHEME_BINARY, `unknown float column scheme ${scheme}`);
    const places = reader.readBits(6);
    readIntStream(reader, out, length);
    const power = 2 ** places;
    for (let i = 0; i < length; i++) out[i] = out[i]! / power;
    readExceptions(reader, out, length);
  }
  return schemeOf(scheme);
}

/** The scheme a column starts with, read from its scheme byte without decoding it. */
function schemeOf(schemeByte: number): FloatScheme {
  const kind = schemeByte & 0xf0;
  if (schemeByte === SCHEME_XOR) return 'xor';
  if (kind === SCHEME_DECIMAL_V1) return 'decimal';
  if (schemeByte === SCHEME_CONSTANT) return 'constant';
  if (kind === SCHEME_DECIMAL) return 'decimal-exceptions';
  return 'binary';
}

function isConstant(values: Float64Array, length: number): boolean {
  const first = values[0]!;
  for (let i = 1; i < length; i++) if (!sameBits(values[i]!, first)) return false;
  return true;
}

/** The binary places every value fits (see binaryPlaces), or -1 when the scheme cannot hold them all. */
function binaryScale(values: Float64Array, length: number): number {
  let places = 0;
  let magnitude = 0;
  for (let i = 0; i < length; i++) {
    const p = binaryPlaces(values[i]!);
    if (p < 0 || p > BINARY_PLACES_MAX) return -1;
    if (p > places) places = p;
    const a = Math.abs(values[i]!);
    if (a > magnitude) magnitude = a;
  }
  // Integers (0 places) are the decimal scheme's with 0 digits; no need to write them twice.
  if (places === 0 || magnitude * 2 ** places > PACKED_INT_MAGNITUDE_MAX) return -1;
  return places;
}

function writeBinary(w: BitWriter, values: Float64Array, length: number, places: number, scratch: FloatScratch, options: FloatColumnOptions): void {
  const power = 2 ** places;
  const ints = scratch.ints;
  for (let i = 0; i < length; i++) ints[i] = values[i]! * power;
  w.writeBits(SCHEME_BINARY, 8);
  w.writeBits(places, 6);
  writeIntStream(w, ints, length, options, scratch.diffs);
  w.writeBit(0);
}

/** Decimal places of `value` (0..15), or -1 when none reproduces it exactly. */
function decimalPlaces(value: number): number {
  for (let d = 0; d <= DECIMAL_DIGITS_MAX; d++) {
    const power = POWERS_OF_TEN[d]!;
    const scaled = Math.round(value * power);
    if (Math.abs(scaled) > PACKED_INT_MAGNITUDE_MAX) return -1;
    if (scaled / power === value) return scaled === 0 && 1 / value < 0 ? -1 : d;
  }
  return -1;
}

/**
 * The decimal scales worth trying: none when a sample shows mostly values with no decimal form
 * (full-precision data, left to XOR and binary); else the scale that covers DECIMAL_COVERAGE of
 * the values and, when larger, the one that covers them all.
 */
function decimalCandidates(values: Float64Array, length: number): number[] {
  const sample = Math.min(length, DECIMAL_SAMPLE);
  let clean = 0;
  for (let i = 0; i < sample; i++) if (decimalPlaces(values[i]!) >= 0) clean++;
  if (clean * 2 < sample) return [];
  const histogram = new Array<number>(DECIMAL_DIGITS_MAX + 1).fill(0);
  for (let i = 0; i < length; i++) {
    const d = decimalPlaces(values[i]!);
    if (d >= 0) histogram[d]!++;
  }
  const candidates: number[] = [];
  let covered = 0;
  let most = -1;
  for (let d = 0; d <= DECIMAL_DIGITS_MAX; d++) {
    if (histogram[d]! === 0) continue;
    covered += histogram[d]!;
    most = d;
    if (candidates.length === 0 && covered >= DECIMAL_COVERAGE * length) candidates.push(d);
  }
  if (most >= 0 && candidates[0] !== most) candidates.push(most);
  return candidates;
}

function writeDecimal(w: BitWriter, values: Float64Array, length: number, digits: number, scratch: FloatScratch, options: FloatColumnOptions): void {
  const power = POWERS_OF_TEN[digits]!;
  const ints = scratch.ints;
  const exceptions: Exceptions = { corrections: [], raws: [] };
  let previous = 0;
  for (let i = 0; i < length; i++) {
    const v = values[i]!;
    let scaled = Math.round(v * power);
    if (Math.abs(scaled) <= PACKED_INT_MAGNITUDE_MAX) {
      if (scaled === 0) scaled = 0; // -0 from rounding a small negative: the integer stream has no sign for it
      const approx = scaled / power;
      if (sameBits(approx, v)) {
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
  w.writeBits(SCHEME_DECIMAL | digits, 8);
  writeIntStream(w, ints, length, options, scratch.diffs);
  writeExceptions(w, exceptions);
}

function writeExceptions(w: BitWriter, exceptions: Exceptions): void {
  const { corrections, raws } = exceptions;
  if (corrections.length === 0 && raws.length === 0) {
    w.writeBit(0);
    return;
  }
  w.writeBit(1);
  writeVarUint(w, corrections.length / 2);
  let last = 0;
  for (let k = 0; k < corrections.length; k += 2) {
    writeVarUint(w, corrections[k]! - last);
    last = corrections[k]!;
    writeVarUint(w, zigzag(corrections[k + 1]!));
  }
  writeVarUint(w, raws.length / 2);
  last = 0;
  for (let k = 0; k < raws.length; k += 2) {
    writeVarUint(w, raws[k]! - last);
    last = raws[k]!;
    w.writeFloat64(raws[k + 1]!);
  }
}

function readExceptions(reader: BitReader, out: Float64Array, length: number): void {
  if (reader.readBit() === 0) return;
  const corrections = readVarUint(reader);
  assert(corrections <= length, 'float column exceptions exceed its length');
  let position = 0;
  for (let k = 0; k < corrections; k++) {
    position += readVarUint(reader);
    assert(position < length, 'float column exception out of range');
    out[position] = stepUlps(out[position]!, unzigzag(readVarUint(reader)));
  }
  const raws = readVarUint(reader);
  assert(raws <= length, 'float column exceptions exceed its length');
  position = 0;
  for (let k = 0; k < raws; k++) {
    position += readVarUint(reader);
    assert(position < length, 'float column exception out of range');
    out[position] = reader.readFloat64();
  }
}
