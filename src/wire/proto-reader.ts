// Owns reading the protobuf wire format (varints, fixed, length-delimited fields) for the protocol decoders, bounded and without a schema compiler.
import { StrataError } from '../core/errors.js';

/** Protobuf wire types. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4_294_967_296;
/** ASCII strings up to this long are built char by char; longer ones are sliced natively (measured faster each side). */
const SHORT_STRING_BYTES = 8;

function malformed(message: string, offset: number): StrataError {
  return new StrataError('PROTOCOL_BODY_MALFORMED', `The protobuf body is malformed: ${message} at byte ${offset}.`, { offset });
}

/**
 * A cursor over protobuf bytes. `next(end)` reads the next field's tag up to `end` (the end of the
 * message being read) and leaves its number and wire type in `field` and `wire`; the value is then
 * read with the method of its type, or skipped. Every read checks the bounds and throws
 * PROTOCOL_BODY_MALFORMED with the byte offset; no read allocates but `string` and `bytes`.
 * Hand-written rather than protobufjs: the decoders read straight into point columns, with no
 * object per sample (bench/protocols.ts measures both).
 */
export class ProtoReader {
  pos = 0;
  field = 0;
  wire = 0;
  private readonly view: DataView;
  // ignoreBOM keeps a leading U+FEFF: without it the decoder drops it from every string that starts with one.
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** A Buffer view of `buf` (no copy) for its latin1 slicing, made on the first long ASCII string. */
  private latin1: Buffer | undefined;

  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Reads the next tag before `end`; false at `end`. */
  next(end: number): boolean {
    if (this.pos >= end) {
      if (this.pos > end) throw malformed('a field runs past its message', end);
      return false;
    }
    const tag = this.uint32();
    this.field = tag >>> 3;
    this.wire = tag & 7;
    if (this.field === 0) throw malformed('field number 0', this.pos);
    return true;
  }

  /** A varint as an unsigned 32-bit number (higher bits are dropped, as protobuf does for uint32). */
  uint32(): number {
    let result = 0;
    let shift = 0;
    const buf = this.buf;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw malformed('a varint is cut short', this.pos);
      const byte = buf[this.pos++] as number;
      if (shift < 32) result |= (byte & 0x7f) << shift;
      if (byte < 0x80) return result >>> 0;
      shift += 7;
    }
    throw malformed('a varint is longer than 10 bytes', this.pos);
  }

  /** A varint as int64 (two's complement), as a double: exact up to 2^53 in magnitude. */
  int64(): number {
    // Values in [0, 2^49) end within 7 bytes and add up exactly (every millisecond time does): the
    // common case skips the two-word arithmetic a negative value needs.
    const buf = this.buf;
    const stop = Math.min(this.pos + 7, buf.length);
    let value = 0;
    let scale = 1;
    for (let p = this.pos; p < stop; p++) {
      const byte = buf[p] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        this.pos = p + 1;
        return value;
      }
      scale *= 128;
    }
    return this.int64Wide();
  }

  /** int64 of a varint longer than 7 bytes (a negative one takes 10), or cut short. */
  private int64Wide(): number {
    let lo = 0;
    let hi = 0;
    const buf = this.buf;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw malformed('a varint is cut short', this.pos);
      const byte = buf[this.pos++] as number;
      const bits = byte & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (byte < 0x80) return combine(lo >>> 0, hi >>> 0, true);
    }
    throw malformed('a varint is longer than 10 bytes', this.pos);
  }

  /** A varint as uint64, as a double: exact up to 2^53. */
  uint64(): number {
    let value = 0;
    let scale = 1;
    const buf = this.buf;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw malformed('a varint is cut short', this.pos);
      const byte = buf[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw malformed('a varint is longer than 10 bytes', this.pos);
  }

  /** A zigzag varint (sint32 or sint64), as a double. */
  sint64(): number {
    const raw = this.uint64();
    // Zigzag: even raw values are non-negative. Exact while |value| <= 2^52.
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** A little-endian IEEE double (wire type 1). */
  double(): number {
    this.need(8);
    const value = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  /** A fixed64 as an unsigned double (exact up to 2^53). */
  fixed64(): number {
    this.need(8);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return combine(lo, hi, false);
  }

  /** An sfixed64 as a signed double (exact up to 2^53 in magnitude). */
  sfixed64(): number {
    this.need(8);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return combine(lo, hi, true);
  }

  /**
   * A fixed64 count of nanoseconds (OTLP's time_unix_nano) as whole milliseconds, floored, exactly:
   * nanoseconds of today's dates pass 2^53, so the double of the whole count would round. With
   * 2^32 = 4294·10^6 + 967296, ms = hi·4294 + floor((hi·967296 + lo) / 10^6), all exact in doubles.
   */
  fixed64NanosAsMillis(): number {
    this.need(8);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294 + Math.floor((hi * 967_296 + lo) / 1_000_000);
  }

  fixed32(): number {
    this.need(4);
    const value = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return value;
  }

  /** Reads a length prefix and returns the end offset of the length-delimited value that follows. */
  lengthEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.buf.length) throw malformed(`a length of ${length} runs past the body`, this.pos);
    return end;
  }

  /**
   * A length-delimited UTF-8 string; invalid UTF-8 is malformed. ASCII, what label names and most
   * values are, takes a fast path: TextDecoder costs about twice as much per short string, and
   * strings are most of the cost of a Prometheus series.
   */
  string(): string {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    const buf = this.buf;
    if (end - start <= SHORT_STRING_BYTES) {
      let out = '';
      for (let i = start; i < end; i++) {
        const byte = buf[i] as number;
        if (byte >= 0x80) return this.utf8String(start, end);
        out += String.fromCharCode(byte);
      }
      return out;
    }
    for (let i = start; i < end; i++) if ((buf[i] as number) >= 0x80) return this.utf8String(start, end);
    return (this.latin1 ??= Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)).toString('latin1', start, end);
  }

  /** The UTF-8 string in [start, end), which holds a byte above 0x7f. */
  private utf8String(start: number, end: number): string {
    try {
      return this.utf8.decode(this.buf.subarray(start, end));
    } catch {
      throw malformed('a string is not valid UTF-8', start);
    }
  }

  /** A length-delimited byte string, as a view (not a copy). */
  bytes(): Uint8Array {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /** Skips the value of the field just read by `next`. */
  skipField(): void {
    switch (this.wire) {
      case WIRE_VARINT:
        this.uint64();
        return;
      case WIRE_FIXED64:
        this.need(8);
        this.pos += 8;
        return;
      case WIRE_LENGTH_DELIMITED:
        this.pos = this.lengthEnd();
        return;
      case WIRE_FIXED32:
        this.need(4);
        this.pos += 4;
        return;
      default:
        throw malformed(`wire type ${this.wire} (groups are not supported)`, this.pos);
    }
  }

  /** Throws unless the field just read has wire type `wire`. */
  expect(wire: number): void {
    if (this.wire !== wire) throw malformed(`field ${this.field} has wire type ${this.wire}, expected ${wire}`, this.pos);
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.buf.length) throw malformed('a fixed-width value is cut short', this.pos);
  }
}

function combine(lo: number, hi: number, signed: boolean): number {
  if (signed && hi >= 0x80000000) {
    // Two's complement: negate (~hi, ~lo) + 1.
    const nlo = (~lo >>> 0) + 1;
    const nhi = (~hi >>> 0) + (nlo > 0xffffffff ? 1 : 0);
    return -((nhi >>> 0) * TWO_32 + (nlo >>> 0));
  }
  return hi * TWO_32 + lo;
}
