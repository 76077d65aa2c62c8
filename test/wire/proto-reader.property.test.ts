// Owns the property tests of ProtoReader and ProtoWriter against protobufjs, the reference implementation of the wire format.
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT } from '../../src/wire/proto-reader.js';
import { ProtoWriter } from '../../src/wire/proto-writer.js';
import { bits64, longToNumber } from './prom-schema.js';

const RUNS = 2000;
const { Writer, Reader } = protobuf;
const SAFE = Number.MAX_SAFE_INTEGER;

/** One field of a kind both libraries know, with its value. */
type FieldValue =
  | { kind: 'uint32'; value: number }
  | { kind: 'int64'; value: number }
  | { kind: 'uint64'; value: number }
  | { kind: 'sint64'; value: number }
  | { kind: 'double'; value: number }
  | { kind: 'fixed64'; value: number }
  | { kind: 'sfixed64'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bytes'; value: Uint8Array };

const safeSigned = fc.oneof(fc.integer({ min: -SAFE, max: SAFE }), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31), 2 ** 32, -(2 ** 32), SAFE, -SAFE));
const safeUnsigned = fc.oneof(fc.integer({ min: 0, max: SAFE }), fc.integer({ min: 0, max: 300 }), fc.constantFrom(0, 127, 128, 2 ** 32 - 1, 2 ** 32, SAFE));
/** Zigzag is exact in ProtoReader within 2^52 in magnitude. */
const zigzagSafe = fc.integer({ min: -(2 ** 52), max: 2 ** 52 });

const fieldValue: fc.Arbitrary<FieldValue> = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((value) => ({ kind: 'uint32' as const, value })),
  safeSigned.map((value) => ({ kind: 'int64' as const, value })),
  safeUnsigned.map((value) => ({ kind: 'uint64' as const, value })),
  zigzagSafe.map((value) => ({ kind: 'sint64' as const, value })),
  fc.double().map((value) => ({ kind: 'double' as const, value })),
  safeUnsigned.map((value) => ({ kind: 'fixed64' as const, value })),
  safeSigned.map((value) => ({ kind: 'sfixed64' as const, value })),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((value) => ({ kind: 'string' as const, value })),
  fc.uint8Array({ maxLength: 20 }).map((value) => ({ kind: 'bytes' as const, value })),
);

const WIRE_OF: Record<FieldValue['kind'], number> = {
  uint32: WIRE_VARINT,
  int64: WIRE_VARINT,
  uint64: WIRE_VARINT,
  sint64: WIRE_VARINT,
  double: WIRE_FIXED64,
  fixed64: WIRE_FIXED64,
  sfixed64: WIRE_FIXED64,
  string: WIRE_LENGTH_DELIMITED,
  bytes: WIRE_LENGTH_DELIMITED,
};

/** Writes fields 1..n with protobufjs. */
function encodeWithProtobufjs(fields: readonly FieldValue[]): Uint8Array {
  const w = Writer.create();
  fields.forEach((f, i) => {
    w.uint32(((i + 1) << 3) | WIRE_OF[f.kind]);
    switch (f.kind) {
      case 'uint32':
        w.uint32(f.value);
        break;
      case 'int64':
        w.int64(f.value);
        break;
      case 'uint64':
        w.uint64(f.value);
        break;
      case 'sint64':
        w.sint64(f.value);
        break;
      case 'double':
        w.double(f.value);
        break;
      case 'fixed64':
        w.fixed64(f.value);
        break;
      case 'sfixed64':
        w.sfixed64(f.value);
        break;
      case 'string':
        w.string(f.value);
        break;
      case 'bytes':
        w.bytes(f.value);
        break;
    }
  });
  return w.finish();
}

/** Reads the fields back with ProtoReader, each with the method of its kind. */
function readWithProtoReader(bytes: Uint8Array, fields: readonly FieldValue[]): unknown[] {
  const r = new ProtoReader(bytes);
  const out: unknown[] = [];
  for (const f of fields) {
    if (!r.next(bytes.length)) throw new Error('fewer fields than written');
    expect(r.field).toBe(out.length + 1);
    expect(r.wire).toBe(WIRE_OF[f.kind]);
    const read = { uint32: () => r.uint32(), int64: () => r.int64(), uint64: () => r.uint64(), sint64: () => r.sint64(), double: () => r.double(), fixed64: () => r.fixed64(), sfixed64: () => r.sfixed64(), string: () => r.string(), bytes: () => r.bytes() }[f.kind];
    out.push(read());
  }
  expect(r.next(bytes.length)).toBe(false);
  return out;
}

