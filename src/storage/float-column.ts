// Owns the float column: picks, per column, the smallest exact scheme (constant, decimal, binary, XOR) behind a scheme byte.
import { assert } from '../core/assert.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { readDecimalFloats } from './decimal-column.js';
import { DECIMAL_DIGITS_MAX, DecimalExceptions, POWERS_OF_TEN, scaleDecimals, scanDecimals } from './decimal-scale.js';
import { binaryScale, POWERS_OF_TWO, stepUlps } from './float-bits.js';
import { PackedBlocks, planIntStream, planScaledIntStream, readIntStream, writeIntStream, type IntLayout, type IntStreamPlan } from './int-stream.js';
import { readVarUint, unzigzag, varUintBytes, writeVarUint, zigzag } from './varint.js';
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

/** Bits of the scheme byte, and of the binary scheme's places field after it. */
const SCHEME_BITS = 8;
const PLACES_BITS = 6;
/** Tie-break ranks of the candidates writeFloatColumn prices (lower wins a tie). */
const RANK_CONSTANT = 0;
const RANK_BINARY = 1;
const RANK_DECIMAL = 2;
const RANK_NONE = 9;

/** What a column may use beyond the schemes every column may. */
export interface FloatColumnOptions extends IntLayout {}

/**
 * Reusable arrays for writing columns of up to `capacity` values: the candidate being priced and
 * the cheapest so far, each its integers, exceptions and packed blocks, swapped rather than copied.
 */
export class FloatScratch {
  ints: Float64Array;
  bestInts: Float64Array;
  diffs: Float64Array;
  exceptions = new DecimalExceptions();
  bestExceptions = new DecimalExceptions();
  blocks = new PackedBlocks();
  bestBlocks = new PackedBlocks();
  readonly histogram = new Int32Array(DECIMAL_DIGITS_MAX + 1);
  readonly candidates: number[] = [];

  constructor(capacity: number) {
    this.ints = new Float64Array(capacity);
    this.bestInts = new Float64Array(capacity);
    this.diffs = new Float64Array(capacity);
  }

  /** Grows the arrays to hold at least `length` values (doubling, so that growing rows reallocate rarely). */
  ensure(length: number): void {
    if (this.ints.length >= length) return;
    const capacity = Math.max(length, 2 * this.ints.length);
    this.ints = new Float64Array(capacity);
    this.bestInts = new Float64Array(capacity);
    this.diffs = new Float64Array(capacity);
  }

  /** Keeps the candidate just priced as the cheapest: its integers, exceptions and blocks become the best ones. */
  keep(): void {
    [this.ints, this.bestInts] = [this.bestInts, this.ints];
    [this.exceptions, this.bestExceptions] = [this.bestExceptions, this.exceptions];
    [this.blocks, this.bestBlocks] = [this.bestBlocks, this.blocks];
  }
}

/**
 * Writes `length` doubles of `values` bit-exactly: a scheme byte and its data, whichever of the
 * schemes that apply is smallest. Each candidate is priced exactly without writing it (its
 * integers, exceptions and blocks kept in `scratch`), and only the smallest is written; on a tie
 * the earlier one in the order constant, binary, decimal scales, XOR wins.
 */
