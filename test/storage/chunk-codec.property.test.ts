// Owns the chunk codec's round-trip properties: any valid samples come back bit-exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SampleColumns, StringColumns } from '../../src/model/bucket.js';
import { decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import { columnDifference } from './codec-fixtures.js';

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

function expectRoundTrip(samples: SampleColumns): void {
  const decoded = decodeChunk(encodeChunk(samples));
  expect(decoded.length).toBe(samples.length);
  expect(columnDifference(decoded.timestampsMs, samples.timestampsMs)).toBeNull();
  expect(columnDifference(decoded.values, samples.values)).toBeNull();
  const strings = samples.strings;
  if (strings === null || strings.length === 0) {
    expect(decoded.strings).toBeNull();
  } else {
    expect(columnDifference(decoded.strings!.timestampsMs, strings.timestampsMs)).toBeNull();
    expect(decoded.strings!.values).toEqual(strings.values);
  }
}

describe('chunk codec properties', () => {
  it('round-trips any sorted unique integer timestamps within ±2^52 and any finite doubles', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(anyTimestamp, anyFiniteDouble), { selector: (p) => p[0], maxLength: 300 }), (pairs) =>
        expectRoundTrip(columns(pairs)),
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips realistic spacing with mixed values', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.array(step, { maxLength: 400 }),
        fc.array(mixedValue, { maxLength: 400 }),
        (startMs, steps, values) => expectRoundTrip(spaced(startMs, steps, values)),
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips decimal-friendly values: scattered and as walks', () => {
    fc.assert(
      fc.property(fc.array(decimalValue, { maxLength: 400 }), fc.integer({ min: 0, max: 6 }), (values, digits) => {
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
        fc.uniqueArray(fc.tuple(anyTimestamp, mixedValue), { selector: (p) => p[0], maxLength: 100 }),
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
});
