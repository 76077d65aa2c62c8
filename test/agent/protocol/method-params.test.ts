// Tests the method params validators on the reference agent's fixtures and captured messages, the defaults, and every count bound.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_CHECK_PERIOD_S_MAX, AGENT_FEATURES_MAX, AGENT_FIELD_LENGTH_MAX, AGENT_POST_DIMENSIONS_MAX, AGENT_POST_METRICS_MAX, AGENT_SCHEDULE_CHECKS_MAX } from '../../../src/agent/agent-limits.js';
import { helloParams, helloResult, metricsPostParams, scheduleResult } from '../../../src/agent/protocol/method-params.js';

function refused(action: () => unknown): StrataError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }
  throw new Error('expected a throw');
}

// The reference's handshake fixture (tests/fixtures/protocol/handshake.hello.request.json): no features.
const FIXTURE_HELLO = { token: 'MYTOKEN', agent_id: 'MYUID', agent_name: 'Rackspace Monitoring Agent', process_version: '1.0.0', bundle_version: '1.0.0' };

// A check_metrics.post as the 1.x agent sent it (from a published agent log): no units, no min_check_period.
const CAPTURED_POST = {
  timestamp: 1389354509170,
  status: 'success',
  state: 'available',
  check_type: 'agent.load_average',
  metrics: [[null, { '15m': { t: 'double', v: '0.27' }, '5m': { t: 'double', v: '0.33' }, '1m': { t: 'double', v: '0.36' } }]],
  check_id: 'ch96OT6akx',
};

describe('helloParams', () => {
  it('reads the reference fixture, features defaulting to none', () => {
    expect(helloParams(FIXTURE_HELLO)).toEqual({ ...FIXTURE_HELLO, features: [] });
    const features = [{ name: 'upgrades', version: '1.0.0' }];
    expect(helloParams({ ...FIXTURE_HELLO, features }).features).toEqual(features);
  });

  it('refuses more features than AGENT_FEATURES_MAX, an empty token and an over-long field', () => {
    const features = Array.from({ length: AGENT_FEATURES_MAX + 1 }, () => ({ name: 'x', version: '1' }));
    expect(refused(() => helloParams({ ...FIXTURE_HELLO, features })).details).toEqual({ field: 'features' });
    expect(refused(() => helloParams({ ...FIXTURE_HELLO, features: [{ name: 'x' }] })).details).toEqual({ field: 'features[0].version' });
    expect(refused(() => helloParams({ ...FIXTURE_HELLO, token: '' })).details).toEqual({ field: 'token' });
    expect(refused(() => helloParams({ ...FIXTURE_HELLO, agent_name: 'n'.repeat(AGENT_FIELD_LENGTH_MAX + 1) })).details).toEqual({ field: 'agent_name' });
  });

  it('refuses an agent id with other characters than letters, digits, dash and dot as AGENT_TOKEN_INVALID', () => {
    const error = refused(() => helloParams({ ...FIXTURE_HELLO, agent_id: 'web 1' }));
    expect(error.code).toBe('AGENT_TOKEN_INVALID');
    expect(error.kind).toBe('unauthenticated');
  });
});

