// Owns the pure rollup math: samples into buckets, finer buckets into coarser ones, and splicing bucket columns.
import { AssertionFailure, assert } from '../core/assert.js';
import { alignDown } from '../core/time.js';
import type { BucketColumns, SampleColumns } from './bucket.js';
import { firstAtOrAfter } from './sample-ops.js';

/** Bucket columns being filled: the length grows as buckets are written. */
type MutableBucketColumns = Omit<BucketColumns, 'length'> & { length: number };

const NO_TIMESTAMPS = new Float64Array(0);

function allocateBuckets(capacity: number): MutableBucketColumns {
  return {
    length: 0,
    startsMs: new Float64Array(capacity),
    numPoints: new Float64Array(capacity),
    count: new Float64Array(capacity),
    mean: new Float64Array(capacity),
    m2: new Float64Array(capacity),
    min: new Float64Array(capacity),
    max: new Float64Array(capacity),
  };
}

/** Copies the filled part when the capacity guess was generous, so the spare memory can be freed. */
function finishBuckets(out: MutableBucketColumns): BucketColumns {
  const n = out.length;
  if (n === out.startsMs.length) return out;
  return {
    length: n,
    startsMs: out.startsMs.slice(0, n),
    numPoints: out.numPoints.slice(0, n),
    count: out.count.slice(0, n),
    mean: out.mean.slice(0, n),
    m2: out.m2.slice(0, n),
    min: out.min.slice(0, n),
    max: out.max.slice(0, n),
  };
}

function assertWidth(widthMs: number): void {
  assert(Number.isSafeInteger(widthMs) && widthMs > 0, `bucket width must be a positive integer, got ${widthMs}`);
}

// Kept out of line so the hot loops stay small; input order is a caller's promise, not user input.
function notAscending(timeMs: number): never {
  throw new AssertionFailure(`timestamps must ascend; ${timeMs} arrived after a later one`);
}

/** At most one bucket per input item, and at most one per width over the span: whichever is fewer. */
function bucketCapacity(items: number, firstMs: number, lastMs: number, widthMs: number): number {
  const spanBuckets = (alignDown(lastMs, widthMs) - alignDown(firstMs, widthMs)) / widthMs + 1;
  return Math.max(0, Math.min(items, spanBuckets));
}

/**
 * Buckets of `widthMs` (aligned to multiples of it) over the samples of one series: numPoints
 * counts numeric and string samples, the stats cover numeric ones (Welford). Only non-empty
 * buckets, ascending. One pass over typed arrays with no allocation per sample: this runs on
 * every sealed window, millions of samples a second.
 */
export function bucketsFromSamples(samples: SampleColumns, widthMs: number): BucketColumns {
  assertWidth(widthMs);
  const n = samples.length;
  const ts = samples.timestampsMs;
  const values = samples.values;
  const s = samples.strings === null ? 0 : samples.strings.length;
  const sts = samples.strings === null ? NO_TIMESTAMPS : samples.strings.timestampsMs;
  if (n + s === 0) return allocateBuckets(0);

  const firstMs = Math.min(n > 0 ? (ts[0] as number) : Infinity, s > 0 ? (sts[0] as number) : Infinity);
  const lastMs = Math.max(n > 0 ? (ts[n - 1] as number) : -Infinity, s > 0 ? (sts[s - 1] as number) : -Infinity);
  const capacity = bucketCapacity(n + s, firstMs, lastMs, widthMs);
  const out = allocateBuckets(capacity);

  let i = 0;
  let j = 0;
  let k = 0;
  while (i < n || j < s) {
    const headNumMs = i < n ? (ts[i] as number) : Infinity;
    const headStrMs = j < s ? (sts[j] as number) : Infinity;
    const startMs = alignDown(headNumMs < headStrMs ? headNumMs : headStrMs, widthMs);
    const endMs = startMs + widthMs;

    let count = 0;
    let mean = 0;
    let m2 = 0;
    let min = Infinity;
    let max = -Infinity;
    for (; i < n; i++) {
      const t = ts[i] as number;
      if (t >= endMs) break;
      if (t < startMs) notAscending(t);
      const x = values[i] as number;
      count++;
      const delta = x - mean;
      mean += delta / count;
      m2 += delta * (x - mean);
      if (x < min) min = x;
      if (x > max) max = x;
    }
    let stringCount = 0;
    for (; j < s; j++) {
      const t = sts[j] as number;
      if (t >= endMs) break;
      if (t < startMs) notAscending(t);
      stringCount++;
    }

    assert(k < capacity, 'more buckets than samples: timestamps are not ascending');
    out.startsMs[k] = startMs;
    out.numPoints[k] = count + stringCount;
    out.count[k] = count;
    out.mean[k] = count === 0 ? NaN : mean;
    out.m2[k] = count === 0 ? NaN : m2;
    out.min[k] = count === 0 ? NaN : min;
    out.max[k] = count === 0 ? NaN : max;
    k++;
  }
  out.length = k;
  return finishBuckets(out);
}

