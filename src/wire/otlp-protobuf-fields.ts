// Owns reading the fields of OTLP protobuf messages: typed scalars checked against their wire type, interned strings, and AnyValues as label values or compact JSON.
import { Buffer } from 'node:buffer';
import { StrataError } from '../core/errors.js';
import { NameCache } from './name-cache.js';
import { bytesText, doubleJson, doubleText, EMPTY_JSON, memberJson, stringJson } from './otlp-text.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED as WIRE_LEN, WIRE_VARINT } from './proto-reader.js';
import { PROTOBUF_DEPTH_MAX } from './protocol-limits.js';

/** Longest string (in bytes) worth interning: keys and label values are short, and a long one would only be copied into the cache. */
const INTERNED_BYTES_MAX = 256;

/** PROTOCOL_BODY_MALFORMED at a byte offset of the body. */
function malformed(message: string, offset: number): StrataError {
  return new StrataError('PROTOCOL_BODY_MALFORMED', `The protobuf body is malformed: ${message} at byte ${offset}.`, { offset });
}

/** An int64 varint as exact decimal text: the double of ProtoReader.int64 rounds past 2^53, so those are re-read as a BigInt. */
function int64Decimal(reader: ProtoReader): string {
  const start = reader.pos;
  const value = reader.int64();
  if (Number.isSafeInteger(value)) return String(value);
  let bits = 0n;
  for (let i = start, shift = 0n; i < reader.pos; i++, shift += 7n) bits |= BigInt((reader.buf[i] as number) & 0x7f) << shift;
  return BigInt.asIntN(64, bits).toString();
}

/**
 * A ProtoReader over one body with the reads the OTLP messages need. Each typed read applies to
 * the field `reader.next` just tagged and checks its wire type first; a wrong one is malformed.
 */
export class OtlpFieldReader {
  readonly reader: ProtoReader;
  /** Where keyValue found the value of the KeyValue it read last (-1 when it had none). */
  valueStart = -1;
  valueEnd = -1;
  /** A DataView of the body, for the name cache and the series cache's keys. */
  readonly view: DataView;
  private readonly bytes: Buffer;
  private readonly names = new NameCache();
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(body: Uint8Array) {
    this.reader = new ProtoReader(body);
    this.bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    this.view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  }

  /** For a repeated 8-byte field (fixed64, double): the end of its packed run, or -1 when it came unpacked (one value follows). */
  eightByteRun(): number {
    const r = this.reader;
    if (r.wire === WIRE_FIXED64) return -1;
    r.expect(WIRE_LEN);
    const end = r.lengthEnd();
    if ((end - r.pos) % 8 !== 0) throw malformed(`packed field ${r.field} is not a whole number of 8-byte values`, r.pos);
    return end;
  }

  /** Reads a KeyValue up to `end`: returns its key and leaves its value's span in valueStart/valueEnd (-1 when absent). */
  keyValue(end: number): string {
    const r = this.reader;
    let key = '';
    this.valueStart = -1;
    this.valueEnd = -1;
    while (r.next(end)) {
      if (r.field === 1) key = this.string();
      else if (r.field === 2) {
        this.valueEnd = this.lengthEnd();
        this.valueStart = r.pos;
        r.pos = this.valueEnd;
      } else r.skipField();
    }
    return key;
  }

  /** The label value of the AnyValue keyValue found last ('' when it had none). */
  valueText(): string {
    if (this.valueStart < 0) return '';
    this.reader.pos = this.valueStart;
    return this.anyText(this.valueEnd);
  }

  /** An AnyValue as a label value: string as is, bool, int and double as text, bytes as base64, arrays and lists as JSON. */
  private anyText(end: number): string {
    const r = this.reader;
    let text = '';
    while (r.next(end)) {
      switch (r.field) {
        case 1:
          text = this.string();
          break;
        case 2:
          text = this.varint() !== 0 ? 'true' : 'false';
          break;
        case 3:
          r.expect(WIRE_VARINT);
          text = int64Decimal(r);
          break;
        case 4:
          text = doubleText(this.double());
          break;
        case 5:
          text = this.arrayJson(this.lengthEnd(), 1);
          break;
        case 6:
          text = this.listJson(this.lengthEnd(), 1);
          break;
        case 7:
          r.expect(WIRE_LEN);
          text = bytesText(r.bytes());
          break;
        default:
          r.skipField();
      }
    }
    return text;
  }

