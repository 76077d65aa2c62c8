// Owns the tests of the format-2 frame: version and flags bytes, the brotli body, and what a damaged or foreign frame gets.
import { brotliCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';
import { BitWriter } from '../../src/storage/bit-stream.js';
import { decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import { FRAME_BODY_BYTES_MAX, FRAME_VERSION, frameBody, openFrame, smallestFrame } from '../../src/storage/entropy-stage.js';
import { writeVarUint } from '../../src/storage/varint.js';
import { randomWalk, seededUint32 } from './codec-fixtures.js';

const FLAGS_PLAIN = 0;
const FLAGS_BROTLI = 1;

/** The bytes an opened frame's reader holds. */
function bodyOf(frame: Uint8Array): Uint8Array {
  const { reader } = openFrame(frame);
  expect(reader.inputBits % 8).toBe(0);
  return reader.readBytes(reader.inputBits / 8).slice();
}

function randomBytes(length: number, seed: number): Uint8Array {
  const next = seededUint32(seed);
  return Uint8Array.from({ length }, () => next() & 0xff);
}

/** A brotli frame by hand: version, flags, the declared length as a varint, then `compressed`. */
function brotliFrame(declaredLength: number, compressed: Uint8Array): Uint8Array {
  const header = new BitWriter(16);
  header.writeBits(FRAME_VERSION, 8);
  header.writeBits(FLAGS_BROTLI, 8);
  writeVarUint(header, declaredLength);
  const head = header.finish();
  const out = new Uint8Array(head.length + compressed.length);
  out.set(head);
  out.set(compressed, head.length);
  return out;
}

function expectCode(action: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(StrataError);
  expect((thrown as StrataError).code).toBe(code);
}

describe('frameBody / openFrame', () => {
  it('prefixes version 2 and flags 0, and opens to the body as it was', () => {
    expect(FRAME_VERSION).toBe(2);
    const body = Uint8Array.from([1, 2, 3, 250]);
    const frame = frameBody(body);
    expect(Array.from(frame)).toEqual([2, FLAGS_PLAIN, 1, 2, 3, 250]);
    expect(openFrame(frame).entropy).toBe('none');
    expect(Array.from(bodyOf(frame))).toEqual([1, 2, 3, 250]);
    expect(Array.from(frameBody(new Uint8Array(0)))).toEqual([2, FLAGS_PLAIN]);
    expect(bodyOf(frameBody(new Uint8Array(0))).length).toBe(0);
  });

  it('refuses to open what is not a format-2 frame', () => {
    for (const version of [0, 1, 3, 255]) expect(() => openFrame(Uint8Array.from([version, 0, 0]))).toThrow(AssertionFailure);
  });
});

describe('smallestFrame', () => {
  it('keeps the plain frame when brotli does not pay', () => {
    const packed = randomBytes(500, 1);
    expect(Array.from(smallestFrame(packed, randomBytes(600, 2)))).toEqual(Array.from(frameBody(packed)));
  });

  it('flags a brotli body and its decompressed length, and opens to that body', () => {
    const packed = new Uint8Array(1000).fill(7);
    const frame = smallestFrame(packed, randomBytes(1000, 3));
    // Version, flags 1, then 1000 as a varint (0xe8 0x07), then the compressed body.
    expect(Array.from(frame.subarray(0, 4))).toEqual([2, FLAGS_BROTLI, 0xe8, 0x07]);
    expect(frame.length).toBeLessThan(100);
    expect(openFrame(frame).entropy).toBe('brotli');
    expect(Array.from(bodyOf(frame))).toEqual(Array.from(packed));
  });

  it('takes the byte layout when it compresses smaller than the packed one', () => {
    const bytes = new Uint8Array(2000).fill(3);
    const frame = smallestFrame(randomBytes(1000, 4), bytes);
    expect(frame[1]).toBe(FLAGS_BROTLI);
    expect(Array.from(bodyOf(frame))).toEqual(Array.from(bytes));
  });

  it('opens to one of its two bodies, never larger than the plain frame', () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 3000, size: 'max' }),
      fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3 })).map(([length, v]) => new Uint8Array(length).fill(v)),
      // Short runs repeated: what brotli finds in a byte-layout body.
      fc
        .array(fc.uint8Array({ minLength: 1, maxLength: 8 }), { maxLength: 300 })
        .map((parts) => Uint8Array.from(parts.flatMap((p) => [...p, ...p, ...p]))),
    );
    fc.assert(
      fc.property(body, body, (packed, bytes) => {
        const frame = smallestFrame(packed, bytes);
        const plain = frameBody(packed);
        expect(frame.length).toBeLessThanOrEqual(plain.length);
        const opened = Array.from(bodyOf(frame));
        if (openFrame(frame).entropy === 'none') {
          expect(Array.from(frame)).toEqual(Array.from(plain));
        } else {
          expect(frame.length).toBeLessThan(plain.length);
          expect([Array.from(packed), Array.from(bytes)]).toContainEqual(opened);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('writes only frames openFrame opens, up to the largest body it accepts', () => {
    const largest = new Uint8Array(FRAME_BODY_BYTES_MAX);
    expect(bodyOf(smallestFrame(largest, largest)).length).toBe(FRAME_BODY_BYTES_MAX);
    // One byte more: brotli still shrinks it to a few KiB, and the frame must still open.
    const over = new Uint8Array(FRAME_BODY_BYTES_MAX + 1);
    const frame = smallestFrame(over, over);
    expect(bodyOf(frame).length).toBe(FRAME_BODY_BYTES_MAX + 1);
  });
});

describe('damaged and foreign frames', () => {
  const body = new Uint8Array(1000).fill(9);
  const compressed = new Uint8Array(brotliCompressSync(body));

  it('opens a hand-made brotli frame whose declared length is right', () => {
    expect(Array.from(bodyOf(brotliFrame(body.length, compressed)))).toEqual(Array.from(body));
  });

  it('refuses a declared length over FRAME_BODY_BYTES_MAX', () => {
    expect(() => openFrame(brotliFrame(FRAME_BODY_BYTES_MAX + 1, compressed))).toThrow(AssertionFailure);
    expect(() => openFrame(brotliFrame(2 ** 53, compressed))).toThrow(AssertionFailure);
    // Nine continuation bytes: no varint the writer makes.
    expect(() => openFrame(Uint8Array.from([2, 1, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1, ...compressed]))).toThrow(AssertionFailure);
  });

  it('refuses a declared length that is not the real one, either way', () => {
    expect(() => openFrame(brotliFrame(body.length + 1, compressed))).toThrow(AssertionFailure);
    expect(() => openFrame(brotliFrame(body.length * 2, compressed))).toThrow(AssertionFailure);
    // Shorter than the real body: refused too (zlib stops at the declared length).
    expect(() => openFrame(brotliFrame(body.length - 1, compressed))).toThrow();
    expect(() => openFrame(brotliFrame(0, compressed))).toThrow();
  });

  it('refuses a truncated or garbled brotli body', () => {
    const frame = brotliFrame(body.length, compressed);
    for (const cut of [1, 3, compressed.length - 1]) expect(() => openFrame(frame.subarray(0, frame.length - cut))).toThrow();
    expect(() => openFrame(Uint8Array.from([2, 1]))).toThrow();
    expect(() => openFrame(brotliFrame(body.length, Uint8Array.from([1, 2, 3, 4, 5])))).toThrow();
  });

  it('raises STORE_SCHEMA_UNSUPPORTED for an unknown flags byte', () => {
    for (const flags of [2, 3, 0x80, 0xff]) {
      expectCode(() => openFrame(Uint8Array.from([2, flags, 0, 0])), 'STORE_SCHEMA_UNSUPPORTED');
    }
    const chunk = encodeChunk(randomWalk({ length: 240, seed: 5, decimals: 2 }));
    chunk[1] = 2;
    expectCode(() => decodeChunk(chunk), 'STORE_SCHEMA_UNSUPPORTED');
    const one = Float64Array.from([1]);
    const row = encodeBuckets({ length: 1, startsMs: Float64Array.from([0]), numPoints: one, count: one, mean: one, m2: one, min: one, max: one });
    row[1] = 0x40;
    expectCode(() => decodeBuckets(row), 'STORE_SCHEMA_UNSUPPORTED');
  });

  it('refuses a truncated compact chunk', () => {
    const bytes = encodeChunk(randomWalk({ length: 2400, seed: 6, decimals: 1 }), 'compact');
    expect(bytes[1]).toBe(FLAGS_BROTLI);
    expect(() => decodeChunk(bytes.subarray(0, bytes.length >>> 1))).toThrow();
    expect(() => decodeChunk(bytes.subarray(0, bytes.length - 1))).toThrow();
  });
});