/**
 * Coarser buckets of `widthMs` from finer ones, merged exactly as mergeStats does (Chan et al.),
 * with numPoints summed. Each child bucket must lie inside one parent: widthMs a multiple of the
 * child width. Rolling up this way equals rolling up the raw samples, up to rounding.
 */
export function bucketsFromBuckets(child: BucketColumns, widthMs: number): BucketColumns {
  assertWidth(widthMs);
  const n = child.length;
  if (n === 0) return allocateBuckets(0);
  const starts = child.startsMs;
  const capacity = bucketCapacity(n, starts[0] as number, starts[n - 1] as number, widthMs);
  const out = allocateBuckets(capacity);

  let i = 0;
  let k = 0;
  while (i < n) {
    const startMs = alignDown(starts[i] as number, widthMs);
    const endMs = startMs + widthMs;
    let numPoints = 0;
    let count = 0;
    let mean = NaN;
    let m2 = NaN;
    let min = NaN;
    let max = NaN;
    for (; i < n; i++) {
      const t = starts[i] as number;
      if (t >= endMs) break;
      if (t < startMs) notAscending(t);
      numPoints += child.numPoints[i] as number;
      const childCount = child.count[i] as number;
      if (childCount === 0) continue;
      const childMean = child.mean[i] as number;
      if (count === 0) {
        count = childCount;
        mean = childMean;
        m2 = child.m2[i] as number;
        min = child.min[i] as number;
        max = child.max[i] as number;
        continue;
      }
      // Same operation order as mergeStats, so both paths round identically.
      const total = count + childCount;
      const delta = childMean - mean;
      mean = mean + (delta * childCount) / total;
      m2 = m2 + (child.m2[i] as number) + (delta * delta * count * childCount) / total;
      count = total;
      min = Math.min(min, child.min[i] as number);
      max = Math.max(max, child.max[i] as number);
    }

    assert(k < capacity, 'more parent buckets than children: bucket starts are not ascending');
    out.startsMs[k] = startMs;
    out.numPoints[k] = numPoints;
    out.count[k] = count;
    out.mean[k] = mean;
    out.m2[k] = m2;
    out.min[k] = min;
    out.max[k] = max;
    k++;
  }
  out.length = k;
  return finishBuckets(out);
}

/**
 * The buckets whose start lies in [fromMs, toMs). The result shares memory with `buckets`
 * (typed-array views), so slicing costs nothing; copy it before changing either.
 */
export function sliceBuckets(buckets: BucketColumns, fromMs: number, toMs: number): BucketColumns {
  const lo = firstAtOrAfter(buckets.startsMs, buckets.length, fromMs);
  const hi = Math.max(lo, firstAtOrAfter(buckets.startsMs, buckets.length, toMs));
  return {
    length: hi - lo,
    startsMs: buckets.startsMs.subarray(lo, hi),
    numPoints: buckets.numPoints.subarray(lo, hi),
    count: buckets.count.subarray(lo, hi),
    mean: buckets.mean.subarray(lo, hi),
    m2: buckets.m2.subarray(lo, hi),
    min: buckets.min.subarray(lo, hi),
    max: buckets.max.subarray(lo, hi),
  };
}

/**
 * The parts one after another in a fresh set of columns. Every part must start after the
 * previous one ends, so the result stays strictly ascending.
 */
export function concatBuckets(parts: readonly BucketColumns[]): BucketColumns {
  let total = 0;
  let lastStartMs = -Infinity;
  for (const part of parts) {
    if (part.length === 0) continue;
    assert((part.startsMs[0] as number) > lastStartMs, 'concatenated bucket parts must ascend and not overlap');
    lastStartMs = part.startsMs[part.length - 1] as number;
    total += part.length;
  }
  const out = allocateBuckets(total);
  let offset = 0;
  for (const part of parts) {
    const n = part.length;
    if (n === 0) continue;
    out.startsMs.set(part.startsMs.subarray(0, n), offset);
    out.numPoints.set(part.numPoints.subarray(0, n), offset);
    out.count.set(part.count.subarray(0, n), offset);
    out.mean.set(part.mean.subarray(0, n), offset);
    out.m2.set(part.m2.subarray(0, n), offset);
    out.min.set(part.min.subarray(0, n), offset);
    out.max.set(part.max.subarray(0, n), offset);
    offset += n;
  }
  out.length = total;
  return out;
}

/**
 * `base` with its buckets starting in [rangeStartMs, rangeEndMs) replaced by those of `overlay`
 * starting there: how freshly computed buckets (late data, the head) replace stale stored ones.
 * Overlay buckets outside the range are ignored. The result is ascending and freshly allocated.
 */
export function overlayBuckets(
  base: BucketColumns,
  overlay: BucketColumns,
  rangeStartMs: number,
  rangeEndMs: number,
): BucketColumns {
  return concatBuckets([
    sliceBuckets(base, -Infinity, rangeStartMs),
    sliceBuckets(overlay, rangeStartMs, rangeEndMs),
    sliceBuckets(base, Math.max(rangeStartMs, rangeEndMs), Infinity),
  ]);
}
