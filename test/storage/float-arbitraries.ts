// Owns the adversarial doubles and float columns the storage property tests share, and their bit-exact comparison.
import fc from 'fast-check';
import { PACKED_INT_MAGNITUDE_MAX } from '../../src/storage/int-column.js';

/** Longest generated column: more than a 2 h chunk of 30 s samples, many packed blocks of 64. */
export const COLUMN_LENGTH_MAX = 3000;

const bitsScratch = new Float64Array(1);
const bitsWords = new Uint32Array(bitsScratch.buffer);
const bitsBig = new BigUint64Array(bitsScratch.buffer);

/** The 64 bits of a double as an unsigned BigInt (NaN payloads and the sign of zero included). */
export function bitsOf(x: number): bigint {
  bitsScratch[0] = x;
  return bitsBig[0]!;
}

/** The double whose 64 bits are `bits`. */
export function fromBits(bits: bigint): number {
  bitsBig[0] = BigInt.asUintN(64, bits);
  return bitsScratch[0]!;
}

/** The double of two 32-bit halves; NaN patterns come out as the canonical NaN. */
function fromWords(low: number, high: number): number {
  bitsWords[0] = low;
  bitsWords[1] = high;
  const x = bitsScratch[0]!;
  return Number.isNaN(x) ? Number.NaN : x;
}

/** Largest subnormal and smallest normal double, and the normal just above it. */
const LARGEST_SUBNORMAL = fromBits(0x000f_ffff_ffff_ffffn);
const SMALLEST_NORMAL = 2.2250738585072014e-308;
const ABOVE_SMALLEST_NORMAL = fromBits(0x0010_0000_0000_0001n);

/** Doubles that break naive float encoders: signed zeros, subnormals, artefacts, huge integers, non-finite. */
export const ADVERSARIAL_DOUBLES: readonly number[] = [
  0,
  -0,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  2 * Number.MIN_VALUE,
  LARGEST_SUBNORMAL,
  -LARGEST_SUBNORMAL,
  SMALLEST_NORMAL,
  -SMALLEST_NORMAL,
  ABOVE_SMALLEST_NORMAL,
  1e-320,
  1e-308,
  1e-300,
  0.1 + 0.2,
  99.22200000000001,
  0.20199999999999999,
  0.1,
  0.3,
  1 / 3,
  Math.PI,
  0.12345678901234568,
  123456.78901234567,
  2 ** 50,
  2 ** 50 + 1,
  -(2 ** 50),
  2 ** 51,
  2 ** 51 + 1,
  -(2 ** 51),
  2 ** 52,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  2 ** 60,
  -(2 ** 60),
  1e15,
  1e16,
  1e22,
  1e300,
  1e308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.NaN,
];

/** `x` moved by `ulps` bit patterns, or `x` itself when that leaves its sign's half of the patterns. */
export function nudge(x: number, ulps: number): number {
  const bits = bitsOf(x);
  const sign = bits >> 63n;
  const moved = bits + BigInt(ulps);
  if (moved < 0n || moved >= 1n << 64n || moved >> 63n !== sign) return x;
  const y = fromBits(moved);
  return Number.isNaN(y) ? Number.NaN : y;
}

/** Short decimal text as a parser reads it: k / 10^d. */
export const decimalValue = fc
  .tuple(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 0, max: 9 }))
  .map(([k, d]) => k / 10 ** d);

/** A double printed with 17 significant digits: nothing shorter names it. */
export const seventeenDigits = fc
  .tuple(fc.bigInt({ min: 10n ** 16n, max: 10n ** 17n - 1n }), fc.integer({ min: -330, max: 300 }), fc.boolean())
  .map(([m, e, negative]) => Number(`${negative ? '-' : ''}${m}e${e}`));

/** Binary artefacts of decimal arithmetic: sums, products and small ulp nudges of decimals. */
export const artefact = fc.oneof(
  fc.tuple(decimalValue, decimalValue).map(([a, b]) => a + b),
  fc.tuple(decimalValue, fc.constantFrom(1.1, 0.1, 3, 0.7)).map(([a, b]) => a * b),
  fc.tuple(decimalValue, fc.integer({ min: -40, max: 40 })).map(([a, u]) => nudge(a, u)),
  fc.constantFrom(0.1 + 0.2, 99.22200000000001, 0.20199999999999999, 1.1 * 1.1, 0.7 + 0.1),
);

/** Ulp distances around the largest correction the decimal scheme stores (2^20) and far beyond it. */
export const farNudge = fc
  .tuple(decimalValue, fc.constantFrom(2 ** 20 - 1, 2 ** 20, 2 ** 20 + 1, 2 ** 24, 2 ** 40), fc.boolean())
  .map(([a, u, down]) => nudge(a, down ? -u : u));

/** Any 64-bit pattern (NaN canonical): subnormals, huge and tiny magnitudes, both zeros. */
export const anyBits = fc.tuple(fc.nat({ max: 0xffff_ffff }), fc.nat({ max: 0xffff_ffff })).map(([low, high]) => fromWords(low, high));

/** Every kind of troublesome double. */
export const adversarialDouble: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(...ADVERSARIAL_DOUBLES),
  fc.double(),
  seventeenDigits,
  anyBits,
  decimalValue,
  artefact,
  farNudge,
);

const lengthArb = fc.integer({ min: 1, max: COLUMN_LENGTH_MAX });

