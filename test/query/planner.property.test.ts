// Property tests of query/planner: nearest resolution with ties finer, the cap flag, retention steps, served range, coded errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, StrataError } from '../../src/core/errors.js';
import { QUERY_POINTS_MAX } from '../../src/core/limits.js';
import { DAY_MS, alignDown } from '../../src/core/time.js';
import {
  DEFAULT_RETENTION_MS,
  FULL_ASSUMED_INTERVAL_MS,
  RESOLUTIONS,
  bucketWidthMs,
  resolutionIndex,
  type Resolution,
} from '../../src/model/resolution.js';
import { expectedPointsFor, maxRangeMsFor, planQuery, resolutionForPoints } from '../../src/query/planner.js';
import type { QueryRequest } from '../../src/store-types.js';

const retention = DEFAULT_RETENTION_MS;
const base = { tenant: 't1', metric: 'cpu' } as const;

const periodMs = (r: Resolution) => (r === 'FULL' ? FULL_ASSUMED_INTERVAL_MS : bucketWidthMs(r));

/** The reference rule spelled as a minimum: the finest resolution with the smallest truncated distance. */
function nearest(points: number, rangeMs: number): Resolution {
  const diffs = RESOLUTIONS.map((r) => Math.trunc(Math.abs(points - rangeMs / periodMs(r))));
  return RESOLUTIONS[diffs.indexOf(Math.min(...diffs))] as Resolution;
}

const rangeMs = fc.oneof(
  fc.integer({ min: 1, max: DAY_MS }),
  fc.integer({ min: 1, max: 10 * 365 * DAY_MS }),
);
const points = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 2 ** 40 }));
const window = fc.record({
  from: fc.integer({ min: -DAY_MS * 400, max: 4_000_000_000_000 }),
  rangeMs,
  ageMs: fc.oneof(fc.integer({ min: 0, max: 3 * DAY_MS }), fc.integer({ min: 0, max: 20 * 365 * DAY_MS })),
});