describe('metricsPostParams', () => {
  it('reads a captured post, giving unitless metrics the unit unknown', () => {
    const post = metricsPostParams(CAPTURED_POST);
    expect(post.metrics).toEqual([[null, { '15m': { t: 'double', v: '0.27', u: 'unknown' }, '5m': { t: 'double', v: '0.33', u: 'unknown' }, '1m': { t: 'double', v: '0.36', u: 'unknown' } }]]);
    expect(post).not.toHaveProperty('min_check_period');
  });

  it('takes a JSON number value as its text and keeps min_check_period', () => {
    const post = metricsPostParams({ ...CAPTURED_POST, metrics: [['cpu0', { usage: { t: 'double', v: 12.5, u: 'percent' } }]], min_check_period: 30_000 });
    expect(post.metrics).toEqual([['cpu0', { usage: { t: 'double', v: '12.5', u: 'percent' } }]]);
    expect(post.min_check_period).toBe(30_000);
  });

  it('refuses too many dimensions, a dimension that is not a pair or names an empty dimension, and a bad min_check_period', () => {
    const dimensions = Array.from({ length: AGENT_POST_DIMENSIONS_MAX + 1 }, (_, i) => [`d${i}`, {}]);
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: dimensions })).details).toEqual({ field: 'metrics' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [['', { a: { t: 'int32', v: '1' } }]] })).details).toEqual({ field: 'metrics[0][0]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [[null, {}], ['', {}]] })).details).toEqual({ field: 'metrics[1][0]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [[null]] })).details).toEqual({ field: 'metrics[0]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [[null, {}, {}]] })).details).toEqual({ field: 'metrics[0]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [[3, {}]] })).details).toEqual({ field: 'metrics[0][0]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, metrics: [[null, []]] })).details).toEqual({ field: 'metrics[0][1]' });
    expect(refused(() => metricsPostParams({ ...CAPTURED_POST, min_check_period: -5 })).details).toEqual({ field: 'min_check_period' });
  });

  it(`leaves counting the metrics to flattenMetrics, which refuses more than ${AGENT_POST_METRICS_MAX} (wire-metrics tests)`, () => {
    const many = Object.fromEntries(Array.from({ length: AGENT_POST_METRICS_MAX }, (_, i) => [`m${i}`, { t: 'int32', v: '1', u: '' }]));
    const post = metricsPostParams({ ...CAPTURED_POST, metrics: [[null, many], ['d', { x: { t: 'int32', v: '1' } }]] });
    expect(post.metrics.map(([, metrics]) => Object.keys(metrics).length)).toEqual([AGENT_POST_METRICS_MAX, 1]);
  });
});

describe('scheduleResult and helloResult', () => {
  it('defaults details to {} and disabled to false, and refuses more than AGENT_SCHEDULE_CHECKS_MAX checks', () => {
    expect(scheduleResult({ checks: [{ id: 'ch1', type: 'agent.cpu', period: 60, timeout: 30 }] })).toEqual({ checks: [{ id: 'ch1', type: 'agent.cpu', details: {}, period: 60, timeout: 30, disabled: false }] });
    const checks = Array.from({ length: AGENT_SCHEDULE_CHECKS_MAX + 1 }, (_, i) => ({ id: `ch${i}`, type: 'agent.cpu', period: 60, timeout: 30 }));
    expect(refused(() => scheduleResult({ checks })).details).toEqual({ field: 'checks' });
  });

  it(`takes a period of 1 to ${AGENT_CHECK_PERIOD_S_MAX} s and a timeout of 1 s to the period, refusing the whole schedule otherwise`, () => {
    const cpu = { id: 'ch1', type: 'agent.cpu', period: 60, timeout: 30 };
    const longest = { ...cpu, period: AGENT_CHECK_PERIOD_S_MAX, timeout: AGENT_CHECK_PERIOD_S_MAX };
    expect(scheduleResult({ checks: [longest, { ...cpu, period: 1, timeout: 1 }] }).checks.map((c) => [c.period, c.timeout])).toEqual([[AGENT_CHECK_PERIOD_S_MAX, AGENT_CHECK_PERIOD_S_MAX], [1, 1]]);
    const cases: [Record<string, unknown>, string][] = [
      [{ period: AGENT_CHECK_PERIOD_S_MAX + 1 }, 'period'],
      [{ period: 2 ** 31 }, 'period'],
      [{ period: 0.5, timeout: 0.5 }, 'period'],
      [{ timeout: 61 }, 'timeout'],
      [{ timeout: 0.999 }, 'timeout'],
    ];
    for (const [change, field] of cases) {
      const error = refused(() => scheduleResult({ checks: [cpu, { ...cpu, id: 'ch2', ...change }] }));
      expect(error.code).toBe('AGENT_PARAMS_INVALID');
      expect(error.details).toEqual({ field: `checks[1].${field}` });
    }
  });

  it('reads the reference fixture reply, entity_id null and channel stable when left out', () => {
    expect(helloResult({ heartbeat_interval: 1000 })).toEqual({ heartbeat_interval: 1000, entity_id: null, channel: 'stable' });
    expect(helloResult({ heartbeat_interval: 30_000, entity_id: 'enAb3dE9xQ', channel: 'beta' })).toEqual({ heartbeat_interval: 30_000, entity_id: 'enAb3dE9xQ', channel: 'beta' });
    expect(refused(() => helloResult({ heartbeat_interval: 1000, entity_id: 5 })).details).toEqual({ field: 'entity_id' });
  });
});
