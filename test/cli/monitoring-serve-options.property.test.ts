// Checks the limit and retention flags of strata serve: name=N lists and durations parse back what was written, bad values are refused, and the flags reach the monitoring options and the server config.
import { Command } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { durationIn, durationText, monitoringOptionsOf, namedIntegers } from '../../src/cli/monitoring-serve-options.js';
import { serveOptions, type ServeOptions } from '../../src/cli/serve-options.js';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import { isRateBucket, RATE_BUCKETS } from '../../src/http/rate-limit.js';
import { isLimitedResource, LIMITED_RESOURCES } from '../../src/monitoring/account/account-limits.js';
import { ACCOUNT_RESOURCE_LIMIT_MAX, AUDIT_RETENTION_MS_MAX, AUDIT_RETENTION_MS_MIN } from '../../src/monitoring/monitoring-limits.js';

function parseServe(args: readonly string[], env: Record<string, string> = {}): ServeOptions {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const command = new Command('serve').exitOverride().configureOutput({ writeErr: () => undefined });
    for (const option of serveOptions()) command.addOption(option);
    command.parse(['node', 'serve', ...args]);
    return command.opts<ServeOptions>();
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: HOUR_MS, d: DAY_MS } as const;
const resourceLimits = namedIntegers(LIMITED_RESOURCES, isLimitedResource, 0, ACCOUNT_RESOURCE_LIMIT_MAX);

describe('monitoring serve flags', () => {
  it('parse back any name=N list they could be given, the last value of a name winning', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...LIMITED_RESOURCES), fc.integer({ min: 0, max: ACCOUNT_RESOURCE_LIMIT_MAX })), { minLength: 1, maxLength: 8 }), (pairs) => {
        const text = pairs.map(([name, n]) => `${name}=${n}`).join(' , ');
        expect(resourceLimits(text)).toEqual(Object.fromEntries(pairs));
      }),
    );
  });

  it('refuse unknown names, values out of range, and malformed items', () => {
    const rates = namedIntegers(RATE_BUCKETS, isRateBucket, 1, 10);
    for (const bad of ['', 'global', 'global=', 'global=0', 'global=11', 'global=1.5', 'global=-1', 'burst=3', 'global=1,,test_check=2', 'global=1=2', 'global=x']) {
      expect(() => rates(bad), bad).toThrow();
    }
    expect(rates('global=10,test_check=1')).toEqual({ global: 10, test_check: 1 });
  });

  it('parse durations with a unit, within their bounds, and durationText parses back', () => {
    const parse = durationIn(1, Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(...(Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[])), (n, unit) => {
        const ms = n * UNIT_MS[unit];
        expect(parse(`${n}${unit}`)).toBe(ms);
        expect(parse(durationText(ms))).toBe(ms);
      }),
    );
    const audit = durationIn(AUDIT_RETENTION_MS_MIN, AUDIT_RETENTION_MS_MAX);
    for (const bad of ['30', '30 days', '1.5d', '-1d', 'd', '59m', '367d', '30D']) expect(() => audit(bad), bad).toThrow();
    expect(audit('1h')).toBe(HOUR_MS);
    expect(audit('366d')).toBe(366 * DAY_MS);
  });

  it('default to 30 days of history and audits and no configured limits; flags and env variables reach the monitoring options and the config', () => {
    const defaults = parseServe([]);
    expect(monitoringOptionsOf(defaults)).toEqual({ historyRetentionMs: 30 * DAY_MS, auditRetentionMs: 30 * DAY_MS });
    expect(defaults.rateLimits).toBeUndefined();
    const given = parseServe(['--account-limits', 'checks=5000', '--account-limits', 'alarms=20000,checks=6000', '--rate-limits', 'test_check=5', '--history-retention', '7d', '--audit-retention', '90d']);
    expect(monitoringOptionsOf(given)).toEqual({ limits: { checks: 6000, alarms: 20000 }, historyRetentionMs: 7 * DAY_MS, auditRetentionMs: 90 * DAY_MS });
    expect(given.rateLimits).toEqual({ test_check: 5 });
    const fromEnv = parseServe([], { STRATA_ACCOUNT_LIMITS: 'entities=3', STRATA_RATE_LIMITS: 'global=100', STRATA_AUDIT_RETENTION: '2d' });
    expect(fromEnv).toMatchObject({ accountLimits: { entities: 3 }, rateLimits: { global: 100 }, auditRetention: 2 * DAY_MS });
    for (const args of [['--history-retention', '10m'], ['--account-limits', 'widgets=3'], ['--rate-limits', 'global=0']]) expect(() => parseServe(args), args.join(' ')).toThrow();
  });
});
