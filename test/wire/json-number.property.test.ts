// Owns the property tests of parseJsonNumber: it matches JSON.parse bit for bit, ends where the number ends, refuses non-numbers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonNumber } from '../../src/wire/json-number.js';

const RUNS = 5000;

/** parseJsonNumber on text between `before` and `after` in one buffer: the end relative to text, and the value. */
function parseAt(text: string, before = '', after = ''): { end: number; value: number } {
  const slot = { value: Number.NaN };
  const end = parseJsonNumber(Buffer.from(before + text + after, 'latin1'), before.length, slot);
  return { end: end === -1 ? -1 : end - before.length, value: slot.value };
}

/** Asserts text parses to exactly Number(text), consuming all of it, both alone and embedded mid-buffer. */
function expectExact(text: string): void {
  const alone = parseAt(text);
  expect(alone.end, text).toBe(text.length);
  expect(Object.is(alone.value, Number(text)), `${text} gave ${alone.value}, want ${Number(text)}`).toBe(true);
  const embedded = parseAt(text, '[1,', ']');
  expect(embedded.end, text).toBe(text.length);
  expect(Object.is(embedded.value, alone.value), text).toBe(true);
}

/** The exact value of n·10^scale as a JSON number in scientific form, trailing zeros kept (n > 0). */
function scientific(n: bigint, scale: number): string {
  const digits = n.toString();
  const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${mantissa}e${scale + digits.length - 1}`;
}

/** The midpoint between positive finite x and the next double up (2^1024 above the largest) as n·10^scale. */
function midpointAbove(x: number): { n: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const field = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = field === 0 ? fraction : fraction | (1n << 52n);
  // x = mantissa·2^e and the next double is (mantissa + 1)·2^e, so the midpoint is (2·mantissa + 1)·2^(e-1).
  const e = (field === 0 ? -1074 : field - 1075) - 1;
  const odd = 2n * mantissa + 1n;
  return e >= 0 ? { n: odd << BigInt(e), scale: 0 } : { n: odd * 5n ** BigInt(-e), scale: e };
}

/** Keeps the first `keep` digits of n (scaled accordingly), optionally nudged one unit in the last kept digit. */
function truncated(n: bigint, scale: number, keep: number, nudge: bigint): string {
  const digits = n.toString();
  if (keep >= digits.length) return scientific(n + nudge, scale);
  const head = BigInt(digits.slice(0, keep)) + nudge;
  return scientific(head > 0n ? head : 1n, scale + digits.length - keep);
}

const positiveDouble = fc.oneof(
  fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 1, max: 2 ** 70, noNaN: true }),
  fc.double({ min: 1e-30, max: 1e30, noNaN: true }),
  fc.constantFrom(1, 2 ** 53, 2 ** 63, Number.MIN_VALUE, 2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE),
);

const digitString = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength, maxLength }).map((ds) => ds.join(''));

/** Digit strings with a nonzero first digit and minRest to maxRest more digits. */
const nonzeroLed = (minRest: number, maxRest: number): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: 1, max: 9 }), digitString(minRest, maxRest)).map(([d, rest]) => `${d}${rest}`);

/** Texts built from the RFC 8259 number grammar, biased toward the 15 to 20 significant digits the fast paths split on. */
const grammarNumber = fc
  .record({
    sign: fc.constantFrom('', '-'),
    int: fc.oneof(fc.constant('0'), nonzeroLed(0, 25)),
    frac: fc.option(fc.oneof(digitString(1, 25), fc.tuple(digitString(0, 6), digitString(14, 20)).map(([a, b]) => a + b)), {
      nil: undefined,
    }),
    exp: fc.option(
      fc.record({
        mark: fc.constantFrom('e', 'E'),
        sign: fc.constantFrom('', '+', '-'),
        value: fc.integer({ min: 0, max: 400 }),
        pad: fc.nat(3),
      }),
      { nil: undefined },
    ),
  })
  .map(({ sign, int, frac, exp }) => {
    const fraction = frac === undefined ? '' : `.${frac}`;
    const exponent = exp === undefined ? '' : `${exp.mark}${exp.sign}${'0'.repeat(exp.pad)}${exp.value}`;
    return `${sign}${int}${fraction}${exponent}`;
  });

describe('parseJsonNumber', () => {
  it('reads JSON.stringify of any double back as the identical double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = JSON.stringify(x);
        const { end, value } = parseAt(text, '', ',');
        expect(end).toBe(text.length);
        // JSON.stringify writes -0 as "0", which JSON.parse reads as 0.
        expect(Object.is(value, Object.is(x, -0) ? 0 : x), `${text} gave ${value}`).toBe(true);
        expect(Object.is(value, JSON.parse(text)), text).toBe(true);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('reads doubles printed to 1..21 significant digits, and integers, exactly as Number does', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 21 }), (x, precision) => {
        expectExact(x.toPrecision(precision));
        expectExact(x.toExponential(precision - 1));
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 66n), max: 2n ** 66n }), (n) => expectExact(n.toString())),
      { numRuns: RUNS },
    );
  });

  it('reads any number the grammar allows exactly as Number does', () => {
    fc.assert(fc.property(grammarNumber, expectExact), { numRuns: RUNS * 2 });
  });

  it('reads 16 to 19 significant digits (the Eisel-Lemire range) at any exponent exactly as Number does', () => {
    const mantissa = nonzeroLed(15, 18);
    fc.assert(
      fc.property(mantissa, fc.integer({ min: -380, max: 330 }), fc.nat(18), (digits, exponent, point) => {
        expectExact(`${digits}e${exponent}`);
        expectExact(`${digits.slice(0, point + 1)}.${digits.slice(point + 1)}e${exponent}`.replace(/\.e/, 'e'));
      }),
      { numRuns: RUNS },
    );
  });

  it('rounds decimals at, just below and just above the midpoints between adjacent doubles as Number does', () => {
    fc.assert(
      fc.property(positiveDouble, fc.integer({ min: 15, max: 25 }), fc.boolean(), (x, keep, negative) => {
        const { n, scale } = midpointAbove(x);
        const sign = negative ? '-' : '';
        expectExact(sign + scientific(n, scale));
        expectExact(`${sign}${scientific(n, scale).replace('e', '000e')}`);
        for (const nudge of [-1n, 0n, 1n]) expectExact(sign + truncated(n, scale, keep, nudge));
      }),
      { numRuns: RUNS },
    );
  });

  it('handles zeros, overflow, underflow, huge exponents and long mantissas', () => {
    const texts = [
      '0', '-0', '0.0', '-0.000', '0e0', '-0e-999999999999', '0e99999999999999999999', '1e400', '-1e400', '1e-400', '-1e-400',
      '1e99999999', '1e-99999999', '-1e999999999999999999999', '1e-999999999999999999999', '4.9406564584124654e-324',
      '2.4703282292062327e-324', '2.4703282292062328e-324', '2.2250738585072011e-308', '2.2250738585072012e-308',
      '1.7976931348623157e308', '1.7976931348623158e308', '1.7976931348623159e308', '9007199254740993', '9007199254740995',
      '18446744073709551615', '18446744073709551616', '1e23', '8.41e21', '100.24178458342321', '12.34', '1700000000123',
      `0.${'0'.repeat(400)}1e400`, `1${'0'.repeat(400)}e-400`, `${'9'.repeat(300)}`, `0.${'1'.repeat(500)}`,
      `1.${'0'.repeat(300)}1`, `1${'0'.repeat(30)}`, `123.456${'0'.repeat(40)}`,
    ];
    for (const text of texts) expectExact(text);
  });

  it('refuses bytes that do not start a JSON number', () => {
    for (const text of ['-', '+1', '.5', '1.', '1e', '1e+', '', 'abc', '--1', '-.5', '1.e5', '-e1', '1.5e-', 'e5', ' 1', '-a']) {
      expect(parseAt(text).end, JSON.stringify(text)).toBe(-1);
      expect(parseAt(text, '[', ']').end, JSON.stringify(text)).toBe(-1);
    }
  });

  it('ends the number where the grammar ends it, without looking further', () => {
    const cases: [string, number, number][] = [
      ['12.5,', 4, 12.5], ['01', 1, 0], ['-01.5', 2, -0], ['0.5.5', 3, 0.5], ['1e5e5', 3, 1e5], ['1E+2]', 4, 100],
      ['7}', 1, 7], ['3.25 ', 4, 3.25], ['1e-2x', 4, 0.01], ['00', 1, 0],
    ];
    for (const [text, end, value] of cases) {
      const got = parseAt(text);
      expect(got.end, text).toBe(end);
      expect(Object.is(got.value, value), text).toBe(true);
    }
  });

  it('reads within a subarray view and never past the end of the buffer', () => {
    fc.assert(
      fc.property(grammarNumber, fc.nat(8), (text, offset) => {
        const backing = Buffer.from(`${'x'.repeat(offset)}[${text}9999`, 'latin1');
        // The view ends exactly where the number does, so a read past its end would see the trailing 9s.
        const view = new Uint8Array(backing.buffer, backing.byteOffset + offset, text.length + 1);
        const slot = { value: Number.NaN };
        expect(parseJsonNumber(view, 1, slot)).toBe(text.length + 1);
        expect(Object.is(slot.value, Number(text)), text).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