  /** An AnyValue inside an array or list at nesting `depth`, as compact JSON. */
  private anyJson(end: number, depth: number): string {
    const r = this.reader;
    let json = EMPTY_JSON;
    while (r.next(end)) {
      switch (r.field) {
        case 1:
          json = stringJson(this.string());
          break;
        case 2:
          json = this.varint() !== 0 ? 'true' : 'false';
          break;
        case 3:
          r.expect(WIRE_VARINT);
          json = int64Decimal(r);
          break;
        case 4:
          json = doubleJson(this.double());
          break;
        case 5:
          json = this.arrayJson(this.lengthEnd(), depth + 1);
          break;
        case 6:
          json = this.listJson(this.lengthEnd(), depth + 1);
          break;
        case 7:
          r.expect(WIRE_LEN);
          json = stringJson(bytesText(r.bytes()));
          break;
        default:
          r.skipField();
      }
    }
    return json;
  }

  /** ArrayValue (values 1) as a JSON array. */
  private arrayJson(end: number, depth: number): string {
    const r = this.reader;
    if (depth > PROTOBUF_DEPTH_MAX) throw malformed(`an AnyValue nests deeper than ${PROTOBUF_DEPTH_MAX} arrays and lists`, r.pos);
    const items: string[] = [];
    while (r.next(end)) {
      if (r.field === 1) items.push(this.anyJson(this.lengthEnd(), depth));
      else r.skipField();
    }
    return `[${items.join(',')}]`;
  }

  /** KeyValueList (values 1, each a KeyValue) as a JSON object, keys in the order sent. */
  private listJson(end: number, depth: number): string {
    const r = this.reader;
    if (depth > PROTOBUF_DEPTH_MAX) throw malformed(`an AnyValue nests deeper than ${PROTOBUF_DEPTH_MAX} arrays and lists`, r.pos);
    const members: string[] = [];
    while (r.next(end)) {
      if (r.field !== 1) {
        r.skipField();
        continue;
      }
      const kvEnd = this.lengthEnd();
      const key = this.keyValue(kvEnd);
      let json = EMPTY_JSON;
      if (this.valueStart >= 0) {
        r.pos = this.valueStart;
        json = this.anyJson(this.valueEnd, depth);
      }
      members.push(memberJson(key, json));
      r.pos = kvEnd;
    }
    return `{${members.join(',')}}`;
  }

  /** A length-delimited field: the offset its value ends at (the reader stands at its start). */
  lengthEnd(): number {
    this.reader.expect(WIRE_LEN);
    return this.reader.lengthEnd();
  }

  /**
   * A string field. Short ones are interned: a request repeats the same keys and values on every
   * point, and a repeated string then costs a hash of its bytes, not a decode (and keeps its hash
   * for the map lookups after). Buffer's decoder turns invalid UTF-8 into U+FFFD, so only a string
   * holding one is checked again with the strict decoder.
   */
  string(): string {
    const r = this.reader;
    r.expect(WIRE_LEN);
    const end = r.lengthEnd();
    const start = r.pos;
    r.pos = end;
    if (start === end) return '';
    const text = end - start <= INTERNED_BYTES_MAX ? this.names.intern(this.bytes, this.view, start, end) : undefined;
    if (text !== undefined && !text.includes('\uFFFD')) return text;
    try {
      return this.utf8.decode(this.bytes.subarray(start, end));
    } catch {
      throw malformed('a string is not valid UTF-8', start);
    }
  }

  /** A varint field (uint32, bool, enum) as an unsigned 32-bit number. */
  varint(): number {
    this.reader.expect(WIRE_VARINT);
    return this.reader.uint32();
  }

  /** A double field. */
  double(): number {
    this.reader.expect(WIRE_FIXED64);
    return this.reader.double();
  }

  /** An sfixed64 field (as_int), exact to 2^53. */
  sfixed64(): number {
    this.reader.expect(WIRE_FIXED64);
    return this.reader.sfixed64();
  }

  /** A fixed64 field (counts), exact to 2^53. */
  fixed64(): number {
    this.reader.expect(WIRE_FIXED64);
    return this.reader.fixed64();
  }

  /** A fixed64 count of nanoseconds (time_unix_nano) as whole milliseconds, floored, exactly. */
  nanosAsMillis(): number {
    this.reader.expect(WIRE_FIXED64);
    return this.reader.fixed64NanosAsMillis();
  }
}
