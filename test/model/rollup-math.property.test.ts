// Property tests of rollup/rollup-math: rolling up rollups step by step equals rolling up the raw samples.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS, alignDown } from '../../src/core/time.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { ROLLUP_RESOLUTIONS, bucketWidthMs } from '../../src/model/resolution.js';
import { bucketsFromBuckets, bucketsFromSamples, overlayBuckets, sliceBuckets } from '../../src/model/rollup-math.js';

/**
 * Allowed error of mean and variance between the two paths, relative to the bucket's magnitude
 * max(|mean|, max - min) (squared for the variance). Both paths are exact in real arithmetic; this
 * only absorbs rounding, which for a few thousand values is around 1e-13.
 */
const RELATIVE_EPSILON = 1e-9;
/** Absolute slack for values so small (below about 1e-154) that their squares underflow into subnormals. */
const ABSOLUTE_FLOOR = 1e-300;

const SPAN_MS = 4 * DAY_MS;

/** Values of mixed magnitudes, with repeats so that zero variance shows up too. */
const value = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: -1e-6, max: 1e-6, noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 3 }).map((n) => 1e9 + n),
  fc.constant(42),
);

/** Offsets spread over several days plus dense clusters, so buckets hold one to hundreds of samples. */
const offset = fc.oneof(
  fc.integer({ min: 0, max: SPAN_MS - 1 }),
  fc.integer({ min: 0, max: HOUR_MS }).map((o) => DAY_MS + o),
  fc.integer({ min: 0, max: 10 * MINUTE_MS }).map((o) => 3 * DAY_MS - 5 * MINUTE_MS + o),
);

const sample = fc.record({ offsetMs: offset, value, isString: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) });

const sampleSet = fc
  .record({
    baseMs: fc.integer({ min: -DAY_MS * 30, max: 2_000_000_000_000 }),
    list: fc.array(sample, { maxLength: 1500, size: 'max' }),
  })
  .map(({ baseMs, list }): SampleColumns => {
    const byTime = new Map<number, { value: number; isString: boolean }>();
    for (const s of list) if (!byTime.has(baseMs + s.offsetMs)) byTime.set(baseMs + s.offsetMs, s);
    const sorted = [...byTime.entries()].sort(([a], [b]) => a - b);
    const numeric = sorted.filter(([, s]) => !s.isString);
    const strings = sorted.filter(([, s]) => s.isString);
    return {
      length: numeric.length,
      timestampsMs: Float64Array.from(numeric, ([t]) => t),
      values: Float64Array.from(numeric, ([, s]) => s.value),
      strings:
        strings.length === 0
          ? null
          : { length: strings.length, timestampsMs: Float64Array.from(strings, ([t]) => t), values: strings.map(() => 'text') },
    };
  });

/** Where the chained rollup differs from the direct one beyond what the constants allow; empty when they agree. */
function bucketMismatches(chained: BucketColumns, direct: BucketColumns, widthMs: number): string[] {
  if (chained.length !== direct.length) return [`${chained.length} buckets chained, ${direct.length} direct`];
  const problems: string[] = [];
  for (let i = 0; i < direct.length; i++) {
    const start = direct.startsMs[i] as number;
    const at = `bucket ${i} (start ${start}, width ${widthMs})`;
    if (chained.startsMs[i] !== start) problems.push(`${at}: chained start ${chained.startsMs[i]}`);
    if (alignDown(start, widthMs) !== start) problems.push(`${at}: start not aligned`);
    if (i > 0 && start <= (direct.startsMs[i - 1] as number)) problems.push(`${at}: starts do not ascend`);
    for (const key of ['numPoints', 'count'] as const) {
      if (chained[key][i] !== direct[key][i]) problems.push(`${at}: ${key} ${chained[key][i]} vs ${direct[key][i]}`);
    }
    const count = direct.count[i] as number;
    if (count === 0) {
      if (!Number.isNaN(chained.mean[i]) || !Number.isNaN(direct.mean[i])) problems.push(`${at}: stats of no values are not NaN`);
      continue;
    }
    // === treats -0 and 0 as the same extreme, whichever one a path happened to keep.
    for (const key of ['min', 'max'] as const) {
      if (chained[key][i] !== direct[key][i]) problems.push(`${at}: ${key} ${chained[key][i]} vs ${direct[key][i]}`);
    }
    const min = direct.min[i] as number;
    const max = direct.max[i] as number;
    const mean = direct.mean[i] as number;
    const scale = Math.max(Math.abs(mean), max - min, Number.MIN_VALUE);
    const meanError = Math.abs((chained.mean[i] as number) - mean);
    if (!(meanError <= RELATIVE_EPSILON * scale + ABSOLUTE_FLOOR)) problems.push(`${at}: mean off by ${meanError} at scale ${scale}`);
    const varianceError = Math.abs((chained.m2[i] as number) / count - (direct.m2[i] as number) / count);
    if (!(varianceError <= RELATIVE_EPSILON * scale * scale + ABSOLUTE_FLOOR)) {
      problems.push(`${at}: variance off by ${varianceError} at scale ${scale}`);
    }
  }
  return problems;
}

