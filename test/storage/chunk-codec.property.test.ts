// Owns the chunk codec's round-trip properties: any valid samples come back bit-exact, with either effort, no larger than XOR would make them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SampleColumns, StringColumns } from '../../src/model/bucket.js';
import { BitWriter } from '../../src/storage/bit-stream.js';
import { CHUNK_FORMAT_VERSION, chunkEncodingOf, decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import type { EncodeEffort } from '../../src/storage/entropy-stage.js';
import { writeTimestamps } from '../../src/storage/timestamp-column.js';
import { writeVarUint } from '../../src/storage/varint.js';
import { writeXorFloats } from '../../src/storage/xor-column.js';
import { columnDifference } from './codec-fixtures.js';
import { adversarialDouble, bitsDifference, COLUMN_LENGTH_MAX, floatColumn } from './float-arbitraries.js';

const EFFORTS: readonly EncodeEffort[] = ['fast', 'compact'];
/** What the chosen value encoding may cost over Gorilla XOR alone: its scheme byte and the byte rounding. */
const XOR_SLACK_BYTES = 2;
/** The frame's version and flags bytes. */
const FRAME_BYTES = 2;

const TIMESTAMP_MAX = 2 ** 52;

const anyTimestamp = fc.integer({ min: -TIMESTAMP_MAX, max: TIMESTAMP_MAX });
const anyFiniteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });

/** Decimal-friendly numbers: k / 10^d, exactly what a parser makes of short decimal text. */
const decimalValue = fc
  .tuple(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 0, max: 9 }))
  .map(([k, d]) => k / 10 ** d);

/** Values that exercise every XOR code: repeats, shared windows, new windows, signs of zero. */
const mixedValue = fc.oneof(anyFiniteDouble, decimalValue, fc.constantFrom(0, -0, 1, 1.5, -2, 1e300, 5e-324));

/** Spacing of real series: regular, jittered, gaps of any size. */
const step = fc.oneof(
  fc.constant(30_000),
  fc.integer({ min: 29_900, max: 30_100 }),
  fc.integer({ min: 1, max: 2 ** 31 }),
  fc.integer({ min: 1, max: 2 ** 40 }),
);

function columns(pairs: ReadonlyArray<readonly [number, number]>): SampleColumns {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  return {
    length: sorted.length,
    timestampsMs: Float64Array.from(sorted, (p) => p[0]),
    values: Float64Array.from(sorted, (p) => p[1]),
    strings: null,
  };
}

/** Regularly spaced-ish samples: a start and steps, and one value per step. */
function spaced(startMs: number, steps: readonly number[], values: readonly number[]): SampleColumns {
  const length = Math.min(steps.length, values.length);
  const timestampsMs = new Float64Array(length);
  let t = startMs;
  for (let i = 0; i < length; i++) {
    timestampsMs[i] = t;
    t += steps[i]!;
  }
  return { length, timestampsMs, values: Float64Array.from(values.slice(0, length)), strings: null };
}

/** Decodes `bytes` and checks every column bit-exactly (Object.is and the raw 64 bits). */
function expectDecodesTo(bytes: Uint8Array, samples: SampleColumns): void {
  const decoded = decodeChunk(bytes);
  const length = samples.length;
  expect(decoded.length).toBe(length);
  expect(columnDifference(decoded.timestampsMs, samples.timestampsMs.subarray(0, length))).toBeNull();
  expect(columnDifference(decoded.values, samples.values.subarray(0, length))).toBeNull();
  expect(bitsDifference(decoded.values, samples.values.subarray(0, length))).toBeNull();
  const strings = samples.strings;
  if (strings === null || strings.length === 0) {
    expect(decoded.strings).toBeNull();
  } else {
    expect(columnDifference(decoded.strings!.timestampsMs, strings.timestampsMs)).toBeNull();
    expect(decoded.strings!.values).toEqual(strings.values);
  }
}

/**
 * Encodes with both efforts and checks: each decodes bit-exactly and reports format 2; 'fast'
 * never compresses; 'compact' is never larger, and uses brotli exactly when that made it smaller
 * (else it is the same bytes). Returns the two encodings.
 */