/** Values dropped at a few positions of an otherwise regular column. */
const oddities = fc.array(fc.tuple(fc.nat(), fc.oneof(artefact, farNudge, fc.constantFrom(...ADVERSARIAL_DOUBLES))), {
  maxLength: 12,
});

function withOddities(values: number[], odd: ReadonlyArray<readonly [number, number]>): number[] {
  for (const [position, value] of odd) values[position % values.length] = value;
  return values;
}

/** A walk of k / 10^d (d 0..6) in steps up to `stepMax`, with a few artefacts and oddities: the decimal-exceptions path. */
export const decimalWalkColumn = fc
  .record({
    digits: fc.integer({ min: 0, max: 6 }),
    start: fc.integer({ min: -(10 ** 9), max: 10 ** 9 }),
    steps: fc.array(fc.integer({ min: -500, max: 500 }), { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
    odd: oddities,
  })
  .map(({ digits, start, steps, odd }) => {
    let k = start;
    const scale = 10 ** digits;
    return withOddities(
      steps.map((s) => (k += s) / scale),
      odd,
    );
  });

/** k / 2^32 + 100 and other binary grids k / 2^p (p up to 70, past the 63 places the binary scheme takes). */
export const binaryGridColumn = fc
  .record({
    places: fc.oneof(fc.constant(32), fc.integer({ min: 1, max: 70 })),
    offset: fc.constantFrom(100, 0, -7),
    start: fc.integer({ min: 0, max: 2 ** 31 }),
    steps: fc.array(fc.integer({ min: -(2 ** 20), max: 2 ** 20 }), { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
    odd: fc.oneof({ weight: 3, arbitrary: fc.constant([] as Array<[number, number]>) }, { weight: 1, arbitrary: oddities }),
  })
  .map(({ places, offset, start, steps, odd }) => {
    let k = start;
    return withOddities(
      steps.map((s) => (k += s) / 2 ** places + offset),
      odd,
    );
  });

/** One double repeated: the constant scheme (NaN, -0 and subnormals included). */
export const constantColumn = fc.tuple(adversarialDouble, lengthArb).map(([v, length]) => new Array<number>(length).fill(v));

/** Integers near and beyond the packed range (2^50 now, 2^51 in format 1) and 2^53, as counters or scattered. */
export const integerColumn = fc
  .record({
    start: fc.constantFrom(
      0,
      1_000_000,
      PACKED_INT_MAGNITUDE_MAX - 1000,
      -PACKED_INT_MAGNITUDE_MAX + 1000,
      2 ** 51 - 1000,
      -(2 ** 51) + 1000,
      2 ** 53,
      -(2 ** 53) - 2,
      2 ** 60,
    ),
    steps: fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: -1000, max: 1000 })), {
      minLength: 1,
      maxLength: COLUMN_LENGTH_MAX,
      size: 'max',
    }),
    odd: oddities,
  })
  .map(({ start, steps, odd }) => {
    let x = start;
    return withOddities(
      steps.map((s) => (x += s)),
      odd,
    );
  });

/**
 * Integers at the edges of the packed range (±PACKED_INT_MAGNITUDE_MAX) and of format 1's (±2^51),
 * in tenths or hundredths too: block ranges of four times the largest magnitude.
 */
export const rangeEdgeColumn = fc
  .tuple(
    fc.array(
      fc.constantFrom(PACKED_INT_MAGNITUDE_MAX, -PACKED_INT_MAGNITUDE_MAX, PACKED_INT_MAGNITUDE_MAX - 1, 2 ** 51, -(2 ** 51), 2 ** 51 - 1, 0, 1),
      { minLength: 1, maxLength: 200 },
    ),
    fc.constantFrom(1, 10, 100),
  )
  .map(([ints, scale]) => ints.map((n) => n / scale));

/** A full-precision random walk: the XOR path. */
export const fullPrecisionColumn = fc
  .tuple(
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
  )
  .map(([start, steps]) => {
    let v = start;
    return steps.map((s) => (v += s));
  });

/** Columns of 1..3000 doubles of every shape above, plus columns of any adversarial doubles. */
export const floatColumn: fc.Arbitrary<number[]> = fc.oneof(
  fc.array(adversarialDouble, { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
  fc.array(fc.oneof(decimalValue, artefact), { minLength: 1, maxLength: COLUMN_LENGTH_MAX, size: 'max' }),
  decimalWalkColumn,
  binaryGridColumn,
  constantColumn,
  integerColumn,
  rangeEdgeColumn,
  fullPrecisionColumn,
);

/**
 * Describes the first element whose 64 bits differ (read through a Uint32Array view of a
 * Float64Array, so -0, NaN and every payload count), or returns null when all are identical.
 * Object.is is checked too: the two views must agree.
 */
export function bitsDifference(actual: ArrayLike<number>, expected: ArrayLike<number>): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  const a = Float64Array.from(actual);
  const e = Float64Array.from(expected);
  const aw = new Uint32Array(a.buffer);
  const ew = new Uint32Array(e.buffer);
  for (let i = 0; i < e.length; i++) {
    const sameWords = aw[2 * i] === ew[2 * i] && aw[2 * i + 1] === ew[2 * i + 1];
    if (!sameWords || !Object.is(a[i], e[i])) {
      const hex = (words: Uint32Array): string =>
        `0x${words[2 * i + 1]!.toString(16).padStart(8, '0')}${words[2 * i]!.toString(16).padStart(8, '0')}`;
      return `element ${i}: ${a[i]} (${hex(aw)}), expected ${e[i]} (${hex(ew)})`;
    }
  }
  return null;
}