describe('planner properties', () => {
  it('picks the resolution nearest to points, ties to the finer', () => {
    fc.assert(fc.property(points, rangeMs, (p, d) => resolutionForPoints(p, d) === nearest(p, d)), { numRuns: 2000 });
  });

  it('steps coarser only while from is past the retention, and no further', () => {
    fc.assert(
      fc.property(points, window, (p, { from, rangeMs: d, ageMs }) => {
        const to = from + d;
        const now = to + ageMs;
        const plan = planQuery({ ...base, from, to, points: p }, now, retention);
        const linear = resolutionForPoints(p, d);
        expect(resolutionIndex(plan.resolution)).toBeGreaterThanOrEqual(resolutionIndex(linear));
        for (let i = resolutionIndex(linear); i < resolutionIndex(plan.resolution); i++) {
          expect(from).toBeLessThan(now - retention[RESOLUTIONS[i] as Resolution]);
        }
        if (plan.resolution !== 'MIN1440') expect(from).toBeGreaterThanOrEqual(now - retention[plan.resolution]);
      }),
      { numRuns: 500 },
    );
  });

  it('never coarsens a resolution given alone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESOLUTIONS), window, (resolution, { from, rangeMs: d, ageMs }) => {
        expect(planQuery({ ...base, from, to: from + d, resolution }, from + d + ageMs, retention).resolution).toBe(resolution);
      }),
    );
  });

  it('flags overLimit exactly when expectedPoints exceeds QUERY_POINTS_MAX, and counts the buckets the range touches', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESOLUTIONS), window, (resolution, { from, rangeMs: d }) => {
        const plan = planQuery({ ...base, from, to: from + d, resolution }, from + d, retention);
        expect(plan.overLimit).toBe(plan.expectedPoints > QUERY_POINTS_MAX);
        if (plan.expectedPoints <= 5000) {
          const width = periodMs(resolution);
          let buckets = 0;
          const first = resolution === 'FULL' ? from : alignDown(from, width);
          for (let start = first; start < from + d; start += width) buckets++;
          expect(plan.expectedPoints).toBe(buckets);
        }
      }),
    );
  });

  it('fits any aligned range of at most maxRangeMsFor within the limit', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESOLUTIONS), fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (r, n, f) => {
        const width = periodMs(r);
        const from = n * width;
        const d = Math.max(1, Math.floor(f * maxRangeMsFor(r)));
        expect(expectedPointsFor(r, from, from + d)).toBeLessThanOrEqual(QUERY_POINTS_MAX);
      }),
    );
  });

  it('serves [servedFrom, to) with servedFrom the later of from and the retention cutoff, at most to', () => {
    fc.assert(
      fc.property(points, window, (p, { from, rangeMs: d, ageMs }) => {
        const to = from + d;
        const now = to + ageMs;
        const plan = planQuery({ ...base, from, to, points: p }, now, retention);
        expect(plan.servedFrom).toBeGreaterThanOrEqual(from);
        expect(plan.servedFrom).toBeLessThanOrEqual(to);
        expect(plan.servedFrom).toBe(Math.min(to, Math.max(from, now - retention[plan.resolution])));
        expect(plan).toMatchObject({ from, to });
      }),
    );
  });

  it('reads from the first served value: FULL at servedFrom, a rollup at the first unexpired bucket start of the range', () => {
    fc.assert(
      fc.property(points, window, (p, { from, rangeMs: d, ageMs }) => {
        const to = from + d;
        const now = to + ageMs;
        const plan = planQuery({ ...base, from, to, points: p }, now, retention);
        const cutoff = now - retention[plan.resolution];
        if (plan.resolution === 'FULL') {
          expect(plan.readFrom).toBe(plan.servedFrom);
          return;
        }
        const width = bucketWidthMs(plan.resolution);
        expect(plan.readFrom).toBeLessThanOrEqual(to);
        if (plan.readFrom < to) {
          // A bucket start, not expired, and no earlier bucket of the range is both.
          expect(Math.floor(plan.readFrom / width) * width).toBe(plan.readFrom);
          expect(plan.readFrom).toBeGreaterThanOrEqual(cutoff);
          expect(plan.readFrom).toBeGreaterThanOrEqual(Math.floor(from / width) * width);
          const earlier = plan.readFrom - width;
          expect(earlier < cutoff || earlier < Math.floor(from / width) * width).toBe(true);
        }
      }),
    );
  });

  it('answers any request with a plan or a StrataError carrying a known code, nothing else', () => {
    const junk = fc.oneof(fc.anything({ withNullPrototype: true, withBigInt: true, withBoxedValues: true }), fc.integer(), fc.double(), fc.string(), fc.constantFrom(...RESOLUTIONS, 'min5', 'MIN10'));
    const request = fc.record(
      { tenant: fc.oneof(fc.constant('t'), junk), metric: fc.oneof(fc.constant('m'), junk), from: junk, to: junk, points: junk, resolution: junk, select: junk },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(request, (r) => {
        try {
          planQuery(r as unknown as QueryRequest, 1_700_000_000_000, retention);
        } catch (error) {
          expect(error).toBeInstanceOf(StrataError);
          expect(Object.keys(ERROR_CODES)).toContain((error as StrataError).code);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('plans any safe-integer range at any safe-integer time without throwing', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.maxSafeInteger(), fc.maxSafeInteger(), points, fc.option(fc.constantFrom(...RESOLUTIONS)), (a, b, now, p, r) => {
        fc.pre(a !== b);
        const request = { ...base, from: Math.min(a, b), to: Math.max(a, b), ...(r === null ? { points: p } : { resolution: r }) };
        const plan = planQuery(request, now, retention);
        expect(plan.overLimit).toBe(plan.expectedPoints > QUERY_POINTS_MAX);
        expect(plan.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('always rejects an invalid range, points or resolution with its code', () => {
    const badBound = fc.oneof(fc.double().filter((x) => !Number.isSafeInteger(x)), fc.string(), fc.constant(null));
    const valid = { ...base, from: 0, to: 1000, points: 10 };
    const cases = fc.oneof(
      badBound.map((from) => [{ ...valid, from }, 'QUERY_RANGE_INVALID'] as const),
      badBound.map((to) => [{ ...valid, to }, 'QUERY_RANGE_INVALID'] as const),
      fc.integer({ min: 0, max: 1e12 }).map((d) => [{ ...valid, from: 1000 + d }, 'QUERY_RANGE_INVALID'] as const),
      fc.oneof(fc.integer({ max: -1 }), fc.double().filter((x) => !Number.isInteger(x)), fc.string()).map(
        (points) => [{ ...valid, points }, 'QUERY_INVALID'] as const,
      ),
      fc.string().filter((s) => !(RESOLUTIONS as readonly string[]).includes(s)).map(
        (resolution) => [{ ...base, from: 0, to: 1000, resolution }, 'QUERY_RESOLUTION_INVALID'] as const,
      ),
      fc.constant([{ ...base, from: 0, to: 1000 }, 'QUERY_POINTS_OR_RESOLUTION_REQUIRED'] as const),
    );
    fc.assert(
      fc.property(cases, ([request, code]) => {
        expect(() => planQuery(request as unknown as QueryRequest, 0, retention)).toThrow(
          expect.objectContaining({ name: 'StrataError', code }),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
