// Checks the rate limit configuration, which routes count in which test bucket, window texts, and windows aligned to UTC days.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { DAY_MS } from '../../src/core/time.js';
import { DEFAULT_RATE_LIMITS, RateLimiter, resolveRateLimits, testBucketOf, testBucketOfRequest, windowText } from '../../src/http/rate-limit.js';
import { DEFAULT_SERVER_CONFIG, resolveServerConfig } from '../../src/http/server-config.js';
import { RATE_LIMIT_MAX } from '../../src/monitoring/monitoring-limits.js';

const P = '/monitoring/v1.0/:tenant';

describe('rate limit configuration', () => {
  it('defaults to the reference limits per 24 hours, and the server config carries them', () => {
    expect(DEFAULT_RATE_LIMITS).toEqual({ global: 50_000, test_check: 500, test_alarm: 500, test_notification: 200 });
    expect(DEFAULT_SERVER_CONFIG.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(resolveServerConfig({ rateLimits: { test_check: 7 } }).rateLimits).toEqual({ ...DEFAULT_RATE_LIMITS, test_check: 7 });
  });

  it('refuses unknown buckets and limits outside 1..RATE_LIMIT_MAX with CONFIG_INVALID naming the bucket', () => {
    for (const bad of [{ global: 0 }, { test_alarm: 2.5 }, { test_check: RATE_LIMIT_MAX + 1 }, { burst: 3 }]) {
      let error: unknown;
      try {
        resolveRateLimits(bad);
      } catch (caught) {
        error = caught;
      }
      expect(isStrataError(error) && error.code, JSON.stringify(bad)).toBe('CONFIG_INVALID');
      expect(String((error as Error).message)).toMatch(/^rateLimits\./);
    }
    expect(() => resolveServerConfig({ rateLimits: { global: -1 } })).toThrow(/rateLimits\.global/);
  });
});

describe('testBucketOf', () => {
  it('puts the check tests, the alarm tests and backtests, and the notification tests in their buckets, and nothing else', () => {
    expect(testBucketOf(`${P}/entities/:entityId/test-check`)).toBe('test_check');
    expect(testBucketOf(`${P}/entities/:entityId/checks/:checkId/test`)).toBe('test_check');
    expect(testBucketOf(`${P}/entities/:entityId/test-alarm`)).toBe('test_alarm');
    expect(testBucketOf(`${P}/entities/:entityId/alarms/:alarmId/backtest`)).toBe('test_alarm');
    expect(testBucketOf(`${P}/notifications/:notificationId/test`)).toBe('test_notification');
    expect(testBucketOf(`${P}/test-notification`)).toBe('test_notification');
    expect(testBucketOf(`${P}/test-notifications`)).toBe('test_notification');
    for (const other of [`${P}/entities`, `${P}/entities/:entityId/checks`, `${P}/entities/:entityId/checks/:checkId`, `${P}/notifications/:notificationId`, `${P}/limits`, '']) {
      expect(testBucketOf(other), other).toBeUndefined();
    }
  });
});

describe('testBucketOfRequest', () => {
  const testAlarm = `${P}/entities/:entityId/test-alarm`;
  const backtest = `${P}/entities/:entityId/alarms/:alarmId/backtest`;

  it('counts a next page of a backtest (a request with a marker) in global only', () => {
    for (const route of [testAlarm, backtest]) {
      expect(testBucketOfRequest(route, {}), route).toBe('test_alarm');
      expect(testBucketOfRequest(route, { from: '1', to: '2', limit: '5' }), route).toBe('test_alarm');
      // An empty marker is no marker (the list routes read it so).
      expect(testBucketOfRequest(route, { marker: '' }), route).toBe('test_alarm');
      expect(testBucketOfRequest(route, undefined), route).toBe('test_alarm');
      expect(testBucketOfRequest(route, { from: '1', to: '2', marker: '100' }), route).toBeUndefined();
      expect(testBucketOfRequest(route, { marker: ['1', '2'] }), route).toBeUndefined();
    }
  });

  it('keeps the other test buckets whatever the query string', () => {
    expect(testBucketOfRequest(`${P}/entities/:entityId/test-check`, { marker: '1' })).toBe('test_check');
    expect(testBucketOfRequest(`${P}/test-notification`, { marker: '1' })).toBe('test_notification');
    expect(testBucketOfRequest(`${P}/entities`, { marker: '1' })).toBeUndefined();
  });
});

describe('RateLimiter windows', () => {
  it('starts every window at a multiple of its length (UTC midnight for a day) and forgets the counts of the window before', () => {
    const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, global: 2 });
    const midnight = 20_000 * DAY_MS;
    expect(limiter.take('t1', undefined, midnight - 1)).toMatchObject({ admitted: true, shown: { used: 1, resetAtMs: midnight } });
    expect(limiter.take('t1', undefined, midnight - 1)).toMatchObject({ admitted: true, shown: { used: 2 } });
    expect(limiter.take('t1', undefined, midnight - 1)).toMatchObject({ admitted: false, refusedBy: { bucket: 'global', used: 2, limit: 2 } });
    expect(limiter.take('t1', undefined, midnight)).toMatchObject({ admitted: true, shown: { used: 1, resetAtMs: midnight + DAY_MS } });
  });

  it('counts the tenants whose live counts it had to forget', () => {
    const limiter = new RateLimiter(DEFAULT_RATE_LIMITS, 1_000, 2);
    for (const tenant of ['a', 'b', 'c']) limiter.take(tenant, undefined, 5_000);
    expect(limiter.size).toBe(2);
    expect(limiter.evicted).toBe(1);
    // Stale counts (an earlier window) go without counting as an eviction.
    limiter.take('d', undefined, 7_000);
    limiter.take('e', undefined, 7_000);
    expect(limiter.evicted).toBe(1);
  });

  it('writes windows as the reference does', () => {
    expect(windowText(DAY_MS)).toBe('24 hours');
    expect(windowText(3_600_000)).toBe('1 hour');
    expect(windowText(90_000)).toBe('90 seconds');
    expect(windowText(1_500)).toBe('1500 milliseconds');
  });
});
