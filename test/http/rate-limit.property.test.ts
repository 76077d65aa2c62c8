// Checks the fixed-window rate limiter against a plain model: exact counts and refusals per tenant, bucket and window; under its tenant bound it only ever forgets (never refuses wrongly).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignDown } from '../../src/core/time.js';
import { RATE_BUCKETS, RateLimiter, type RateBucket, type RateLimits } from '../../src/http/rate-limit.js';

const WINDOW_MS = 1_000;
const START_MS = 1_790_000_000_000;

interface Step {
  readonly tenant: string;
  readonly test: RateBucket | undefined;
  readonly advanceMs: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  tenant: fc.constantFrom('t1', 't2', 't3', 't4'),
  test: fc.option(fc.constantFrom(...RATE_BUCKETS.filter((b) => b !== 'global')), { nil: undefined }),
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 2_500 })),
});
const limitsArb: fc.Arbitrary<RateLimits> = fc.record({
  global: fc.integer({ min: 1, max: 12 }),
  test_check: fc.integer({ min: 1, max: 5 }),
  test_alarm: fc.integer({ min: 1, max: 5 }),
  test_notification: fc.integer({ min: 1, max: 5 }),
});

/** The model: counts per tenant, window start and bucket, never forgotten. */
class Model {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limits: RateLimits) {}

  private key(tenant: string, nowMs: number, bucket: RateBucket): string {
    return `${tenant}|${alignDown(nowMs, WINDOW_MS)}|${bucket}`;
  }

  used(tenant: string, nowMs: number, bucket: RateBucket): number {
    return this.counts.get(this.key(tenant, nowMs, bucket)) ?? 0;
  }

  take(tenant: string, test: RateBucket | undefined, nowMs: number): RateBucket | undefined {
    const buckets: RateBucket[] = test === undefined ? ['global'] : [test, 'global'];
    const full = buckets.find((bucket) => this.used(tenant, nowMs, bucket) >= this.limits[bucket]);
    if (full === undefined) for (const bucket of buckets) this.counts.set(this.key(tenant, nowMs, bucket), this.used(tenant, nowMs, bucket) + 1);
    return full;
  }
}

describe('RateLimiter', () => {
  it('counts and refuses exactly as the model while every tenant fits its bound', () => {
    fc.assert(
      fc.property(limitsArb, fc.array(stepArb, { maxLength: 200 }), (limits, steps) => {
        const limiter = new RateLimiter(limits, WINDOW_MS, 16);
        const model = new Model(limits);
        let nowMs = START_MS;
        for (const step of steps) {
          nowMs += step.advanceMs;
          const verdict = limiter.take(step.tenant, step.test, nowMs);
          const refusedBy = model.take(step.tenant, step.test, nowMs);
          const shown = verdict.admitted ? verdict.shown : verdict.refusedBy;
          expect(verdict.admitted ? undefined : verdict.refusedBy.bucket).toBe(refusedBy);
          expect(shown.bucket).toBe(refusedBy ?? step.test ?? 'global');
          expect(shown.used).toBe(model.used(step.tenant, nowMs, shown.bucket));
          expect(shown.used).toBeLessThanOrEqual(shown.limit);
          expect(shown.resetAtMs).toBe(alignDown(nowMs, WINDOW_MS) + WINDOW_MS);
          expect(shown.resetAtMs).toBeGreaterThan(nowMs);
          const usage = limiter.usage(step.tenant, nowMs);
          for (const bucket of RATE_BUCKETS) expect(usage[bucket].used).toBe(model.used(step.tenant, nowMs, bucket));
        }
      }),
    );
  });

  it('past its tenant bound it forgets the least recently active tenant: it never refuses what the model admits, and no count passes its limit', () => {
    fc.assert(
      fc.property(limitsArb, fc.integer({ min: 1, max: 3 }), fc.array(stepArb, { maxLength: 200 }), (limits, tenantsMax, steps) => {
        const limiter = new RateLimiter(limits, WINDOW_MS, tenantsMax);
        const model = new Model(limits);
        let nowMs = START_MS;
        for (const step of steps) {
          nowMs += step.advanceMs;
          const verdict = limiter.take(step.tenant, step.test, nowMs);
          const refusedBy = model.take(step.tenant, step.test, nowMs);
          if (!verdict.admitted) expect(refusedBy).toBeDefined();
          expect(limiter.size).toBeLessThanOrEqual(tenantsMax);
          for (const bucket of RATE_BUCKETS) expect(limiter.usage(step.tenant, nowMs)[bucket].used).toBeLessThanOrEqual(limits[bucket]);
        }
      }),
    );
  });
});