describe('ProtoReader against protobufjs Writer', () => {
  it('reads every kind of field protobufjs writes, exactly', () => {
    fc.assert(
      fc.property(fc.array(fieldValue, { maxLength: 12 }), (fields) => {
        const values = readWithProtoReader(encodeWithProtobufjs(fields), fields);
        fields.forEach((f, i) => {
          if (f.kind === 'bytes') expect(Array.from(values[i] as Uint8Array)).toEqual(Array.from(f.value));
          else expect(Object.is(values[i], f.value), `${f.kind} ${String(f.value)} read as ${String(values[i])}`).toBe(true);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('skips every kind of field and lands where the next one starts', () => {
    fc.assert(
      fc.property(fc.array(fieldValue, { maxLength: 12 }), (fields) => {
        const bytes = encodeWithProtobufjs(fields);
        const r = new ProtoReader(bytes);
        let count = 0;
        while (r.next(bytes.length)) {
          r.skipField();
          count++;
        }
        expect(count).toBe(fields.length);
        expect(r.pos).toBe(bytes.length);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads any 64-bit varint protobufjs writes: exactly within 2^53, to double precision past it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }), (big) => {
        const w = Writer.create().uint64(bits64(big) as never);
        const bytes = w.finish();
        const asUnsigned = BigInt.asUintN(64, big);
        const asSigned = BigInt.asIntN(64, big);
        const close = (got: number, want: bigint): boolean => {
          // Exact within 2^53; past it a double holds about 53 bits, so within a relative 2^-50.
          if (want >= -(2n ** 53n) && want <= 2n ** 53n) return got === Number(want);
          return Math.abs(got - Number(want)) <= Math.abs(Number(want)) * 2 ** -50;
        };
        const unsigned = new ProtoReader(bytes).uint64();
        expect(close(unsigned, asUnsigned), `uint64 ${asUnsigned} read as ${unsigned}`).toBe(true);
        const signed = new ProtoReader(bytes).int64();
        expect(close(signed, asSigned), `int64 ${asSigned} read as ${signed}`).toBe(true);
        expect(new ProtoReader(bytes).uint32()).toBe(Number(asUnsigned & 0xffffffffn));
      }),
      { numRuns: RUNS },
    );
  });

  it('gives fixed64NanosAsMillis = floor(ns / 1e6) for every u64 nanosecond count', () => {
    const nanos = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 1_600_000_000_000_000_000n, max: 2_100_000_000_000_000_000n }), fc.constantFrom(0n, 999_999n, 1_000_000n, 2n ** 53n, 2n ** 64n - 1n));
    fc.assert(
      fc.property(nanos, (ns) => {
        const bytes = Writer.create().fixed64(bits64(ns) as never).finish();
        const r = new ProtoReader(bytes);
        expect(r.fixed64NanosAsMillis()).toBe(Number(ns / 1_000_000n));
        expect(r.pos).toBe(8);
      }),
      { numRuns: RUNS },
    );
  });

  it('throws PROTOCOL_BODY_MALFORMED, and nothing else, for a message cut at any byte', () => {
    fc.assert(
      fc.property(fc.array(fieldValue, { minLength: 1, maxLength: 8 }), (fields) => {
        const bytes = encodeWithProtobufjs(fields);
        for (let cut = 0; cut < bytes.length; cut++) {
          let error: unknown;
          try {
            readWithProtoReader(bytes.subarray(0, cut), fields);
          } catch (e) {
            error = e;
          }
          // A cut on a field boundary reads fewer fields: the helper's own Error says so.
          if (error instanceof Error && error.message === 'fewer fields than written') continue;
          expect(error, `cut at ${cut} of ${bytes.length}`).toBeInstanceOf(StrataError);
          expect((error as StrataError).code).toBe('PROTOCOL_BODY_MALFORMED');
        }
      }),
      { numRuns: RUNS / 4 },
    );
  });

  it('refuses varints longer than 10 bytes, field 0, groups and fields past their message', () => {
    const codeOf = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return e instanceof StrataError ? e.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => new ProtoReader(new Uint8Array(11).fill(0x80)).uint64())).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => new ProtoReader(new Uint8Array(11).fill(0x80)).int64())).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => new ProtoReader(new Uint8Array(11).fill(0x80)).uint32())).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => new ProtoReader(new Uint8Array([0x00])).next(1))).toBe('PROTOCOL_BODY_MALFORMED');
    const group = new ProtoReader(new Uint8Array([0x0b, 0x0c]));
    group.next(2);
    expect(codeOf(() => group.skipField())).toBe('PROTOCOL_BODY_MALFORMED');
    // A nested message of 2 bytes whose varint field takes 3: the read runs past its message.
    const past = new ProtoReader(new Uint8Array([0x0a, 0x02, 0x08, 0x96, 0x01]));
    past.next(5);
    const end = past.lengthEnd();
    past.next(end);
    past.uint64();
    expect(codeOf(() => past.next(end))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => new ProtoReader(new Uint8Array([0x02, 0xff, 0xfe])).string())).toBe('PROTOCOL_BODY_MALFORMED');
    // Invalid UTF-8 after a long ASCII run (the path that slices ASCII natively must still check).
    expect(codeOf(() => new ProtoReader(Uint8Array.from([40, ...Buffer.from('a'.repeat(39)), 0xc3])).string())).toBe('PROTOCOL_BODY_MALFORMED');
  });

  it('reads strings of every length and mix of ASCII and other characters as protobufjs writes them', () => {
    const piece = fc.oneof(fc.constantFrom('a', 'Z', '0', '_', ' ', '\0', '\u007f', 'é', '\u0080', '\ufeff', '日', '😀'), fc.string({ unit: 'grapheme', maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }).map((p) => p.join('')), (text) => {
        const r = new ProtoReader(Writer.create().string(text).finish());
        expect(r.string()).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('ProtoWriter read by protobufjs Reader', () => {
  const value = fc.oneof(
    safeUnsigned.map((v) => ({ kind: 'varint' as const, v })),
    safeSigned.map((v) => ({ kind: 'int64' as const, v })),
    fc.double().map((v) => ({ kind: 'double' as const, v })),
    safeUnsigned.map((v) => ({ kind: 'fixed64' as const, v })),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map((v) => ({ kind: 'string' as const, v })),
    fc.uint8Array({ maxLength: 300 }).map((v) => ({ kind: 'bytes' as const, v })),
  );
  type Value = typeof value extends fc.Arbitrary<infer T> ? T : never;

  function write(w: ProtoWriter, field: number, x: Value): void {
    if (x.kind === 'varint') w.tag(field, WIRE_VARINT).varint(x.v);
    else if (x.kind === 'int64') w.tag(field, WIRE_VARINT).int64(x.v);
    else if (x.kind === 'double') w.tag(field, WIRE_FIXED64).double(x.v);
    else if (x.kind === 'fixed64') w.tag(field, WIRE_FIXED64).fixed64(x.v);
    else if (x.kind === 'string') w.tag(field, WIRE_LENGTH_DELIMITED).string(x.v);
    else w.tag(field, WIRE_LENGTH_DELIMITED).bytes(x.v);
  }

  function read(r: protobuf.Reader, x: Value): unknown {
    if (x.kind === 'varint') return longToNumber(r.uint64());
    if (x.kind === 'int64') return longToNumber(r.int64());
    if (x.kind === 'double') return r.double();
    if (x.kind === 'fixed64') return longToNumber(r.fixed64());
    if (x.kind === 'string') return r.string();
    return Array.from(r.bytes());
  }

  it('writes values and nested messages protobufjs reads back exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.boolean()), { maxLength: 10 }), fc.integer({ min: 1, max: 2 ** 29 - 1 }), (items, field) => {
        const w = new ProtoWriter();
        // Each value alone, or inside a nested message of field `field` (padded length prefix).
        for (const [x, nested] of items) {
          if (nested) w.begin(field);
          write(w, nested ? 1 : field, x);
          if (nested) w.end();
        }
        const bytes = w.finish();
        expect(w.length).toBe(bytes.length);
        const r = Reader.create(bytes);
        for (const [x, nested] of items) {
          const tag = r.uint32();
          expect(tag >>> 3).toBe(field);
          let inner = r;
          if (nested) {
            expect(tag & 7).toBe(WIRE_LENGTH_DELIMITED);
            inner = Reader.create(r.bytes());
            expect(inner.uint32() >>> 3).toBe(1);
          }
          const got = read(inner, x);
          if (nested) expect(inner.pos).toBe(inner.len);
          const want = x.kind === 'bytes' ? Array.from(x.v) : x.v;
          if (x.kind === 'double') expect(Object.is(got, want) || (got === 0 && want === 0)).toBe(true);
          else expect(got).toEqual(want);
        }
        expect(r.pos).toBe(r.len);
      }),
      { numRuns: RUNS },
    );
  });
});
