// Tests the wire metric rules on hand-picked values: the reference fixture's metrics, refused texts, units, and flattening dimensions into bare names.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../../src/core/assert.js';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_METRIC_NAME_LENGTH_MAX, AGENT_POST_METRICS_MAX } from '../../../src/agent/agent-limits.js';
import type { WireDimension, WireMetric, WireMetricType } from '../../../src/agent/protocol/messages.js';
import { flattenMetrics, toResultMetric, typeCodeOf, wireMetric } from '../../../src/agent/protocol/wire-metrics.js';

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function refusedField(action: () => unknown): unknown {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(StrataError);
  expect((error as StrataError).code).toBe('AGENT_PARAMS_INVALID');
  return (error as StrataError).details.field;
}

const m = (t: WireMetricType, v: string, u = 'unknown'): WireMetric => ({ t, v, u });

describe('typeCodeOf', () => {
  it('maps each wire type to its one-letter code', () => {
    const types: WireMetricType[] = ['int32', 'uint32', 'int64', 'uint64', 'double', 'gauge', 'string', 'bool'];
    expect(types.map(typeCodeOf)).toEqual(['i', 'I', 'l', 'L', 'n', 'n', 's', 's']);
  });
});

describe('toResultMetric', () => {
  it('reads the reference fixture values', () => {
    expect(toResultMetric(m('int64', '8338522112', 'bytes'), 'actual_free')).toEqual({ type: 'l', data: 8338522112, unit: 'bytes' });
    expect(toResultMetric(m('double', '0.27'), '15m')).toEqual({ type: 'n', data: 0.27, unit: 'unknown' });
    expect(toResultMetric(m('uint64', '0x1F4'), 'x')).toEqual({ type: 'L', data: 500, unit: 'unknown' });
    expect(toResultMetric(m('int32', '+7'), 'x').data).toBe(7);
    expect(toResultMetric(m('double', '-2.5e-3'), 'x').data).toBe(-0.0025);
    expect(toResultMetric(m('gauge', '.5'), 'x').data).toBe(0.5);
    expect(toResultMetric(m('bool', 'false'), 'x')).toEqual({ type: 's', data: 'false', unit: 'unknown' });
  });

  it('keeps 64-bit integers beyond 2^53 as the nearest double', () => {
    expect(toResultMetric(m('uint64', '18446744073709551615'), 'x').data).toBe(2 ** 64);
    expect(toResultMetric(m('int64', '-9223372036854775808'), 'x').data).toBe(-(2 ** 63));
  });

  it.each([
    ['int32', '2147483648'],
    ['int32', '-2147483649'],
    ['uint32', '-1'],
    ['uint32', '4294967296'],
    ['int64', '9223372036854775808'],
    ['uint64', '0x10000000000000000'],
    ['int32', '1.5'],
    ['int32', ''],
    ['int32', ' 1'],
    ['int32', '0x'],
    ['double', '0x10'],
    ['double', 'NaN'],
    ['double', 'Infinity'],
    ['double', '1e999'],
    ['gauge', '-inf'],
    ['bool', 'yes'],
    ['bool', 'TRUE'],
    ['string', 'x'.repeat(1025)],
  ] as const)('refuses %s value %j naming the value field', (t, v) => {
    expect(refusedField(() => toResultMetric(m(t, v), 'metrics[0][1].x'))).toBe('metrics[0][1].x.v');
  });

  it('refuses a unit longer than the engine takes', () => {
    expect(refusedField(() => toResultMetric(m('int32', '1', 'u'.repeat(65)), 'x'))).toBe('x.u');
  });
});

describe('flattenMetrics', () => {
  it('names metrics bare for a null dimension and `dimension.name` otherwise', () => {
    const dimensions: WireDimension[] = [
      [null, { usage: m('double', '12.5', 'percent') }],
      ['eth0', { rx_bytes: m('uint64', '100', 'bytes') }],
    ];
    expect(flattenMetrics(dimensions)).toEqual({
      usage: { type: 'n', data: 12.5, unit: 'percent' },
      'eth0.rx_bytes': { type: 'L', data: 100, unit: 'bytes' },
    });
  });

  it('keeps a metric named __proto__ as a metric', () => {
    const flat = flattenMetrics([[null, JSON.parse('{"__proto__":{"t":"int32","v":"1","u":""}}') as Record<string, WireMetric>]]);
    expect(Object.keys(flat)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
  });

  it('refuses a name posted twice, across dimensions too', () => {
    expect(refusedField(() => flattenMetrics([[null, { 'a.b': m('int32', '1') }], ['a', { b: m('int32', '2') }]]))).toBe('metrics[1][1].b');
  });

  it('refuses names that are empty, too long or hold control characters (the shape of a dimension is checked by metricsPostParams)', () => {
    expect(refusedField(() => flattenMetrics([[null, { '': m('int32', '1') }]]))).toBe('metrics[0][1].');
    expect(refusedField(() => flattenMetrics([[null, { 'a\u0001': m('int32', '1') }]]))).toBe('metrics[0][1].a\u0001');
    expect(refusedField(() => flattenMetrics([['d', { ['x'.repeat(AGENT_METRIC_NAME_LENGTH_MAX - 1)]: m('int32', '1') }]]))).toBe(`metrics[0][1].${'x'.repeat(AGENT_METRIC_NAME_LENGTH_MAX - 1)}`);
    expect(flattenMetrics([['d', { ['x'.repeat(AGENT_METRIC_NAME_LENGTH_MAX - 2)]: m('int32', '1') }]])).toBeDefined();
  });

  it(`refuses more than ${AGENT_POST_METRICS_MAX} metrics in one post`, () => {
    const many = (from: number, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${from + i}`, m('int32', '1')]));
    expect(Object.keys(flattenMetrics([[null, many(0, 500)], ['d', many(0, 500)]]))).toHaveLength(AGENT_POST_METRICS_MAX);
    expect(refusedField(() => flattenMetrics([[null, many(0, 500)], ['d', many(0, 501)]]))).toBe('metrics');
  });
});

describe('wireMetric', () => {
  it('writes integers in decimal, also beyond 2^53, and doubles as JS text', () => {
    expect(wireMetric('uint64', 2 ** 60, 'bytes')).toEqual({ t: 'uint64', v: '1152921504606846976', u: 'bytes' });
    expect(wireMetric('int32', -5, '')).toEqual({ t: 'int32', v: '-5', u: '' });
    // 2^64-1 and 2^63-1 are not doubles: read from /proc as numbers they round up to 2^64 and 2^63.
    expect(wireMetric('uint64', Number('18446744073709551615'), '').v).toBe('18446744073709551615');
    expect(wireMetric('int64', 2 ** 63, '').v).toBe('9223372036854775807');
    expect(wireMetric('double', 0.1, 'percent').v).toBe('0.1');
    expect(wireMetric('bool', true, '').v).toBe('true');
    expect(wireMetric('string', 42, '').v).toBe('42');
  });

  it('treats values that do not fit their type as programmer errors', () => {
    expect(thrownBy(() => wireMetric('int32', 1.5, ''))).toBeInstanceOf(AssertionFailure);
    expect(thrownBy(() => wireMetric('uint32', -1, ''))).toBeInstanceOf(AssertionFailure);
    expect(thrownBy(() => wireMetric('double', Number.NaN, ''))).toBeInstanceOf(AssertionFailure);
    expect(thrownBy(() => wireMetric('int64', true, ''))).toBeInstanceOf(AssertionFailure);
  });
});
