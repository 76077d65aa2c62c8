// Owns the reference float column writer: format 2's first encoder (every candidate written in full, the smallest kept), to check that the priced encoder writes the same bits.
import { BitWriter } from '../../src/storage/bit-stream.js';
import { bitLength } from '../../src/storage/bit-stream.js';
import { binaryPlaces, sameBits, ulpDistance } from '../../src/storage/float-bits.js';
import { PACKED_INT_MAGNITUDE_MAX, writePackedInts } from '../../src/storage/int-column.js';
import { writeVarUint, zigzag } from '../../src/storage/varint.js';
import { writeXorFloats, xorFloatsBitCost } from '../../src/storage/xor-column.js';

// This is the encoder of commit d7855df, kept apart from src/ on purpose: it writes each
// candidate scheme, measures it and truncates it, with its own decimal-places loop, candidate
// choice and order estimate. The encoder in src/ prices candidates instead; for the same column
// and layout both must write the same bits.

const MAX = PACKED_INT_MAGNITUDE_MAX;
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, d) => 10 ** d);

/** Writes `values` as d7855df's writeFloatColumn did, returning the bits. */
export function referenceFloatColumn(values: Float64Array, bytes: boolean, prefixBits: number): Uint8Array {
  const writer = new BitWriter(8);
  writer.writeBits(0, prefixBits);
  const length = values.length;
  if (length === 0) return writer.finish();
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
  if (values.every((v) => sameBits(v, values[0]!))) {
    tryScheme((w) => {
      w.writeBits(0x20, 8);
      w.writeFloat64(values[0]!);
    });
  }
  const places = binaryScale(values);
  if (places >= 0) {
    tryScheme((w) => {
      w.writeBits(0x40, 8);
      w.writeBits(places, 6);
      writeIntStream(w, values.map((v) => v * 2 ** places), bytes);
      w.writeBit(0);
    });
  }
  for (const digits of decimalCandidates(values)) tryScheme((w) => writeDecimal(w, values, digits, bytes));
  if (best === undefined || xorFloatsBitCost(values, length, bestBits - 8) + 8 < bestBits) {
    writer.writeBits(0x00, 8);
    writeXorFloats(writer, values, length);
  } else {
    best(writer);
  }
  return writer.finish();
}

function binaryScale(values: Float64Array): number {
  let places = 0;
  let magnitude = 0;
  for (const v of values) {
    const p = binaryPlaces(v);
    if (p < 0 || p > 63) return -1;
    places = Math.max(places, p);
    magnitude = Math.max(magnitude, Math.abs(v));
  }
  if (places === 0 || magnitude * 2 ** places > MAX) return -1;
  return places;
}

function decimalPlaces(value: number): number {
  for (let d = 0; d <= 15; d++) {
    const power = POWERS_OF_TEN[d]!;
    const scaled = Math.round(value * power);
    if (Math.abs(scaled) > MAX) return -1;
    if (scaled / power === value) return scaled === 0 && 1 / value < 0 ? -1 : d;
  }
  return -1;
}

/** d7855df's binaryScale, exported for the bit-level one's test. */
export function referenceBinaryScale(values: Float64Array): number {
  return binaryScale(values);
}

/** d7855df's decimalCandidates, exported for the scan's own test. */
export function referenceDecimalCandidates(values: Float64Array): number[] {
  return decimalCandidates(values);
}

/** d7855df's decimalPlaces, exported for the fast search's test. */
export function referenceDecimalPlaces(value: number): number {
  return decimalPlaces(value);
}

function decimalCandidates(values: Float64Array): number[] {
  const length = values.length;
  const sample = Math.min(length, 32);
  let clean = 0;
  for (let i = 0; i < sample; i++) if (decimalPlaces(values[i]!) >= 0) clean++;
  if (clean * 2 < sample) return [];
  const histogram = new Array<number>(16).fill(0);
  for (const v of values) {
    const d = decimalPlaces(v);
    if (d >= 0) histogram[d]!++;
  }
  const candidates: number[] = [];
  let covered = 0;
  let most = -1;
  for (let d = 0; d <= 15; d++) {
    if (histogram[d]! === 0) continue;
    covered += histogram[d]!;
    most = d;
    if (candidates.length === 0 && covered >= 0.9 * length) candidates.push(d);
  }
  if (most >= 0 && candidates[0] !== most) candidates.push(most);
  return candidates;
}

function writeDecimal(w: BitWriter, values: Float64Array, digits: number, bytes: boolean): void {
  const power = POWERS_OF_TEN[digits]!;
  const ints = new Float64Array(values.length);
  const corrections: number[] = [];
  const raws: number[] = [];
  let previous = 0;
  values.forEach((v, i) => {
    let scaled = Math.round(v * power);
    if (Math.abs(scaled) <= MAX) {
      if (scaled === 0) scaled = 0;
      const approx = scaled / power;
      if (sameBits(approx, v)) {
        ints[i] = previous = scaled;
        return;
      }
      const ulps = ulpDistance(v, approx);
      if (ulps === ulps) {
        ints[i] = previous = scaled;
        corrections.push(i, ulps);
        return;
      }
    }
    ints[i] = previous;
    raws.push(i, v);
  });
  w.writeBits(0x30 | digits, 8);
  writeIntStream(w, ints, bytes);
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

function writeIntStream(writer: BitWriter, ints: Float64Array, bytes: boolean): void {
  const length = ints.length;
  const second = secondOrderPays(ints, bytes);
  let source = ints;
  if (second) source = ints.map((x, i) => (i === 0 ? x : x - ints[i - 1]!));
  writer.writeBits((second ? 1 : 0) | (bytes ? 2 : 0), 2);
  if (!bytes) {
    writePackedInts(writer, source, length);
    return;
  }
  writer.alignToByte();
  let previous = 0;
  for (const x of source) {
    writeVarUint(writer, zigzag(x - previous));
    previous = x;
  }
}

/** The first encoder's estimate of whether second differences pay (d7855df's secondOrderPays). */
export function secondOrderPays(ints: Float64Array, bytes: boolean): boolean {
  const length = ints.length;
  if (length < 3) return false;
  let first = 0;
  let second = 0;
  let min1 = Infinity;
  let max1 = -Infinity;
  let min2 = Infinity;
  let max2 = -Infinity;
  let previous = ints[0]!;
  for (let i = 1; i < length; i++) {
    const e = ints[i]! - ints[i - 1]!;
    const f = e - previous;
    previous = e;
    if (Math.abs(e) > MAX) return false;
    if (bytes) {
      first += varintBytes(zigzag(e));
      second += varintBytes(zigzag(f));
      continue;
    }
    min1 = Math.min(min1, e);
    max1 = Math.max(max1, e);
    min2 = Math.min(min2, f);
    max2 = Math.max(max2, f);
    const blockLength = ((i - 1) % 64) + 1;
    if (blockLength === 64 || i === length - 1) {
      first += bitLength(max1 - min1) * blockLength + bitLength(zigzag(min1));
      second += bitLength(max2 - min2) * blockLength + bitLength(zigzag(min2));
      min1 = min2 = Infinity;
      max1 = max2 = -Infinity;
    }
  }
  return second < first;
}

function varintBytes(x: number): number {
  return x < 128 ? 1 : x < 16384 ? 2 : x < 2097152 ? 3 : Math.ceil(bitLength(x) / 7);
}
