// Properties of the wire metric values: wireMetric then toResultMetric gives the value back, hex parses, and out-of-range or malformed values are always a coded AGENT_PARAMS_INVALID.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { toResultMetric, typeCodeOf, wireMetric } from '../../../src/agent/protocol/wire-metrics.js';
import { WIRE_METRIC_TYPES, type WireMetricType } from '../../../src/agent/protocol/messages.js';

const RANGES = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
} as const;
type IntegerType = keyof typeof RANGES;
const INTEGER_TYPES = Object.keys(RANGES) as IntegerType[];

/** The StrataError `action` throws, or undefined when it returns. */
function refusal(action: () => unknown): unknown {
  try {
    action();
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectParamsInvalid(error: unknown, field: string): void {
  expect(isStrataError(error) && error.code === 'AGENT_PARAMS_INVALID').toBe(true);
  expect(isStrataError(error) && error.details.field).toBe(field);
}

const integerCase = fc.constantFrom(...INTEGER_TYPES).chain((t) => fc.tuple(fc.constant(t), fc.bigInt({ min: RANGES[t][0], max: RANGES[t][1] })));

describe('wire metric properties', () => {
  it('round-trips every integer of each integer type through its decimal wire form', () => {
    fc.assert(
      fc.property(integerCase, ([t, value]) => {
        const safe = value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER);
        const wire = wireMetric(t, safe ? Number(value) : value.toString(), 'bytes');
        expect(wire).toEqual({ t, v: value.toString(), u: 'bytes' });
        // Beyond 2^53 the value is kept as the nearest double.
        expect(toResultMetric(wire, 'm')).toEqual({ type: typeCodeOf(t), data: Number(value), unit: 'bytes' });
      }),
    );
  });

  it('parses 0x hex (either case, signed types with a sign) to the same number as decimal', () => {
    fc.assert(
      fc.property(integerCase, fc.boolean(), ([t, value], upper) => {
        const magnitude = (value < 0n ? -value : value).toString(16);
        const hex = `${value < 0n ? '-' : ''}0x${upper ? magnitude.toUpperCase() : magnitude}`;
        expect(toResultMetric({ t, v: hex, u: '' }, 'm').data).toBe(Number(value));
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (value) => {
        expect(toResultMetric({ t: 'gauge', v: `0x${value.toString(16)}`, u: '' }, 'm')).toEqual({ type: 'n', data: Number(value), unit: '' });
      }),
    );
  });

  it('refuses every integer outside its type range, decimal or hex, naming the field', () => {
    const outside = fc.constantFrom(...INTEGER_TYPES).chain((t) =>
      fc.tuple(fc.constant(t), fc.oneof(fc.bigInt({ min: RANGES[t][1] + 1n, max: RANGES[t][1] * 4n + 4n }), fc.bigInt({ min: -(2n ** 66n), max: RANGES[t][0] - 1n }))),
    );
    fc.assert(
      fc.property(outside, fc.boolean(), ([t, value], hex) => {
        const text = hex ? `${value < 0n ? '-' : ''}0x${(value < 0n ? -value : value).toString(16)}` : value.toString();
        expectParamsInvalid(refusal(() => toResultMetric({ t, v: text, u: 'count' }, 'metrics[0][1].x')), 'metrics[0][1].x.v');
      }),
    );
  });

  it('round-trips every finite double and gauge through its JS text', () => {
    fc.assert(
      fc.property(fc.constantFrom<WireMetricType>('double', 'gauge'), fc.double({ noNaN: true, noDefaultInfinity: true }), (t, value) => {
        const metric = toResultMetric(wireMetric(t, value, 'percent'), 'm');
        expect(metric.type).toBe('n');
        expect(metric.data === value).toBe(true);
      }),
    );
  });

  it('round-trips strings and booleans as type s', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 1024 }), fc.boolean(), (text, flag) => {
        expect(toResultMetric(wireMetric('string', text, ''), 'm')).toEqual({ type: 's', data: text, unit: '' });
        expect(toResultMetric(wireMetric('bool', flag, ''), 'm')).toEqual({ type: 's', data: String(flag), unit: '' });
      }),
    );
  });

  it('either parses any text for any type or refuses it with AGENT_PARAMS_INVALID, never anything else', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WIRE_METRIC_TYPES), fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdefxX+-.eE '), maxLength: 30 })), (t, v) => {
        const error = refusal(() => toResultMetric({ t, v, u: 'u' }, 'f'));
        if (error !== undefined) expectParamsInvalid(error, 'f.v');
        else {
          const data = toResultMetric({ t, v, u: 'u' }, 'f').data;
          if (typeCodeOf(t) !== 's') expect(Number.isFinite(data)).toBe(true);
        }
      }),
    );
  });
});
