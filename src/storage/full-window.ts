// Owns reading one FULL window of a series as stored: its window chunk merged over the partition's compacted chunk.
import type { SampleColumns } from '../model/bucket.js';
import { LAYOUT } from '../model/resolution.js';
import { mergeSamples } from '../model/merge-samples.js';
import { sliceSamples } from '../model/sample-ops.js';
import { decodeChunk } from './chunk-codec.js';
import { partitionStartOf, type PartitionSet } from './partition-set.js';

const FULL_CHUNK_MS = LAYOUT.FULL.chunkWidthMs;

/**
 * The stored samples of a series in the FULL window starting at `windowStartMs`, or undefined
 * when nothing is stored. A compacted partition holds the series in one chunk (COMPACTED_SLOT);
 * a window chunk next to it holds what was sealed after the compaction and wins per timestamp,
 * as a newer seal always does. Sealing, rollups and queries all read windows through here.
 */
export function readFullWindow(partitions: PartitionSet, seriesId: number, windowStartMs: number): SampleColumns | undefined {
  const own = partitions.readChunk('FULL', seriesId, windowStartMs);
  const compacted = partitions.readCompacted('FULL', seriesId, partitionStartOf('FULL', windowStartMs));
  return windowOf(own, compacted, windowStartMs);
}

/**
 * readFullWindow of each of these series (by position), reading the partition file once: a seal
 * step reads the stored window of every series it writes, and one read each cost more than the
 * lookups themselves (see PartitionSet.readWindowChunks).
 */
export function readFullWindows(partitions: PartitionSet, seriesIds: readonly number[], windowStartMs: number): (SampleColumns | undefined)[] {
  const { own, compacted } = partitions.readWindowChunks('FULL', windowStartMs, seriesIds);
  return own.map((bytes, k) => (bytes === undefined && compacted?.[k] === undefined ? undefined : windowOf(bytes, compacted?.[k], windowStartMs)));
}

/** The window from its stored rows: the window chunk over the window's part of the compacted one. */
function windowOf(own: Uint8Array | undefined, compacted: Uint8Array | undefined, windowStartMs: number): SampleColumns | undefined {
  if (compacted === undefined) return own === undefined ? undefined : decodeChunk(own);
  // A copy, not a view: a cached window must not keep the whole partition's columns alive.
  const older = copySamples(sliceSamples(decodeChunk(compacted), windowStartMs, windowStartMs + FULL_CHUNK_MS));
  if (own === undefined) return older.length + (older.strings?.length ?? 0) === 0 ? undefined : older;
  return mergeSamples(older, decodeChunk(own));
}

function copySamples(s: SampleColumns): SampleColumns {
  const strings = s.strings === null ? null : { length: s.strings.length, timestampsMs: s.strings.timestampsMs.slice(0, s.strings.length), values: s.strings.values.slice(0, s.strings.length) };
  return { length: s.length, timestampsMs: s.timestampsMs.slice(0, s.length), values: s.values.slice(0, s.length), strings };
}
