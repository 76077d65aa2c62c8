// Owns the RowBinary codec of the ClickHouse backend: a growable writer for insert bodies and a bounds-checked reader for SELECT answers.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';

/** First capacity of a writer's buffer; it doubles from there, so a big body costs O(log n) copies. */
const INITIAL_CAPACITY_BYTES = 64 * 1024;
const TWO_POW_32 = 2 ** 32;
/** The high 32-bit half of a u64 above which the value is no longer a safe integer (2^53 - 1 has a high half of 2^21 - 1). */
const SAFE_HIGH_HALF_MAX = 2 ** 21 - 1;
/** A LEB128 length longer than this many bytes would describe more than 2^63 bytes: the stream is corrupt. */
const LEB128_BYTES_MAX = 9;

/**
 * Writes rows in ClickHouse's RowBinary format (little-endian fixed-width numbers, strings as a
 * LEB128 byte length and UTF-8 bytes). Columns are written in table order; the writer knows no schema.
 */
export class RowBinaryWriter {
  #buffer: Buffer = Buffer.allocUnsafe(INITIAL_CAPACITY_BYTES);
  #length = 0;

  /** A UInt8 column: an integer from 0 to 255. */
  u8(v: number): void {
    this.#reserve(1);
    this.#length = this.#buffer.writeUInt8(v, this.#length);
  }

  /** A UInt32 column: an integer from 0 to 2^32 - 1. */
  u32(v: number): void {
    this.#reserve(4);
    this.#length = this.#buffer.writeUInt32LE(v, this.#length);
  }

  /** A UInt64 column from a non-negative safe integer (timestamps in ms, versions), written as two 32-bit halves. */
  u64(v: number): void {
    assert(Number.isSafeInteger(v) && v >= 0, `RowBinary u64 takes a non-negative safe integer, got ${v}`);
    this.#reserve(8);
    const low = v % TWO_POW_32;
    this.#buffer.writeUInt32LE(low, this.#length);
    this.#buffer.writeUInt32LE((v - low) / TWO_POW_32, this.#length + 4);
    this.#length += 8;
  }

  /** A UInt64 column from its 8 little-endian bytes (series ids, which use all 64 bits). */
  u64Bytes(b: Uint8Array): void {
    assert(b.length === 8, `RowBinary u64Bytes takes 8 bytes, got ${b.length}`);
    this.#reserve(8);
    this.#buffer.set(b, this.#length);
    this.#length += 8;
  }

  /** A Float64 column; every bit pattern (-0, NaN, the infinities) is written as it is. */
  f64(v: number): void {
    this.#reserve(8);
    this.#length = this.#buffer.writeDoubleLE(v, this.#length);
  }

  /**
   * A String column as UTF-8. Like every UTF-8 encoder (and sqlString's literals, and SQLite),
   * a lone UTF-16 surrogate becomes U+FFFD, so what is stored is what a query names.
   */
  string(s: string): void {
    const byteLength = Buffer.byteLength(s, 'utf8');
    this.#reserve(LEB128_BYTES_MAX + byteLength);
    let n = byteLength;
    while (n >= 0x80) {
      this.#buffer[this.#length++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.#buffer[this.#length++] = n;
    this.#length += this.#buffer.write(s, this.#length, byteLength, 'utf8');
  }

  /** Bytes written since the last finish(). */
  get length(): number {
    return this.#length;
  }

  /** A copy of the bytes written so far; the writer is then empty and reusable (it keeps its capacity). */
  finish(): Buffer {
    const body = Buffer.from(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
    return body;
  }

  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.length) return;
    let capacity = this.#buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }
}

/**
 * Reads a RowBinary answer column by column. The bytes come from a server, so running past the end,
 * a UInt64 beyond the safe integers or a malformed length is a STORE_BACKEND_FAILED, not an assertion.
 */
export class RowBinaryReader {
  readonly #buffer: Buffer;
  #offset = 0;

  /** Reads `b` from its first byte. */
  constructor(b: Buffer) {
    this.#buffer = b;
  }

  /** True once every byte was read. */
  get done(): boolean {
    return this.#offset >= this.#buffer.length;
  }

  /** A UInt8 column. */
  u8(): number {
    const at = this.#take(1);
    return this.#buffer.readUInt8(at);
  }

  /** A UInt32 column. */
  u32(): number {
    const at = this.#take(4);
    return this.#buffer.readUInt32LE(at);
  }

  /** A UInt64 column as a number; fails above Number.MAX_SAFE_INTEGER rather than round it. */
  u64(): number {
    const at = this.#take(8);
    const high = this.#buffer.readUInt32LE(at + 4);
    if (high > SAFE_HIGH_HALF_MAX) {
      throw this.#corrupt(at, 'a UInt64 above Number.MAX_SAFE_INTEGER where a safe integer was expected');
    }
    return high * TWO_POW_32 + this.#buffer.readUInt32LE(at);
  }

  /** A UInt64 column as its 8 little-endian bytes (a copy, so it does not pin the whole answer). */
  u64Bytes(): Buffer {
    const at = this.#take(8);
    return Buffer.from(this.#buffer.subarray(at, at + 8));
  }

  /** A Float64 column, bit for bit. */
  f64(): number {
    const at = this.#take(8);
    return this.#buffer.readDoubleLE(at);
  }

  /** A String column decoded as UTF-8 (invalid sequences become U+FFFD). */
  string(): string {
    const start = this.#offset;
    let length = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (i === LEB128_BYTES_MAX) throw this.#corrupt(start, 'a string length longer than 9 LEB128 bytes');
      const byte = this.u8();
      length += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    if (length > this.#buffer.length - this.#offset) {
      throw this.#corrupt(start, `a string of ${length} bytes where ${this.#buffer.length - this.#offset} remain`);
    }
    const at = this.#offset;
    this.#offset += length;
    return this.#buffer.toString('utf8', at, at + length);
  }

  #take(bytes: number): number {
    const at = this.#offset;
    if (at + bytes > this.#buffer.length) {
      throw this.#corrupt(at, `${bytes} bytes wanted where ${this.#buffer.length - at} remain`);
    }
    this.#offset = at + bytes;
    return at;
  }

  #corrupt(offset: number, reason: string): StrataError {
    return new StrataError('STORE_BACKEND_FAILED', `A RowBinary answer from ClickHouse is malformed at byte ${offset}: ${reason}.`, {
      offset,
      bytes: this.#buffer.length,
      reason,
    });
  }
}
