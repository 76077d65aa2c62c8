// Owns the bit-level writer and reader the codecs build on: LSB-first bits in little-endian 32-bit words.
import { assert } from '../core/assert.js';

// The stream is defined as bytes, bit i living in bit (i & 7) of byte i >> 3. Packing bits into
// Uint32 words LSB-first gives exactly those bytes only on a little-endian host, which lets the
// writer and reader move 32 bits per memory access instead of 8. Every Node target is
// little-endian; this check makes a big-endian port fail loudly instead of writing bad chunks.
assert(new Uint8Array(new Uint32Array([1]).buffer)[0] === 1, 'bit-stream needs a little-endian host');

const TWO_POW_32 = 4294967296;

// One scratch pair for moving a double's bits in and out of the stream. Sharing it is safe: it
// holds nothing between calls (each use writes then reads it synchronously), and allocating a
// pair per writer or reader cost several percent of a whole chunk's encode time.
const floatScratch = new Float64Array(1);
const floatScratchWords = new Uint32Array(floatScratch.buffer);

/** Number of bits needed to write the non-negative integer `x` (exact up to 2^64): 0 for 0. */
export function bitLength(x: number): number {
  if (x < TWO_POW_32) return 32 - Math.clz32(x);
  return 64 - Math.clz32(Math.floor(x / TWO_POW_32));
}

/** Appends bits to a growable buffer; `finish` returns the bytes written. */
export class BitWriter {
  private words: Uint32Array;
  private wordIndex = 0;
  /** The partly filled word; its low `used` bits are valid. */
  private current = 0;
  private used = 0;

  /** Starts an empty stream with room for about `initialBytes` bytes before it grows. */
  constructor(initialBytes = 256) {
    this.words = new Uint32Array(Math.max(4, Math.ceil(initialBytes / 4)));
  }

  /** Forgets everything written, keeping the buffer, so that one writer can serve row after row. */
  reset(): void {
    this.wordIndex = 0;
    this.current = 0;
    this.used = 0;
  }

  /** Bits written so far. */
  get bitLength(): number {
    return this.wordIndex * 32 + this.used;
  }

  /** Writes the low `count` bits of `value` (count 0..32); `value` must have no bits above them. */
  writeBits(value: number, count: number): void {
    const used = this.used;
    this.current |= value << used;
    const total = used + count;
    if (total < 32) {
      this.used = total;
      return;
    }
    if (this.wordIndex === this.words.length) this.grow();
    this.words[this.wordIndex++] = this.current;
    // A shift by 32 is a shift by 0 in JavaScript, so a word started fresh keeps nothing over.
    this.current = used === 0 ? 0 : (value >>> (32 - used)) | 0;
    this.used = total - 32;
  }

  /** Writes one bit (0 or 1). */
  writeBit(bit: number): void {
    this.writeBits(bit, 1);
  }

  /** Writes the non-negative integer `value` (exact in a double) in `count` bits, count 0..64. */
  writeWide(value: number, count: number): void {
    if (count <= 32) {
      this.writeBits(value, count);
      return;
    }
    const low = value >>> 0; // ToUint32 is exact modulo 2^32 for any integer double.
    this.writeBits(low, 32);
    this.writeBits((value - low) / TWO_POW_32, count - 32);
  }

  /** Writes the 64 bits of a double, bit-exact (NaN payloads and -0 included). */
  writeFloat64(value: number): void {
    floatScratch[0] = value;
    this.writeBits(floatScratchWords[0]!, 32);
    this.writeBits(floatScratchWords[1]!, 32);
  }

  /**
   * Writes, for each i in [start, end), `ints[i] - ints[i - 1] - base` in `width` bits (0..53);
   * each must be a non-negative integer below 2^width. The same bits as that many writeWide calls:
   * this is the packed integer column's inner loop (int-column.ts), run here on local copies of the
   * writer's state, which costs a quarter of the per-call field loads and stores.
   */
  writeDeltas(ints: Float64Array, start: number, end: number, base: number, width: number): void {
    if (width === 0 || end <= start) return;
    // Room for every word this run may fill, so that the loops below never grow the buffer.
    const wordsNeeded = this.wordIndex + Math.ceil((this.used + (end - start) * width) / 32) + 1;
    while (this.words.length < wordsNeeded) this.grow();
    if (width <= 32) this.writeNarrowDeltas(ints, start, end, base, width);
    else this.writeWideDeltas(ints, start, end, base, width);
  }

  /** writeDeltas for widths 33..53: each field as its low 32 bits, then the rest (as writeWide). */
  private writeWideDeltas(ints: Float64Array, start: number, end: number, base: number, width: number): void {
    const words = this.words;
    let current = this.current;
    let wordIndex = this.wordIndex;
    const highWidth = width - 32;
    // Bits used in `current`: writing 32 bits leaves it as it was, the high part moves it on.
    let at = this.used;
    let previous = ints[start - 1]!;
    for (let i = start; i < end; i++) {
      const x = ints[i]!;
      const value = x - previous - base;
      previous = x;
      const low = value >>> 0; // exact modulo 2^32 for an integer double
      const high = (value - low) / TWO_POW_32;
      current |= low << at;
      words[wordIndex++] = current;
      current = at === 0 ? 0 : (low >>> (32 - at)) | 0;
      current |= high << at;
      const total = at + highWidth;
      if (total < 32) {
        at = total;
        continue;
      }
      words[wordIndex++] = current;
      current = at === 0 ? 0 : (high >>> (32 - at)) | 0;
      at = total - 32;
    }
    this.current = current;
    this.used = at;
    this.wordIndex = wordIndex;
  }

