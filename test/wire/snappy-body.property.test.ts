// Owns the property tests of the snappy body codec: it inverts snappyjs, agrees with it on valid streams, and refuses damaged ones with a code.
import fc from 'fast-check';
import * as snappyjs from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { PROTOCOL_DECODED_BYTES_MAX } from '../../src/wire/protocol-limits.js';
import { snappyDecode, snappyEncode } from '../../src/wire/snappy-body.js';

const RUNS = 1000;

/** Bytes that compress well (repeats, runs) as well as random ones, so copies of every kind appear. */
const compressible = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }),
  fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 200 })), { maxLength: 20 }).map((runs) => {
    const parts = runs.flatMap(([chunk, times]) => Array.from({ length: times }, () => Array.from(chunk)));
    return Uint8Array.from(parts.flat());
  }),
  fc.integer({ min: 0, max: 100_000 }).map((n) => new Uint8Array(n).fill(7)),
);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof StrataError) return e.code;
    throw e;
  }
  return undefined;
}

/** A varint of n, as snappy writes the declared length. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

describe('snappyDecode', () => {
  it('inverts snappyjs.compress and snappyEncode', () => {
    fc.assert(
      fc.property(compressible, (bytes) => {
        expect(Buffer.from(snappyDecode(snappyjs.compress(bytes))).equals(Buffer.from(bytes))).toBe(true);
        expect(Buffer.from(snappyDecode(snappyEncode(bytes))).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('decodes hand-made streams with every element kind, overlapping copies included', () => {
    // "ab" literal, then a 1-byte-offset copy of 6 from 2 back (overlapping), a 2-byte-offset copy, a 4-byte-offset copy.
    const stream = [...varint(2 + 6 + 3 + 2), 0x04, 0x61, 0x62, 0x01 | (2 << 2), 2, 0x02 | (2 << 2), 8, 0, 0x03 | (1 << 2), 3, 0, 0, 0];
    expect(Buffer.from(snappyDecode(Uint8Array.from(stream))).toString('latin1')).toBe('abababab' + 'aba' + 'ab');
    // A literal whose length sits in the next byte (tag 60).
    const long = Array.from({ length: 100 }, (_, i) => i);
    expect(Array.from(snappyDecode(Uint8Array.from([...varint(100), 60 << 2, 99, ...long])))).toEqual(long);
    expect(snappyDecode(Uint8Array.from([0])).length).toBe(0);
  });

  it('refuses every cut of a valid stream with PROTOCOL_BODY_MALFORMED', () => {
    fc.assert(
      fc.property(compressible.filter((b) => b.length > 0 && b.length < 3000), (bytes) => {
        const body = snappyjs.compress(bytes);
        for (let cut = 0; cut < body.length; cut++) expect(codeOf(() => snappyDecode(body.subarray(0, cut))), `cut ${cut}`).toBe('PROTOCOL_BODY_MALFORMED');
      }),
      { numRuns: RUNS / 5 },
    );
  });

  it('decodes a damaged stream to exactly what snappyjs gives when both accept it, or refuses it with a code', () => {
    fc.assert(
      fc.property(compressible, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (bytes, flips) => {
        const body = Uint8Array.from(snappyjs.compress(bytes));
        for (const [at, value] of flips) body[at % body.length] = value;
        let ours: Uint8Array | undefined;
        const code = codeOf(() => {
          ours = snappyDecode(body);
        });
        if (code !== undefined) {
          expect(['PROTOCOL_BODY_MALFORMED', 'PROTOCOL_BODY_TOO_LARGE']).toContain(code);
          return;
        }
        // snappyjs may loop forever on damage we refuse, so it is only asked about streams we accept.
        const theirs = snappyjs.uncompress(body, PROTOCOL_DECODED_BYTES_MAX);
        expect(Buffer.from(ours as Uint8Array).equals(Buffer.from(theirs))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses streams snappyjs mishandles: a negative-looking literal length, too few or too many bytes, a copy from before the start', () => {
    // A 4-byte literal length with its top bit set: snappyjs.uncompress never returns on this one.
    expect(codeOf(() => snappyDecode(Uint8Array.from([10, 63 << 2, 0xf0, 0xff, 0xff, 0xff, 1, 2, 3])))).toBe('PROTOCOL_BODY_MALFORMED');
    // Declares 20 bytes, gives 3 (snappyjs zero-fills the rest).
    expect(codeOf(() => snappyDecode(Uint8Array.from([20, 0x08, 1, 2, 3])))).toBe('PROTOCOL_BODY_MALFORMED');
    // Declares 2 bytes, gives 3 (snappyjs drops one).
    expect(codeOf(() => snappyDecode(Uint8Array.from([2, 0x08, 1, 2, 3])))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => snappyDecode(Uint8Array.from([6, 0x04, 1, 2, 0x01, 3])))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => snappyDecode(Uint8Array.from([6, 0x04, 1, 2, 0x01, 0])))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => snappyDecode(new Uint8Array(0)))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(codeOf(() => snappyDecode(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])))).toBe('PROTOCOL_BODY_MALFORMED');
  });

  it('refuses a declared length above PROTOCOL_DECODED_BYTES_MAX with PROTOCOL_BODY_TOO_LARGE, allocating nothing', () => {
    for (const declared of [PROTOCOL_DECODED_BYTES_MAX + 1, 2 ** 32 - 1]) {
      const before = process.memoryUsage().arrayBuffers;
      let error: unknown;
      try {
        snappyDecode(Uint8Array.from([...varint(declared), 0x00, 0x61]));
      } catch (e) {
        error = e;
      }
      const grownBytes = process.memoryUsage().arrayBuffers - before;
      expect(error).toBeInstanceOf(StrataError);
      expect((error as StrataError).code).toBe('PROTOCOL_BODY_TOO_LARGE');
      expect((error as StrataError).details).toMatchObject({ declaredBytes: declared, limitBytes: PROTOCOL_DECODED_BYTES_MAX });
      expect(grownBytes).toBeLessThan(1024 * 1024);
    }
    // At the limit, a body far too short for its declared length is malformed, found before allocating too.
    const before = process.memoryUsage().arrayBuffers;
    expect(codeOf(() => snappyDecode(Uint8Array.from([...varint(PROTOCOL_DECODED_BYTES_MAX), 0x00, 0x61])))).toBe('PROTOCOL_BODY_MALFORMED');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
  });
});
