// Owns the histogram of the encodings a store's rows chose: FULL chunks by entropy stage and value scheme, rollup rows by entropy stage and by each stat column's scheme.
import { bucketEncodingOf } from '../src/storage/bucket-codec.js';
import { CHUNK_FORMAT_VERSION, chunkEncodingOf } from '../src/storage/chunk-codec.js';

/** Rows under one key, and their encoded bytes (length of the row's data). */
export interface Tally {
  rows: number;
  bytes: number;
}

/** The stat columns of a bucket row, in the order bucketEncodingOf reports their schemes. */
export const BUCKET_STATS = ['mean', 'm2', 'min', 'max'] as const;
export type BucketStat = (typeof BUCKET_STATS)[number];

/** Key of a column that holds no values (an empty row): its codec reports no scheme. */
const NO_SCHEME = 'empty';

/** The encodings of one store (or of several runs pooled). */
export interface EncodingHistogram {
  /** Every FULL chunk row. */
  readonly full: Tally;
  /** FULL rows per "entropy/value scheme", e.g. "brotli/decimal-exceptions" ("v1 " in front for a format-1 row). */
  readonly fullByEncoding: Record<string, Tally>;
  /** Every row of the five rollup tiers together. */
  readonly rollup: Tally;
  /** Rollup rows per entropy stage, "none" or "brotli" ("v1 " in front for a format-1 row). */
  readonly rollupByEntropy: Record<string, Tally>;
  /** Per stat column, rollup rows per scheme of that column. */
  readonly rollupByStat: Record<BucketStat, Record<string, Tally>>;
  /** Rows whose codec threw: counted rather than fatal, so the run's other results survive; printed. */
  readonly undecodable: Tally;
  /** The first such error's message, or null. */
  firstError: string | null;
}

/** A histogram with nothing counted. */
export function emptyHistogram(): EncodingHistogram {
  return {
    full: { rows: 0, bytes: 0 },
    fullByEncoding: {},
    rollup: { rows: 0, bytes: 0 },
    rollupByEntropy: {},
    rollupByStat: { mean: {}, m2: {}, min: {}, max: {} },
    undecodable: { rows: 0, bytes: 0 },
    firstError: null,
  };
}

function add(tally: Tally, rows: number, bytes: number): void {
  tally.rows += rows;
  tally.bytes += bytes;
}

function addTo(byKey: Record<string, Tally>, key: string, rows: number, bytes: number): void {
  const tally = byKey[key] ?? { rows: 0, bytes: 0 };
  add(tally, rows, bytes);
  byKey[key] = tally;
}

/** "v1 " for a row of a format other than the current one (FULL and rollup rows share the frame version). */
function formatPrefix(format: number): string {
  return format === CHUNK_FORMAT_VERSION ? '' : `v${format} `;
}

function undecodable(histogram: EncodingHistogram, bytes: number, error: unknown): void {
  add(histogram.undecodable, 1, bytes);
  histogram.firstError ??= error instanceof Error ? error.message : String(error);
}

/** Counts one FULL chunk row (decodes it). */
export function countFullRow(histogram: EncodingHistogram, data: Uint8Array): void {
  let key: string;
  try {
    const encoding = chunkEncodingOf(data);
    key = `${formatPrefix(encoding.format)}${encoding.entropy}/${encoding.values ?? NO_SCHEME}`;
  } catch (error) {
    undecodable(histogram, data.length, error);
    return;
  }
  add(histogram.full, 1, data.length);
  addTo(histogram.fullByEncoding, key, 1, data.length);
}

/** Counts one rollup bucket row (decodes it). */
export function countRollupRow(histogram: EncodingHistogram, data: Uint8Array): void {
  let entropyKey: string;
  let stats: readonly (string | undefined)[];
  try {
    const encoding = bucketEncodingOf(data);
    entropyKey = `${formatPrefix(encoding.format)}${encoding.entropy}`;
    stats = encoding.stats;
  } catch (error) {
    undecodable(histogram, data.length, error);
    return;
  }
  add(histogram.rollup, 1, data.length);
  addTo(histogram.rollupByEntropy, entropyKey, 1, data.length);
  BUCKET_STATS.forEach((stat, i) => addTo(histogram.rollupByStat[stat], stats[i] ?? NO_SCHEME, 1, data.length));
}

function mergeInto(target: Record<string, Tally>, source: Readonly<Record<string, Tally>>): void {
  for (const [key, tally] of Object.entries(source)) addTo(target, key, tally.rows, tally.bytes);
}

/** Several histograms pooled (the timed runs of one kind): counts add up. */
export function mergeHistograms(histograms: readonly EncodingHistogram[]): EncodingHistogram {
  const merged = emptyHistogram();
  for (const h of histograms) {
    add(merged.full, h.full.rows, h.full.bytes);
    mergeInto(merged.fullByEncoding, h.fullByEncoding);
    add(merged.rollup, h.rollup.rows, h.rollup.bytes);
    mergeInto(merged.rollupByEntropy, h.rollupByEntropy);
    for (const stat of BUCKET_STATS) mergeInto(merged.rollupByStat[stat], h.rollupByStat[stat]);
    add(merged.undecodable, h.undecodable.rows, h.undecodable.bytes);
    merged.firstError ??= h.firstError;
  }
  return merged;
}

/** One key's share of the rows. */
export interface Share {
  readonly key: string;
  readonly rows: number;
  /** rows / total rows, 0..1 (NaN when there are no rows). */
  readonly share: number;
}

/** The keys of `byKey` with their share of the rows, most rows first (ties by key, so the order is stable). */
export function sharesOf(byKey: Readonly<Record<string, Tally>>): Share[] {
  const entries = Object.entries(byKey);
  const total = entries.reduce((sum, [, t]) => sum + t.rows, 0);
  return entries
    .map(([key, t]) => ({ key, rows: t.rows, share: t.rows / total }))
    .sort((a, b) => b.rows - a.rows || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