  /** writeDeltas for widths 1..32: one field a value. */
  private writeNarrowDeltas(ints: Float64Array, start: number, end: number, base: number, width: number): void {
    const words = this.words;
    let current = this.current;
    let used = this.used;
    let wordIndex = this.wordIndex;
    let previous = ints[start - 1]!;
    for (let i = start; i < end; i++) {
      const x = ints[i]!;
      // Below 2^32: the shifts take it modulo 2^32 as an unsigned field.
      const value = x - previous - base;
      previous = x;
      current |= value << used;
      const total = used + width;
      if (total < 32) {
        used = total;
        continue;
      }
      words[wordIndex++] = current;
      // `| 0` keeps the word an int32 (the same 32 bits), so that it stays in an integer register.
      current = used === 0 ? 0 : (value >>> (32 - used)) | 0;
      used = total - 32;
    }
    this.current = current;
    this.used = used;
    this.wordIndex = wordIndex;
  }

  /** Pads with zero bits up to the next byte boundary. */
  alignToByte(): void {
    const pad = (8 - (this.used & 7)) & 7;
    if (pad !== 0) this.writeBits(0, pad);
  }

  /** Writes raw bytes; the stream must be byte-aligned (see alignToByte). */
  writeBytes(bytes: Uint8Array): void {
    assert((this.used & 7) === 0, 'writeBytes needs a byte-aligned stream');
    for (let i = 0; i < bytes.length; i++) this.writeBits(bytes[i]!, 8);
  }

  /**
   * Drops every bit after the first `bitLength` bits, so that a caller can write one encoding,
   * measure it, and take it back when another turns out smaller.
   */
  truncate(bitLength: number): void {
    assert(bitLength >= 0 && bitLength <= this.bitLength, 'truncate beyond the bits written');
    const wordIndex = bitLength >>> 5;
    const used = bitLength & 31;
    const word = wordIndex < this.wordIndex ? this.words[wordIndex]! : this.current;
    // Words past wordIndex keep stale bits; they are overwritten before finish reads them.
    this.current = used === 0 ? 0 : word & (0xffffffff >>> (32 - used));
    this.wordIndex = wordIndex;
    this.used = used;
  }

  /** Returns a copy of the bytes written, the last byte zero-padded. */
  finish(): Uint8Array {
    const byteLength = (this.bitLength + 7) >>> 3;
    if (this.used !== 0) {
      if (this.wordIndex === this.words.length) this.grow();
      this.words[this.wordIndex] = this.current;
    }
    return new Uint8Array(this.words.buffer, 0, byteLength).slice();
  }

  private grow(): void {
    const bigger = new Uint32Array(this.words.length * 2);
    bigger.set(this.words);
    this.words = bigger;
  }
}

/** Reads bits written by BitWriter, in the same order. */
export class BitReader {
  private readonly words: Uint32Array;
  private readonly bytes: Uint8Array;
  private position = 0;
  /** Bits in the input; reading past them yields zeros and is caught by `assertWithinInput`. */
  readonly inputBits: number;

  /** Wraps `input`; it is copied once so that words are aligned and reads may run past the end. */
  constructor(input: Uint8Array) {
    // Two spare words let a read straddle the last word without a bounds branch on every read.
    this.words = new Uint32Array(((input.length + 3) >>> 2) + 2);
    this.bytes = new Uint8Array(this.words.buffer);
    this.bytes.set(input);
    this.inputBits = input.length * 8;
  }

  /** Bits read so far. */
  get bitPosition(): number {
    return this.position;
  }

  /** Reads `count` bits (1..32) as an unsigned integer. */
  readBits(count: number): number {
    const position = this.position;
    const index = position >>> 5;
    const offset = position & 31;
    let value = this.words[index]! >>> offset;
    // offset > 0 here whenever the read spills over, so the shift below is never by 32.
    if (offset + count > 32) value |= this.words[index + 1]! << (32 - offset);
    this.position = position + count;
    return (value & (0xffffffff >>> (32 - count))) >>> 0;
  }

  /** Reads one bit. */
  readBit(): number {
    const position = this.position;
    this.position = position + 1;
    return (this.words[position >>> 5]! >>> (position & 31)) & 1;
  }

  /** Reads a non-negative integer of `count` bits, count 0..64 (exact up to 2^53). */
  readWide(count: number): number {
    if (count === 0) return 0;
    if (count <= 32) return this.readBits(count);
    const low = this.readBits(32);
    return this.readBits(count - 32) * TWO_POW_32 + low;
  }

  /** Reads the 64 bits of a double written by writeFloat64. */
  readFloat64(): number {
    floatScratchWords[0] = this.readBits(32);
    floatScratchWords[1] = this.readBits(32);
    return floatScratch[0]!;
  }

  /** Skips to the next byte boundary. */
  alignToByte(): void {
    this.position = (this.position + 7) & ~7;
  }

  /** Returns a view of the next `length` bytes; the stream must be byte-aligned. */
  readBytes(length: number): Uint8Array {
    assert((this.position & 7) === 0, 'readBytes needs a byte-aligned stream');
    const start = this.position >>> 3;
    this.position += length * 8;
    this.assertWithinInput();
    return this.bytes.subarray(start, start + length);
  }

  /** Fails when more bits were read than the input holds: the bytes are truncated or corrupt. */
  assertWithinInput(): void {
    assert(this.position <= this.inputBits, 'encoded data ends before its declared content');
  }
}