export function writeFloatColumn(writer: BitWriter, values: Float64Array, length: number, scratch: FloatScratch, options: FloatColumnOptions): void {
  if (length === 0) return;
  scratch.ensure(length);
  const start = writer.bitLength;
  // The cheapest candidate so far; on a tie the one of lower rank wins (the order the first
  // format-2 encoder tried them in: constant, binary, then the decimal scales as listed), so that
  // the candidates can be priced in any order and the same one is chosen.
  let bestBits = Infinity;
  let bestRank = RANK_NONE;
  let bestScheme = SCHEME_XOR;
  let bestPlan: IntStreamPlan | undefined;
  const consider = (bits: number, rank: number, scheme: number, plan: IntStreamPlan | undefined): void => {
    if (bits > bestBits || (bits === bestBits && rank > bestRank)) return;
    bestBits = bits;
    bestRank = rank;
    bestScheme = scheme;
    bestPlan = plan;
    if (plan !== undefined) scratch.keep();
  };
  // The column's doubles as 32-bit halves (little-endian, as bit-stream.ts insists): low, high.
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * length);
  // A constant costs 72 bits whatever the length: a short decimal column may cost less.
  if (isConstant(words, length)) consider(SCHEME_BITS + 64, RANK_CONSTANT, SCHEME_CONSTANT, undefined);
  // The scan leaves one scale's integers in scratch.ints: price that candidate first, then the
  // other one if any.
  const candidates = scratch.candidates;
  const scanned = scanDecimals(values, length, scratch.histogram, candidates, scratch.ints, scratch.exceptions);
  const first = candidates.length === 2 && candidates[1] === scanned ? 1 : 0;
  for (let n = 0; n < candidates.length; n++) {
    const k = n === 0 ? first : 1 - first;
    const digits = candidates[k]!;
    if (n > 0 || digits !== scanned) scaleDecimals(values, length, digits, scratch.ints, scratch.exceptions);
    const plan = planIntStream(scratch.ints, length, options, start + SCHEME_BITS, scratch.blocks);
    consider(SCHEME_BITS + plan.bits + exceptionsBits(scratch.exceptions), RANK_DECIMAL + k, SCHEME_DECIMAL | digits, plan);
  }
  // A column of integers within the range (all of 0 decimal places) has 0 binary places, which
  // the binary scheme leaves to the decimal one: no need to scan it again.
  const integers = candidates.length === 1 && candidates[0] === 0 && scratch.histogram[0] === length;
  const places = integers ? -1 : binaryScale(values, words, length);
  if (places >= 0) {
    scratch.exceptions.clear();
    const plan = planScaledIntStream(values, POWERS_OF_TWO[places]!, scratch.ints, length, options, start + SCHEME_BITS + PLACES_BITS, scratch.blocks);
    consider(SCHEME_BITS + PLACES_BITS + plan.bits + 1, RANK_BINARY, SCHEME_BINARY, plan);
  }
  // XOR is counted only as far as it takes to lose: decimal data costs a few bits a value and XOR 50.
  if (bestBits === Infinity || xorFloatsBitCost(values, length, bestBits - SCHEME_BITS) + SCHEME_BITS < bestBits) bestScheme = SCHEME_XOR;
  writeScheme(writer, values, length, scratch, options, bestScheme, bestPlan, places);
}

/** Writes the scheme writeFloatColumn chose, from the integers and exceptions it kept. */
function writeScheme(
  writer: BitWriter,
  values: Float64Array,
  length: number,
  scratch: FloatScratch,
  options: FloatColumnOptions,
  scheme: number,
  plan: IntStreamPlan | undefined,
  places: number,
): void {
  writer.writeBits(scheme, SCHEME_BITS);
  if (scheme === SCHEME_XOR) {
    writeXorFloats(writer, values, length);
    return;
  }
  if (scheme === SCHEME_CONSTANT) {
    writer.writeFloat64(values[0]!);
    return;
  }
  assert(plan !== undefined, 'an integer scheme without its plan');
  if (scheme === SCHEME_BINARY) writer.writeBits(places, PLACES_BITS);
  writeIntStream(writer, scratch.bestInts, length, options, scratch.diffs, plan);
  writeExceptions(writer, scratch.bestExceptions);
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

/** True when every value has the first one's 64 bits; `words` views the column as 32-bit halves. */
function isConstant(words: Uint32Array, length: number): boolean {
  const low = words[0]!;
  const high = words[1]!;
  for (let i = 1; i < length; i++) if (words[2 * i] !== low || words[2 * i + 1] !== high) return false;
  return true;
}

/** Bits writeExceptions takes for `exceptions`. */
function exceptionsBits(exceptions: DecimalExceptions): number {
  const { corrections, raws } = exceptions;
  if (corrections.length === 0 && raws.length === 0) return 1;
  let bytes = varUintBytes(corrections.length / 2) + varUintBytes(raws.length / 2);
  let last = 0;
  for (let k = 0; k < corrections.length; k += 2) {
    bytes += varUintBytes(corrections[k]! - last) + varUintBytes(zigzag(corrections[k + 1]!));
    last = corrections[k]!;
  }
  last = 0;
  for (let k = 0; k < raws.length; k += 2) {
    bytes += varUintBytes(raws[k]! - last) + 8;
    last = raws[k]!;
  }
  return 1 + 8 * bytes;
}

function writeExceptions(w: BitWriter, exceptions: DecimalExceptions): void {
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