function expectRoundTrip(samples: SampleColumns): Record<EncodeEffort, Uint8Array> {
  const fast = encodeChunk(samples, 'fast');
  const compact = encodeChunk(samples, 'compact');
  expect(Array.from(encodeChunk(samples))).toEqual(Array.from(fast));
  for (const bytes of [fast, compact]) {
    expectDecodesTo(bytes, samples);
    expect(bytes[0]).toBe(CHUNK_FORMAT_VERSION);
  }
  const fastEncoding = chunkEncodingOf(fast);
  const compactEncoding = chunkEncodingOf(compact);
  expect(fastEncoding.format).toBe(2);
  expect(fastEncoding.entropy).toBe('none');
  expect(compactEncoding.format).toBe(2);
  expect(compact.length).toBeLessThanOrEqual(fast.length);
  if (compactEncoding.entropy === 'none') {
    expect(Array.from(compact)).toEqual(Array.from(fast));
  } else {
    expect(compact.length).toBeLessThan(fast.length);
  }
  // Schemes are named by format 2 only; no numeric sample, no scheme.
  expect(fastEncoding.values === undefined).toBe(samples.length === 0);
  expect(fastEncoding.values).not.toBe('decimal');
  return { fast, compact };
}

/** Bytes of a format-2 chunk of numeric samples whose values are stored as Gorilla XOR alone. */
function xorOnlyChunkBytes(samples: SampleColumns): number {
  const writer = new BitWriter(64);
  writeVarUint(writer, samples.length);
  writeVarUint(writer, 0);
  writeTimestamps(writer, samples.timestampsMs, samples.length);
  writeXorFloats(writer, samples.values, samples.length);
  return FRAME_BYTES + writer.finish().length;
}

/** Regular 30 s samples of `values`, from a start. */
function regular(startMs: number, values: readonly number[]): SampleColumns {
  return spaced(startMs, values.map(() => 30_000), values);
}

describe('chunk codec properties', () => {
  it('round-trips any sorted unique integer timestamps within ±2^52 and any finite doubles', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(anyTimestamp, anyFiniteDouble), { selector: (p) => p[0], maxLength: 300, size: 'max' }), (pairs) => {
        expectRoundTrip(columns(pairs));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips realistic spacing with mixed values', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.array(step, { maxLength: 400, size: 'max' }),
        fc.array(mixedValue, { maxLength: 400, size: 'max' }),
        (startMs, steps, values) => {
          expectRoundTrip(spaced(startMs, steps, values));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips decimal-friendly values: scattered and as walks', () => {
    fc.assert(
      fc.property(fc.array(decimalValue, { maxLength: 400, size: 'max' }), fc.integer({ min: 0, max: 6 }), (values, digits) => {
        expectRoundTrip(spaced(1_700_000_000_000, values.map(() => 30_000), values));
        // A walk in steps of 10^-digits, the shape of a rounded gauge.
        const scale = 10 ** digits;
        let k = Math.round(values[0] ?? 0);
        const walk = values.map((v) => {
          k += Math.round(v) % 1000;
          return k / scale;
        });
        expectRoundTrip(spaced(0, walk.map(() => 10_000), walk));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips string samples next to numeric ones', () => {
    const stringSamples = fc.uniqueArray(fc.tuple(anyTimestamp, fc.string({ unit: 'grapheme', maxLength: 40 })), {
      selector: (p) => p[0],
      maxLength: 30,
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(anyTimestamp, mixedValue), { selector: (p) => p[0], maxLength: 100, size: 'max' }),
        stringSamples,
        (pairs, stringPairs) => {
          const sorted = [...stringPairs].sort((a, b) => a[0] - b[0]);
          const strings: StringColumns = {
            length: sorted.length,
            timestampsMs: Float64Array.from(sorted, (p) => p[0]),
            values: sorted.map((p) => p[1]),
          };
          expectRoundTrip({ ...columns(pairs), strings });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('round-trips columns of 1 to 3000 adversarial doubles with either effort', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), floatColumn, (startMs, values) => {
        expectRoundTrip(regular(startMs, values));
      }),
      { numRuns: 150 },
    );
  });

  it('round-trips adversarial doubles at irregular times', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.array(fc.tuple(step, adversarialDouble), { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
        (startMs, pairs) => {
          expectRoundTrip(
            spaced(
              startMs,
              pairs.map((p) => p[0]),
              pairs.map((p) => p[1]),
            ),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('is never larger than the same chunk with XOR values by more than 2 bytes', () => {
    fc.assert(
      fc.property(fc.oneof(floatColumn, fc.array(adversarialDouble, { minLength: 1, maxLength: 40 })), (values) => {
        const samples = regular(1_700_000_000_000, values);
        const { fast, compact } = expectRoundTrip(samples);
        const xorBytes = xorOnlyChunkBytes(samples);
        expect(fast.length).toBeLessThanOrEqual(xorBytes + XOR_SLACK_BYTES);
        expect(compact.length).toBeLessThanOrEqual(xorBytes + XOR_SLACK_BYTES);
      }),
      { numRuns: 200 },
    );
  });
});
