// Owns reading one series at any resolution: stored chunks, plus buckets not yet rolled up computed live.
import { alignDown, alignUp } from '../core/time.js';
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import { mergeSamples } from '../model/merge-samples.js';
import { finerOf, LAYOUT, RESOLUTIONS, resolutionIndex, type Resolution, type RollupResolution } from '../model/resolution.js';
import { concatSamples, sliceSamples } from '../model/sample-ops.js';
import { bucketsFromBuckets, bucketsFromSamples, concatBuckets, overlayBuckets, sliceBuckets } from '../model/rollup-math.js';
import type { ChunkCache } from './chunk-cache.js';

/** The head as the reader sees it: recent samples not yet sealed. */
export interface HeadView {
  /** Start times of head windows holding points of the series. */
  windowsOf(seriesId: number): readonly number[];
  /** The head's samples of a series in the window starting at `windowStartMs`. */
  samples(seriesId: number, windowStartMs: number): SampleColumns | undefined;
}

/** Due rollup work as the reader sees it. */
export interface DueView {
  /** Source chunk starts at `sourceRes` whose next coarser rollup is not recomputed yet. */
  windowsOf(sourceRes: Resolution, seriesId: number): Iterable<number>;
}

/** Where a reader gets its data. */
export interface ReaderSources {
  readonly cache: ChunkCache;
  readonly head: HeadView;
  readonly due: DueView;
}

const FULL_CHUNK_MS = LAYOUT.FULL.chunkWidthMs;

/** Samples of a series in [fromMs, toMs): sealed chunks merged with the head (the head wins). */
export function readSamples(src: ReaderSources, seriesId: number, fromMs: number, toMs: number): SampleColumns {
  const parts: SampleColumns[] = [];
  const headWindows = src.head.windowsOf(seriesId);
  for (let w = alignDown(fromMs, FULL_CHUNK_MS); w < toMs; w += FULL_CHUNK_MS) {
    let samples = src.cache.samples(seriesId, w);
    if (headWindows.includes(w)) {
      const fresh = src.head.samples(seriesId, w);
      if (fresh !== undefined) samples = samples === null ? fresh : mergeSamples(samples, fresh);
    }
    if (samples !== null) parts.push(sliceSamples(samples, fromMs, toMs));
  }
  return concatSamples(parts);
}

/** Ranges at which `res` may be stale for a series: due work at any finer level, and the head. */
function staleRanges(src: ReaderSources, res: RollupResolution, seriesId: number, fromMs: number, toMs: number): [number, number][] {
  const widthMs = LAYOUT[res].bucketWidthMs;
  const raw: [number, number][] = [];
  const add = (start: number, width: number): void => {
    const a = Math.max(alignDown(start, widthMs), fromMs);
    const b = Math.min(alignUp(start + width, widthMs), toMs);
    if (a < b) raw.push([a, b]);
  };
  for (const w of src.head.windowsOf(seriesId)) add(w, FULL_CHUNK_MS);
  for (let i = 0; i < resolutionIndex(res); i++) {
    const sourceRes = RESOLUTIONS[i] as Resolution;
    for (const w of src.due.windowsOf(sourceRes, seriesId)) add(w, LAYOUT[sourceRes].chunkWidthMs);
  }
  raw.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const r of raw) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * Buckets of a series at `res` whose start lies in [fromMs, toMs) (fromMs aligned to the bucket
 * width). Stored buckets are used where they are current; where finer data changed and the rollup
 * has not run yet (or the points are still in the head), buckets are computed from the level below,
 * recursively, so a query never waits for the scheduler.
 */
export function readBuckets(src: ReaderSources, res: RollupResolution, seriesId: number, fromMs: number, toMs: number): BucketColumns {
  const chunkMs = LAYOUT[res].chunkWidthMs;
  const parts: BucketColumns[] = [];
  for (let c = alignDown(fromMs, chunkMs); c < toMs; c += chunkMs) {
    const stored = src.cache.buckets(res, seriesId, c);
    if (stored !== null) parts.push(sliceBuckets(stored, fromMs, toMs));
  }
  let buckets = parts.length === 1 ? (parts[0] as BucketColumns) : concatBuckets(parts);
  const widthMs = LAYOUT[res].bucketWidthMs;
  const source = finerOf(res);
  for (const [a, b] of staleRanges(src, res, seriesId, fromMs, toMs)) {
    const fresh =
      source === 'FULL'
        ? bucketsFromSamples(readSamples(src, seriesId, a, b), widthMs)
        : bucketsFromBuckets(readBuckets(src, source as RollupResolution, seriesId, a, b), widthMs);
    buckets = overlayBuckets(buckets, fresh, a, b);
  }
  return buckets;
}
