// Properties of the method params validators: valid shapes come back as given, a field of the wrong type is refused naming it, and junk is always a coded StrataError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { AGENT_CHECK_PERIOD_S_MAX, AGENT_FEATURES_MAX, AGENT_HEARTBEAT_INTERVAL_MS_MAX, AGENT_HEARTBEAT_INTERVAL_MS_MIN } from '../../../src/agent/agent-limits.js';
import { WIRE_METRIC_TYPES } from '../../../src/agent/protocol/messages.js';
import { heartbeatParams, helloParams, helloResult, metricsPostParams, scheduleResult } from '../../../src/agent/protocol/method-params.js';

const text = fc.string({ maxLength: 30 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 30 });
const agentId = fc.string({ unit: fc.constantFrom(...'abcXYZ019-.'), minLength: 1, maxLength: 60 });
const timestamp = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const positive = fc.oneof(fc.integer({ min: 1, max: 86_400 }), fc.double({ min: 0.001, max: 1e6, noNaN: true }));

const helloArb = fc.record({
  token: nonEmpty,
  agent_id: agentId,
  agent_name: text,
  process_version: text,
  bundle_version: text,
  features: fc.array(fc.record({ name: text, version: text }), { maxLength: AGENT_FEATURES_MAX }),
});
const wireMetricArb = fc.record({ t: fc.constantFrom(...WIRE_METRIC_TYPES), v: text, u: text });
const dimensionArb = fc.tuple(fc.option(nonEmpty, { nil: null }), fc.dictionary(text, wireMetricArb, { maxKeys: 5 }));
const postArb = fc.record(
  {
    check_id: nonEmpty,
    check_type: nonEmpty,
    state: fc.constantFrom('available' as const, 'unavailable' as const),
    status: text,
    metrics: fc.array(dimensionArb, { maxLength: 5 }),
    timestamp,
    min_check_period: positive,
  },
  { requiredKeys: ['check_id', 'check_type', 'state', 'status', 'metrics', 'timestamp'] },
);
/** Seconds from `min` to `max`, whole or not. */
function seconds(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(fc.integer({ min: Math.ceil(min), max: Math.floor(max) }), fc.double({ min, max, noNaN: true }));
}
/** A period of 1 to AGENT_CHECK_PERIOD_S_MAX seconds with a timeout of 1 second to it. */
const periodAndTimeout = seconds(1, AGENT_CHECK_PERIOD_S_MAX).chain((period) => fc.tuple(fc.constant(period), seconds(1, period)));
const scheduledCheckArb = fc
  .record({
    id: nonEmpty,
    type: nonEmpty,
    details: fc.dictionary(text, fc.jsonValue(), { maxKeys: 4 }),
    timing: periodAndTimeout,
    disabled: fc.boolean(),
  })
  .map(({ timing: [period, timeout], ...check }) => ({ ...check, period, timeout }));
const helloResultArb = fc.record({
  heartbeat_interval: fc.integer({ min: AGENT_HEARTBEAT_INTERVAL_MS_MIN, max: AGENT_HEARTBEAT_INTERVAL_MS_MAX }),
  entity_id: fc.option(nonEmpty, { nil: null }),
  channel: nonEmpty,
});

/** The error `action` throws, or 'returned'. */
function outcome(action: () => unknown): unknown {
  try {
    action();
    return 'returned';
  } catch (error) {
    return error;
  }
}

function expectRefused(action: () => unknown, field?: string, code = 'AGENT_PARAMS_INVALID'): void {
  const error = outcome(action);
  expect(isStrataError(error)).toBe(true);
  if (!isStrataError(error)) return;
  expect(error.code).toBe(code);
  expect(typeof error.details.field).toBe('string');
  if (field !== undefined) expect(error.details.field).toBe(field);
}

