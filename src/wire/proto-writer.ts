// Owns writing the protobuf wire format for the protocol responses (remote read answers, OTLP export responses).

const INITIAL_BYTES = 1024;
const TWO_32 = 4_294_967_296;

/**
 * An append-only protobuf writer. Nested messages are written with `begin(field)` ... `end()`: the
 * body is written in place after a reserved 5-byte length, which `end` fills in with a padded
 * varint (protobuf readers accept non-minimal varints), so nothing is copied.
 */
export class ProtoWriter {
  private buf = new Uint8Array(INITIAL_BYTES);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private readonly open: number[] = [];
  private readonly utf8 = new TextEncoder();

  /** The bytes written so far (a copy). */
  finish(): Uint8Array {
    if (this.open.length > 0) throw new Error('ProtoWriter.finish with an unclosed message');
    return this.buf.slice(0, this.pos);
  }

  get length(): number {
    return this.pos;
  }

  tag(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  /** An unsigned varint of a non-negative safe integer. */
  varint(value: number): this {
    this.reserve(10);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** A signed int64 varint (two's complement for negatives, 10 bytes). */
  int64(value: number): this {
    if (value >= 0) return this.varint(value);
    const magnitude = -value;
    let lo = (~(magnitude % TWO_32) + 1) >>> 0;
    let hi = (~Math.floor(magnitude / TWO_32) + (lo === 0 ? 1 : 0)) >>> 0;
    this.reserve(10);
    for (let i = 0; i < 9; i++) {
      this.buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo & 0x01;
    return this;
  }

  double(value: number): this {
    this.reserve(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  fixed64(value: number): this {
    this.reserve(8);
    this.view.setUint32(this.pos, value % TWO_32, true);
    this.view.setUint32(this.pos + 4, Math.floor(value / TWO_32), true);
    this.pos += 8;
    return this;
  }

  string(value: string): this {
    return this.bytes(this.utf8.encode(value));
  }

  bytes(value: Uint8Array): this {
    this.varint(value.length);
    this.reserve(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /** Starts a nested message in `field`; close it with `end`. */
  begin(field: number): this {
    this.tag(field, 2);
    this.reserve(5);
    this.open.push(this.pos);
    this.pos += 5;
    return this;
  }

  /** Closes the innermost message begun with `begin`. */
  end(): this {
    const at = this.open.pop();
    if (at === undefined) throw new Error('ProtoWriter.end without begin');
    let length = this.pos - at - 5;
    for (let i = 0; i < 4; i++) {
      this.buf[at + i] = (length & 0x7f) | 0x80;
      length >>>= 7;
    }
    this.buf[at + 4] = length;
    return this;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }
}