/** numPoints per bucket start, counted one sample at a time: an oracle independent of the code under test. */
function pointsPerBucket(samples: SampleColumns, widthMs: number): Map<number, number> {
  const counts = new Map<number, number>();
  const all = [...samples.timestampsMs, ...(samples.strings?.timestampsMs ?? [])];
  for (const t of all) counts.set(alignDown(t, widthMs), (counts.get(alignDown(t, widthMs)) ?? 0) + 1);
  return counts;
}

describe('rollup math properties', () => {
  it('rolling up FULL → MIN5 → … → MIN1440 step by step equals bucketing the samples at each width', () => {
    fc.assert(
      fc.property(sampleSet, (samples) => {
        let chained = bucketsFromSamples(samples, bucketWidthMs('MIN5'));
        for (const resolution of ROLLUP_RESOLUTIONS) {
          const widthMs = bucketWidthMs(resolution);
          if (resolution !== 'MIN5') chained = bucketsFromBuckets(chained, widthMs);
          expect(bucketMismatches(chained, bucketsFromSamples(samples, widthMs), widthMs)).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('counts every sample exactly once, in the bucket its timestamp aligns down to', () => {
    fc.assert(
      fc.property(sampleSet, fc.constantFrom(...ROLLUP_RESOLUTIONS), (samples, resolution) => {
        const widthMs = bucketWidthMs(resolution);
        const buckets = bucketsFromSamples(samples, widthMs);
        const oracle = pointsPerBucket(samples, widthMs);
        expect(buckets.length).toBe(oracle.size);
        let counted = 0;
        for (let i = 0; i < buckets.length; i++) {
          expect(buckets.numPoints[i]).toBe(oracle.get(buckets.startsMs[i] as number));
          counted += buckets.count[i] as number;
        }
        expect(counted).toBe(samples.length);
      }),
    );
  });

  it('overlaying fresh buckets over a range equals recomputing everything', () => {
    fc.assert(
      fc.property(sampleSet, fc.integer({ min: 0, max: SPAN_MS }), fc.integer({ min: 0, max: DAY_MS }), (samples, a, len) => {
        const widthMs = bucketWidthMs('MIN20');
        const all = bucketsFromSamples(samples, widthMs);
        const first = samples.length > 0 ? (samples.timestampsMs[0] as number) : 0;
        const fromMs = alignDown(first + a - DAY_MS, widthMs);
        const toMs = fromMs + alignDown(len, widthMs);
        const fresh = sliceBuckets(all, fromMs, toMs);
        const stale = overlayBuckets(all, bucketsFromSamples({ ...samples, length: 0, strings: null }, widthMs), fromMs, toMs);
        expect(overlayBuckets(stale, fresh, fromMs, toMs)).toEqual(all);
      }),
    );
  });
});