/** A value of another JSON-ish type than `kind`. */
function wrong(kind: 'string' | 'number' | 'array' | 'object' | 'boolean'): fc.Arbitrary<unknown> {
  return fc.anything().filter((value) => {
    if (kind === 'string') return typeof value !== 'string';
    if (kind === 'number') return typeof value !== 'number';
    if (kind === 'boolean') return typeof value !== 'boolean' && value !== undefined;
    if (kind === 'array') return !Array.isArray(value) && value !== undefined && value !== null;
    return typeof value !== 'object' || value === null || Array.isArray(value);
  });
}

/** Junk: anything but an object holding every one of `keys`. */
function junkWithout(keys: readonly string[]): fc.Arbitrary<unknown> {
  return fc.anything({ withNullPrototype: true }).filter((value) => !(typeof value === 'object' && value !== null && keys.every((key) => key in value)));
}

describe('method params properties', () => {
  it('accepts every valid shape as given, ignoring unknown fields', () => {
    fc.assert(fc.property(helloArb, text, (hello, extra) => {
      expect(helloParams({ ...hello, [`x_${extra}`]: 1 })).toEqual(hello);
    }));
    fc.assert(fc.property(timestamp, (t) => {
      expect(heartbeatParams({ timestamp: t })).toEqual({ timestamp: t });
    }));
    fc.assert(fc.property(postArb, (post) => {
      expect(metricsPostParams({ ...post, entity_id: 'en1' })).toEqual(post);
    }));
    fc.assert(fc.property(fc.array(scheduledCheckArb, { maxLength: 10 }), (checks) => {
      expect(scheduleResult({ checks })).toEqual({ checks });
    }));
    fc.assert(fc.property(helloResultArb, (result) => {
      expect(helloResult(result)).toEqual(result);
    }));
  });

  it('refuses a hello field of the wrong type naming it, and an invalid agent id with AGENT_TOKEN_INVALID', () => {
    const fields = ['token', 'agent_id', 'agent_name', 'process_version', 'bundle_version'] as const;
    fc.assert(fc.property(helloArb, fc.constantFrom(...fields), wrong('string'), (hello, field, junk) => expectRefused(() => helloParams({ ...hello, [field]: junk }), field)));
    fc.assert(fc.property(helloArb, wrong('array'), (hello, junk) => expectRefused(() => helloParams({ ...hello, features: junk }), 'features')));
    const badId = fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 20 }).map((s) => `${s} /`), fc.constant('a'.repeat(256)));
    fc.assert(fc.property(helloArb, badId, (hello, id) => expectRefused(() => helloParams({ ...hello, agent_id: id }), 'agent_id', 'AGENT_TOKEN_INVALID')));
  });

  it('refuses a check_metrics.post field of the wrong type naming it, down to a metric type', () => {
    const stringFields = ['check_id', 'check_type', 'status'] as const;
    fc.assert(fc.property(postArb, fc.constantFrom(...stringFields), wrong('string'), (post, field, junk) => expectRefused(() => metricsPostParams({ ...post, [field]: junk }), field)));
    fc.assert(fc.property(postArb, wrong('array'), (post, junk) => expectRefused(() => metricsPostParams({ ...post, metrics: junk }), 'metrics')));
    fc.assert(fc.property(postArb, fc.oneof(wrong('number'), fc.double().filter((d) => !Number.isSafeInteger(d))), (post, junk) => expectRefused(() => metricsPostParams({ ...post, timestamp: junk }), 'timestamp')));
    fc.assert(fc.property(postArb, fc.anything().filter((s) => s !== 'available' && s !== 'unavailable'), (post, junk) => expectRefused(() => metricsPostParams({ ...post, state: junk }), 'state')));
    fc.assert(
      fc.property(postArb, nonEmpty, fc.anything().filter((t) => !(WIRE_METRIC_TYPES as readonly unknown[]).includes(t)), (post, name, t) => {
        const metrics = [...post.metrics, [null, { [name]: { t, v: '1', u: '' } }]];
        expectRefused(() => metricsPostParams({ ...post, metrics }), `metrics[${post.metrics.length}][1].${name}.t`);
      }),
    );
  });

  it('refuses a schedule check or hello result field of the wrong type naming it', () => {
    fc.assert(
      fc.property(scheduledCheckArb, fc.constantFrom('id', 'type'), wrong('string'), (check, field, junk) => {
        expectRefused(() => scheduleResult({ checks: [check, { ...check, [field]: junk }] }), `checks[1].${field}`);
      }),
    );
    fc.assert(fc.property(scheduledCheckArb, wrong('boolean'), (check, junk) => expectRefused(() => scheduleResult({ checks: [{ ...check, disabled: junk }] }), 'checks[0].disabled')));
    fc.assert(fc.property(scheduledCheckArb, fc.constantFrom('period', 'timeout'), fc.oneof(wrong('number'), fc.constantFrom(0, -1, Number.NaN, Infinity)), (check, field, junk) => expectRefused(() => scheduleResult({ checks: [{ ...check, [field]: junk }] }), `checks[0].${field}`)));
    const badInterval = fc.oneof(wrong('number'), fc.integer({ max: AGENT_HEARTBEAT_INTERVAL_MS_MIN - 1 }), fc.integer({ min: AGENT_HEARTBEAT_INTERVAL_MS_MAX + 1 }), fc.double().filter((d) => !Number.isInteger(d)));
    fc.assert(fc.property(helloResultArb, badInterval, (result, junk) => expectRefused(() => helloResult({ ...result, heartbeat_interval: junk }), 'heartbeat_interval')));
  });

  it('refuses the whole schedule when any check has a period outside 1..AGENT_CHECK_PERIOD_S_MAX s or a timeout outside 1 s..its period', () => {
    const below = fc.oneof(fc.double({ max: 1, maxExcluded: true, noNaN: true }), fc.integer({ max: 0 }));
    const badPeriod = fc.oneof(below, fc.double({ min: AGENT_CHECK_PERIOD_S_MAX, minExcluded: true, noNaN: true }), fc.integer({ min: AGENT_CHECK_PERIOD_S_MAX + 1 }));
    const checks = fc.array(scheduledCheckArb, { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(checks, fc.nat(), badPeriod, (valid, at, period) => {
        const index = at % valid.length;
        const bad = valid.map((check, i) => (i === index ? { ...check, period } : check));
        expectRefused(() => scheduleResult({ checks: bad }), `checks[${index}].period`);
      }),
    );
    fc.assert(
      fc.property(checks, fc.nat(), fc.boolean(), below, fc.double({ min: 0, minExcluded: true, noNaN: true }), (valid, at, under, low, over) => {
        const index = at % valid.length;
        const check = valid[index] as (typeof valid)[number];
        // Below 1 s, or above the check's own period (by any positive amount that still changes the double).
        const timeout = under ? low : check.period + over;
        fc.pre(under || timeout > check.period);
        const bad = valid.map((c, i) => (i === index ? { ...c, timeout } : c));
        expectRefused(() => scheduleResult({ checks: bad }), `checks[${index}].timeout`);
      }),
    );
  });

  it('refuses junk with a coded StrataError naming a field, never anything else', () => {
    fc.assert(fc.property(junkWithout(['token', 'agent_id', 'agent_name', 'process_version', 'bundle_version']), (junk) => expectRefused(() => helloParams(junk))));
    fc.assert(fc.property(junkWithout(['timestamp']), (junk) => expectRefused(() => heartbeatParams(junk))));
    fc.assert(fc.property(junkWithout(['check_id', 'check_type', 'state', 'status', 'metrics', 'timestamp']), (junk) => expectRefused(() => metricsPostParams(junk))));
    fc.assert(fc.property(junkWithout(['checks']), (junk) => expectRefused(() => scheduleResult(junk))));
    fc.assert(fc.property(junkWithout(['heartbeat_interval']), (junk) => expectRefused(() => helloResult(junk))));
  });
});
