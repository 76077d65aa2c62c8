// Owns a bounded cache of decoded chunks, so hot queries skip decompression.
import { LRUCache } from 'lru-cache';
import { assert } from '../core/assert.js';
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import type { Resolution } from '../model/resolution.js';
import { decodeBuckets } from '../storage/bucket-codec.js';
import { readFullWindow } from '../storage/full-window.js';
import type { PartitionSet } from '../storage/partition-set.js';

/** Most bytes of decoded columns the cache holds (about 8 bytes per number). */
export const CHUNK_CACHE_BYTES_MAX = 64 * 1024 * 1024;

/** What every entry costs besides its columns (key, entry object, typed-array headers), roughly. */
const ENTRY_OVERHEAD_BYTES = 64;
/** Samples have two number columns (timestamps and values), buckets seven. */
const SAMPLE_COLUMNS = 2;
const BUCKET_COLUMNS = 7;

/** A decoded chunk, or null when none is stored (absence is cached too: queries probe empty windows). */
type Decoded = SampleColumns | BucketColumns | null;

/**
 * One cache entry. lru-cache refuses null values, so absence needs a wrapper; keeping the
 * resolution and chunk start beside the value also lets invalidateBefore skip parsing keys.
 */
interface Entry {
  readonly res: Resolution;
  readonly chunkStartMs: number;
  readonly decoded: Decoded;
}

/**
 * Bytes the cache charges for a decoded chunk: a fixed overhead plus 8 per number, and for string
 * samples 8 for the timestamp plus 2 per UTF-16 code unit (a 1 KiB string is no longer free).
 */
export function decodedBytes(decoded: Decoded): number {
  if (decoded === null) return ENTRY_OVERHEAD_BYTES;
  if ('startsMs' in decoded) return ENTRY_OVERHEAD_BYTES + decoded.length * BUCKET_COLUMNS * 8;
  let bytes = ENTRY_OVERHEAD_BYTES + decoded.length * SAMPLE_COLUMNS * 8;
  if (decoded.strings !== null) for (const s of decoded.strings.values) bytes += 8 + 2 * s.length;
  return bytes;
}

function keyOf(res: Resolution, seriesId: number, chunkStartMs: number): string {
  return `${res}:${seriesId}:${chunkStartMs}`;
}

/**
 * Decoded chunks by resolution, series and chunk start; least recently used go first once the
 * decoded columns would exceed `maxBytes`. A chunk larger than the whole bound is served but not
 * kept. Callers must invalidate chunks they rewrite: the cache never looks at the files again.
 */
export class ChunkCache {
  private readonly partitions: PartitionSet;
  private readonly entries: LRUCache<string, Entry>;

  /** `maxBytes` defaults to CHUNK_CACHE_BYTES_MAX; tests pass smaller bounds to watch eviction. */
  constructor(partitions: PartitionSet, maxBytes: number = CHUNK_CACHE_BYTES_MAX) {
    assert(Number.isSafeInteger(maxBytes) && maxBytes > 0, `chunk cache bound must be a positive integer, got ${maxBytes}`);
    this.partitions = partitions;
    // No `max` (entry count): lru-cache preallocates arrays of that length, and the byte bound
    // already caps the count at maxBytes / ENTRY_OVERHEAD_BYTES.
    this.entries = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (entry) => decodedBytes(entry.decoded) });
  }

  private get(res: Resolution, seriesId: number, chunkStartMs: number): Decoded {
    const key = keyOf(res, seriesId, chunkStartMs);
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit.decoded;
    let decoded: Decoded;
    if (res === 'FULL') {
      decoded = readFullWindow(this.partitions, seriesId, chunkStartMs) ?? null;
    } else {
      const bytes = this.partitions.readChunk(res, seriesId, chunkStartMs);
      decoded = bytes === undefined ? null : decodeBuckets(bytes);
    }
    this.entries.set(key, { res, chunkStartMs, decoded });
    return decoded;
  }

  /** Samples of a stored FULL chunk, or null when none is stored. */
  samples(seriesId: number, chunkStartMs: number): SampleColumns | null {
    return this.get('FULL', seriesId, chunkStartMs) as SampleColumns | null;
  }

  /** Buckets of a stored rollup chunk, or null when none is stored. */
  buckets(res: Resolution, seriesId: number, chunkStartMs: number): BucketColumns | null {
    return this.get(res, seriesId, chunkStartMs) as BucketColumns | null;
  }

  /** Forgets chunks that were rewritten. */
  invalidate(res: Resolution, chunkStartMs: number, seriesIds: readonly number[]): void {
    for (const id of seriesIds) this.entries.delete(keyOf(res, id, chunkStartMs));
  }

  /**
   * Forgets everything of a resolution in [fromMs, toMs) (a partition found damaged: its chunks
   * read earlier must not keep answering while every new read of it fails).
   */
  invalidateRange(res: Resolution, fromMs: number, toMs: number): void {
    const doomed: string[] = [];
    for (const [key, entry] of this.entries.entries()) if (entry.res === res && entry.chunkStartMs >= fromMs && entry.chunkStartMs < toMs) doomed.push(key);
    for (const key of doomed) this.entries.delete(key);
  }

  /** Forgets everything of a resolution older than `beforeMs` (dropped partitions). */
  invalidateBefore(res: Resolution, beforeMs: number): void {
    // Collect first: deleting from lru-cache while one of its iterators is live is not supported.
    const doomed: string[] = [];
    for (const [key, entry] of this.entries.entries()) if (entry.res === res && entry.chunkStartMs < beforeMs) doomed.push(key);
    for (const key of doomed) this.entries.delete(key);
  }
}
