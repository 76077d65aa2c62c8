// Owns a bounded cache of decoded chunks, so hot queries skip decompression.
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import type { Resolution } from '../model/resolution.js';
import { decodeBuckets } from '../storage/bucket-codec.js';
import { decodeChunk } from '../storage/chunk-codec.js';
import type { PartitionSet } from '../storage/partition-set.js';

/** Most bytes of decoded columns the cache holds (about 8 bytes per number). */
export const CHUNK_CACHE_BYTES_MAX = 64 * 1024 * 1024;

type Decoded = SampleColumns | BucketColumns | null;

function sizeOf(value: Decoded): number {
  if (value === null) return 64;
  // Samples have 2 columns, buckets 7; strings are rare and counted roughly.
  const columns = 'startsMs' in value ? 7 : 2;
  return 64 + value.length * columns * 8;
}

/** Decoded chunks by resolution, series and chunk start; least recently used go first. */
export class ChunkCache {
  private readonly partitions: PartitionSet;
  private readonly entries = new Map<string, Decoded>();
  private bytes = 0;

  constructor(partitions: PartitionSet) {
    this.partitions = partitions;
  }

  private get(res: Resolution, seriesId: number, chunkStartMs: number): Decoded {
    const key = `${res}:${seriesId}:${chunkStartMs}`;
    let value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert to mark as recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, value);
      return value;
    }
    const bytes = this.partitions.readChunk(res, seriesId, chunkStartMs);
    value = bytes === undefined ? null : res === 'FULL' ? decodeChunk(bytes) : decodeBuckets(bytes);
    this.entries.set(key, value);
    this.bytes += sizeOf(value);
    this.evict();
    return value;
  }

  private evict(): void {
    for (const [key, value] of this.entries) {
      if (this.bytes <= CHUNK_CACHE_BYTES_MAX) return;
      this.entries.delete(key);
      this.bytes -= sizeOf(value);
    }
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
    for (const id of seriesIds) {
      const key = `${res}:${id}:${chunkStartMs}`;
      const value = this.entries.get(key);
      if (value === undefined) continue;
      this.entries.delete(key);
      this.bytes -= sizeOf(value);
    }
  }

  /** Forgets everything of a resolution older than `beforeMs` (dropped partitions). */
  invalidateBefore(res: Resolution, beforeMs: number): void {
    for (const [key, value] of this.entries) {
      const [r, , start] = key.split(':');
      if (r === res && Number(start) < beforeMs) {
        this.entries.delete(key);
        this.bytes -= sizeOf(value);
      }
    }
  }
}
