// Owns the monitoring flags of `strata serve` about limits and retention: --account-limits, --rate-limits, --history-retention and --audit-retention.
import { InvalidArgumentError, Option } from 'commander';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../core/time.js';
import { DEFAULT_RATE_LIMITS, isRateBucket, RATE_BUCKETS, type RateLimits } from '../http/rate-limit.js';
import { DEFAULT_RESOURCE_LIMITS, isLimitedResource, LIMITED_RESOURCES, type ResourceLimits } from '../monitoring/account/account-limits.js';
import type { MonitoringOptions } from '../monitoring/monitoring-service.js';
import {
  ACCOUNT_RESOURCE_LIMIT_MAX,
  AUDIT_RETENTION_MS_DEFAULT,
  AUDIT_RETENTION_MS_MAX,
  AUDIT_RETENTION_MS_MIN,
  NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT,
  NOTIFICATION_HISTORY_RETENTION_MS_MAX,
  NOTIFICATION_HISTORY_RETENTION_MS_MIN,
  RATE_LIMIT_MAX,
} from '../monitoring/monitoring-limits.js';

/** The flags as commander names them. */
export interface MonitoringServeFlags {
  readonly accountLimits?: Partial<ResourceLimits>;
  readonly rateLimits?: Partial<RateLimits>;
  /** How long the notification history and suppression logs are kept, in ms. */
  readonly historyRetention: number;
  /** How long audit records are kept, in ms. */
  readonly auditRetention: number;
}

/** Milliseconds per duration unit. */
const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };
const DURATION = /^(\d{1,12})(ms|s|m|h|d)$/;

/** A parser of a duration such as `30d`, `12h`, `90m`, `3600s` or `500ms` into ms, from `minMs` to `maxMs`. */
export function durationIn(minMs: number, maxMs: number): (text: string) => number {
  return (text) => {
    const match = DURATION.exec(text.trim());
    const ms = match === null ? Number.NaN : Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
    if (!Number.isSafeInteger(ms) || ms < minMs || ms > maxMs) {
      throw new InvalidArgumentError(`expected a duration from ${durationText(minMs)} to ${durationText(maxMs)}, an integer with a unit: ms, s, m, h or d (e.g. 30d)`);
    }
    return ms;
  };
}

/** A duration in its largest whole unit (`30d`), for help texts and messages. */
export function durationText(ms: number): string {
  const unit = ['d', 'h', 'm', 's'].find((name) => ms % (DURATION_UNITS[name] as number) === 0 && ms > 0);
  return unit === undefined ? `${ms}ms` : `${ms / (DURATION_UNITS[unit] as number)}${unit}`;
}

/**
 * A parser of `name=N,name=N` lists whose names pass `isName` and whose values are integers from
 * `min` to `max`; a later flag (or a later entry) for the same name wins, so the flag may repeat.
 */
export function namedIntegers<K extends string>(names: readonly K[], isName: (name: string) => name is K, min: number, max: number) {
  return (text: string, previous: Partial<Record<K, number>> = {}): Partial<Record<K, number>> => {
    const items = text.split(',').map((item) => item.trim());
    if (items.some((item) => item === '')) throw new InvalidArgumentError(`expected comma-separated name=N items, names among ${names.join(', ')}`);
    const parsed: [K, number][] = items.map((item) => {
      const [name = '', value = '', ...extra] = item.split('=').map((part) => part.trim());
      if (!isName(name)) throw new InvalidArgumentError(`${JSON.stringify(name)} is not one of ${names.join(', ')}`);
      const n = Number(value);
      if (extra.length > 0 || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} expects an integer from ${min} to ${max}`);
      return [name, n];
    });
    return { ...previous, ...(Object.fromEntries(parsed) as Partial<Record<K, number>>) };
  };
}

/** `name value` pairs of a limits object, for help texts. */
function listed(limits: Readonly<Record<string, number>>): string {
  return Object.entries(limits).map(([name, value]) => `${name} ${value}`).join(', ');
}

/** The flags; the environment variable of each is STRATA_ plus its name. */
export function monitoringServeOptions(): Option[] {
  return [
    new Option('--account-limits <list>', `most objects one account may hold, e.g. checks=5000,alarms=20000 (repeatable; defaults: ${listed(DEFAULT_RESOURCE_LIMITS)})`)
      .env('STRATA_ACCOUNT_LIMITS')
      .argParser(namedIntegers(LIMITED_RESOURCES, isLimitedResource, 0, ACCOUNT_RESOURCE_LIMIT_MAX)),
    new Option('--rate-limits <list>', `monitoring API requests one account may make per 24 hours, e.g. global=100000,test_check=1000 (repeatable; defaults: ${listed(DEFAULT_RATE_LIMITS)})`)
      .env('STRATA_RATE_LIMITS')
      .argParser(namedIntegers(RATE_BUCKETS, isRateBucket, 1, RATE_LIMIT_MAX)),
    new Option('--history-retention <duration>', 'how long the notification history (with its deliveries) and the suppression logs are kept, e.g. 30d')
      .env('STRATA_HISTORY_RETENTION')
      .default(NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT, durationText(NOTIFICATION_HISTORY_RETENTION_MS_DEFAULT))
      .argParser(durationIn(NOTIFICATION_HISTORY_RETENTION_MS_MIN, NOTIFICATION_HISTORY_RETENTION_MS_MAX)),
    new Option('--audit-retention <duration>', 'how long audit records (GET /audits) are kept, e.g. 90d')
      .env('STRATA_AUDIT_RETENTION')
      .default(AUDIT_RETENTION_MS_DEFAULT, durationText(AUDIT_RETENTION_MS_DEFAULT))
      .argParser(durationIn(AUDIT_RETENTION_MS_MIN, AUDIT_RETENTION_MS_MAX)),
  ];
}

/** The monitoring service's options from the flags (besides its directory and clock). */
export function monitoringOptionsOf(flags: MonitoringServeFlags): Pick<MonitoringOptions, 'limits' | 'historyRetentionMs' | 'auditRetentionMs'> {
  return {
    ...(flags.accountLimits !== undefined ? { limits: flags.accountLimits } : {}),
    historyRetentionMs: flags.historyRetention,
    auditRetentionMs: flags.auditRetention,
  };
}
