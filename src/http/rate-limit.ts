// Owns the monitoring API's request rate limits: the buckets, their configuration, which routes count in which bucket, and a bounded fixed-window counter per tenant.
import { configError } from '../core/config-error.js';
import { alignDown } from '../core/time.js';
import {
  RATE_LIMIT_GLOBAL_DEFAULT,
  RATE_LIMIT_MAX,
  RATE_LIMIT_TENANTS_MAX,
  RATE_LIMIT_TEST_ALARM_DEFAULT,
  RATE_LIMIT_TEST_CHECK_DEFAULT,
  RATE_LIMIT_TEST_NOTIFICATION_DEFAULT,
  RATE_LIMIT_WINDOW_MS,
} from '../monitoring/monitoring-limits.js';

/** The request buckets, as GET /limits names them under `rate`: every request, and the three kinds of test. */
export const RATE_BUCKETS = ['global', 'test_check', 'test_alarm', 'test_notification'] as const;
/** One bucket of requests with its own limit. */
export type RateBucket = (typeof RATE_BUCKETS)[number];
/** Requests each bucket allows one tenant per window. */
export type RateLimits = Readonly<Record<RateBucket, number>>;

/** The reference's limits per 24 hours. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  global: RATE_LIMIT_GLOBAL_DEFAULT,
  test_check: RATE_LIMIT_TEST_CHECK_DEFAULT,
  test_alarm: RATE_LIMIT_TEST_ALARM_DEFAULT,
  test_notification: RATE_LIMIT_TEST_NOTIFICATION_DEFAULT,
};

/** True when `name` is a rate bucket. */
export function isRateBucket(name: string): name is RateBucket {
  return (RATE_BUCKETS as readonly string[]).includes(name);
}

/** The limits in force: given values over the defaults; CONFIG_INVALID naming `rateLimits.<bucket>` for an unknown bucket or a value not from 1 to RATE_LIMIT_MAX. */
export function resolveRateLimits(given: Partial<Record<string, number>> = {}): RateLimits {
  for (const [name, value] of Object.entries(given)) {
    if (!isRateBucket(name)) throw configError(`rateLimits.${name}`, `one of ${RATE_BUCKETS.join(', ')}`, name);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1 || value > RATE_LIMIT_MAX) throw configError(`rateLimits.${name}`, `an integer from 1 to ${RATE_LIMIT_MAX}`, value);
  }
  const defined = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_RATE_LIMITS, ...(Object.fromEntries(defined) as Partial<RateLimits>) };
}

/**
 * Route patterns (under the tenant) of the test buckets: test-check and the test of a saved check
 * (both run a check now); test-alarm and the alarm backtest (both evaluate an alarm over data);
 * the test of a saved notification and of a notification body (both deliver a message now).
 */
const BUCKET_ROUTES: readonly (readonly [RegExp, RateBucket])[] = [
  [/\/:tenant\/entities\/:[^/]+\/test-check$/, 'test_check'],
  [/\/:tenant\/entities\/:[^/]+\/checks\/:[^/]+\/test$/, 'test_check'],
  [/\/:tenant\/entities\/:[^/]+\/test-alarm$/, 'test_alarm'],
  [/\/:tenant\/entities\/:[^/]+\/alarms\/:[^/]+\/backtest$/, 'test_alarm'],
  [/\/:tenant\/notifications\/:[^/]+\/test$/, 'test_notification'],
  [/\/:tenant\/test-notifications?$/, 'test_notification'],
];

/** The test bucket a route pattern (fastify's `routeOptions.url`) counts in besides `global`, or undefined. */
export function testBucketOf(routeUrl: string): RateBucket | undefined {
  return BUCKET_ROUTES.find(([pattern]) => pattern.test(routeUrl))?.[1];
}

/** True when a query string (as fastify parsed it) carries a marker: a non-empty `marker`, as the list routes read it. */
function carriesMarker(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  const marker = (query as { marker?: unknown }).marker;
  return marker !== undefined && marker !== '';
}

/**
 * The test bucket a request counts in besides `global`: its route's (testBucketOf), except that a
 * request of the test_alarm bucket carrying a marker is the next page of a backtest (test-alarm
 * refuses a marker without a window), already counted by its first page: it counts in `global` only.
 */
export function testBucketOfRequest(routeUrl: string, query: unknown): RateBucket | undefined {
  const bucket = testBucketOf(routeUrl);
  return bucket === 'test_alarm' && carriesMarker(query) ? undefined : bucket;
}

