// Owns the timestamp column: delta-of-delta in prefix-coded buckets (Gorilla, with Prometheus' ms widths).
import { assert } from '../core/assert.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { readSignedBits, SIGNED_MAGNITUDE_MAX, writeSignedBits } from './varint.js';

/**
 * Largest timestamp magnitude the column accepts (about 142,000 years of ms). Within it, deltas of
 * an ascending column stay within 2^53 and their differences are exact in a double.
 */
export const TIMESTAMP_MAGNITUDE_MAX = SIGNED_MAGNITUDE_MAX;

// Codes for the delta-of-delta D, each a unary prefix then the payload:
//   0      + gamma(L)      a run of L >= 1 zero D (regular spacing): a whole regular chunk of
//                          240 points costs 16 bits; Gorilla's one bit a point would be 30
//   10     + 7 bits        zigzagged D up to 64 ms of jitter
//   110    + 14 bits       zigzagged D up to 8 s
//   1110   + 20 bits       zigzagged D up to 8.7 min
//   11110  + 32 bits       zigzagged D up to 24 days
//   11111  + sign + 53 bits anything else
// Prometheus picked 14/17/20-bit buckets for ms data; the 7-bit one keeps network jitter cheap.
// gamma(L) is Elias gamma: N = floor(log2 L) zero bits, a one bit, then the low N bits of L.
// The stream is LSB-first, so the prefix "1 0" is the 2-bit number 0b01, "1 1 0" is 0b011 and so on.

/**
 * Writes `length` strictly ascending integer timestamps: the first with writeSignedBits, then each
 * delta-of-delta (the first delta against 0), runs of zeros as one code.
 */
export function writeTimestamps(writer: BitWriter, timestampsMs: Float64Array, length: number): void {
  if (length === 0) return;
  const first = timestampsMs[0]!;
  const last = timestampsMs[length - 1]!;
  assert(
    Number.isInteger(first) && Math.abs(first) <= TIMESTAMP_MAGNITUDE_MAX && Math.abs(last) <= TIMESTAMP_MAGNITUDE_MAX,
    'timestamps out of the encodable range',
  );
  writeSignedBits(writer, first);
  let previousDelta = 0;
  let i = 1;
  while (i < length) {
    const delta = timestampsMs[i]! - timestampsMs[i - 1]!;
    const dod = delta - previousDelta;
    if (dod === 0) {
      // The run goes on while the spacing stays `delta`.
      let end = i + 1;
      let previous = timestampsMs[i]!;
      while (end < length) {
        const t = timestampsMs[end]!;
        if (t - previous !== delta) break;
        previous = t;
        end++;
      }
      writeZeroRun(writer, end - i);
      i = end;
      continue;
    }
    previousDelta = delta;
    i++;
    const mapped = dod >= 0 ? dod * 2 : -dod * 2 - 1;
    if (mapped < 0x80) writer.writeBits(0b01 | (mapped << 2), 9);
    else if (mapped < 0x4000) writer.writeBits(0b011 | (mapped << 3), 17);
    else if (mapped < 0x100000) writer.writeBits(0b0111 | (mapped << 4), 24);
    else if (mapped < 0x100000000) {
      writer.writeBits(0b01111, 5);
      writer.writeBits(mapped, 32);
    } else {
      // Sign and magnitude: the zigzag form of such a D would no longer be exact in a double.
      writer.writeBits(0b11111 | (dod < 0 ? 32 : 0), 6);
      writer.writeWide(Math.abs(dod), 53);
    }
  }
}

/** Reads `length` timestamps written by writeTimestamps into `out`. */
export function readTimestamps(reader: BitReader, out: Float64Array, length: number): void {
  if (length === 0) return;
  let t = readSignedBits(reader);
  out[0] = t;
  let delta = 0;
  let i = 1;
  while (i < length) {
    if (reader.readBit() === 0) {
      // Clamped so that a corrupt run length cannot write past the column.
      const end = Math.min(i + readZeroRunLength(reader), length);
      for (; i < end; i++) {
        t += delta;
        out[i] = t;
      }
      continue;
    }
    delta += readDeltaOfDelta(reader);
    t += delta;
    out[i] = t;
    i++;
  }
}

/** Writes the code for `run` (1..2^31 - 1) zero delta-of-deltas: a 0 bit, then gamma(run). */
function writeZeroRun(writer: BitWriter, run: number): void {
  const n = 31 - Math.clz32(run);
  // LSB-first, 1 << (n + 1) is the 0 code bit, n zero bits and the one bit that ends them.
  writer.writeBits(1 << (n + 1), n + 2);
  if (n > 0) writer.writeBits(run - (1 << n), n);
}

/** Reads gamma(run) after the 0 code bit. */
function readZeroRunLength(reader: BitReader): number {
  let n = 0;
  while (reader.readBit() === 0 && n < 31) n++;
  return n === 0 ? 1 : (1 << n) + reader.readBits(n);
}

/** Reads the rest of a non-zero delta-of-delta once its leading 1 bit has been read. */
function readDeltaOfDelta(reader: BitReader): number {
  let mapped: number;
  if (reader.readBit() === 0) mapped = reader.readBits(7);
  else if (reader.readBit() === 0) mapped = reader.readBits(14);
  else if (reader.readBit() === 0) mapped = reader.readBits(20);
  else if (reader.readBit() === 0) mapped = reader.readBits(32);
  else {
    const negative = reader.readBit() !== 0;
    const magnitude = reader.readWide(53);
    return negative ? -magnitude : magnitude;
  }
  // Unsigned 32-bit zigzag inverse; the result fits an int32 in every bucket above.
  return (mapped >>> 1) ^ -(mapped & 1);
}