/** A bucket's state for one tenant: what the X-RateLimit headers and GET /limits show. */
export interface BucketUsage {
  readonly bucket: RateBucket;
  readonly limit: number;
  /** Requests counted in the current window (refused ones are not counted). */
  readonly used: number;
  readonly windowMs: number;
  /** When the current window ends and the counts start again from zero. */
  readonly resetAtMs: number;
}

/** The verdict on one request: admitted (counted in every bucket it belongs to) or refused by the first full bucket. */
export type RateVerdict = { readonly admitted: true; readonly shown: BucketUsage } | { readonly admitted: false; readonly refusedBy: BucketUsage };

/** One tenant's counts in one window. */
interface TenantWindow {
  startMs: number;
  readonly used: Record<RateBucket, number>;
}

function emptyCounts(): Record<RateBucket, number> {
  return { global: 0, test_check: 0, test_alarm: 0, test_notification: 0 };
}

/**
 * Fixed-window request counters per tenant and bucket. Windows are aligned to multiples of
 * `windowMs` since the epoch, so every tenant's window resets at the same instant (UTC midnight
 * for a day). The tenants are kept in least-recently-active order, at most `tenantsMax`: past it
 * the least recently active tenant's counts are forgotten, so it may make more requests than its
 * limit in that window but is never refused wrongly. Memory: one small entry per active tenant.
 */
export class RateLimiter {
  private readonly tenants = new Map<string, TenantWindow>();
  /** Tenants whose counts were forgotten to keep the bound. */
  evicted = 0;

  constructor(
    readonly limits: RateLimits,
    readonly windowMs: number = RATE_LIMIT_WINDOW_MS,
    private readonly tenantsMax: number = RATE_LIMIT_TENANTS_MAX,
  ) {}

  /** The tenant's counts in the window of `nowMs` (touching it as most recently active), created empty when missing or stale. */
  private windowOf(tenant: string, nowMs: number): TenantWindow {
    const startMs = alignDown(nowMs, this.windowMs);
    let entry = this.tenants.get(tenant);
    if (entry !== undefined) this.tenants.delete(tenant);
    if (entry === undefined || entry.startMs !== startMs) entry = { startMs, used: emptyCounts() };
    this.tenants.set(tenant, entry);
    while (this.tenants.size > this.tenantsMax) {
      const oldest = this.tenants.keys().next().value as string;
      const stale = (this.tenants.get(oldest) as TenantWindow).startMs !== startMs;
      this.tenants.delete(oldest);
      if (!stale) this.evicted += 1;
    }
    return entry;
  }

  private usageOf(entry: TenantWindow, bucket: RateBucket): BucketUsage {
    return { bucket, limit: this.limits[bucket], used: entry.used[bucket], windowMs: this.windowMs, resetAtMs: entry.startMs + this.windowMs };
  }

  /**
   * Counts one request of the tenant in `global` and in `test` (when given), unless one of them is
   * full: then nothing is counted and the full bucket (the test one first) refuses it. An admitted
   * request is shown with its test bucket, else `global`.
   */
  take(tenant: string, test: RateBucket | undefined, nowMs: number): RateVerdict {
    const entry = this.windowOf(tenant, nowMs);
    const buckets: RateBucket[] = test === undefined || test === 'global' ? ['global'] : [test, 'global'];
    const full = buckets.find((bucket) => entry.used[bucket] >= this.limits[bucket]);
    if (full !== undefined) return { admitted: false, refusedBy: this.usageOf(entry, full) };
    for (const bucket of buckets) entry.used[bucket] += 1;
    return { admitted: true, shown: this.usageOf(entry, buckets[0] as RateBucket) };
  }

  /** Every bucket of the tenant in the window of `nowMs`, without counting anything. */
  usage(tenant: string, nowMs: number): Record<RateBucket, BucketUsage> {
    const startMs = alignDown(nowMs, this.windowMs);
    const held = this.tenants.get(tenant);
    const entry = held !== undefined && held.startMs === startMs ? held : { startMs, used: emptyCounts() };
    return Object.fromEntries(RATE_BUCKETS.map((bucket) => [bucket, this.usageOf(entry, bucket)])) as Record<RateBucket, BucketUsage>;
  }

  /** How many tenants' counts are held. */
  get size(): number {
    return this.tenants.size;
  }
}

/** A window as the reference writes it ("24 hours"), in the largest whole unit. */
export function windowText(windowMs: number): string {
  const units: readonly (readonly [number, string])[] = [
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  const [size, unit] = units.find(([ms]) => windowMs % ms === 0) ?? [1, 'millisecond'];
  const n = windowMs / size;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
