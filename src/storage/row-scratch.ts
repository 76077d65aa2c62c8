// Owns the bit writer and float scratch that the chunk and bucket encoders reuse from one row to the next.
import { BitWriter } from './bit-stream.js';
import { FloatScratch } from './float-column.js';

/**
 * Rows up to this many values share one writer and scratch; a longer one (a compacted chunk of a
 * dense series) gets its own, so that a rare huge row does not stay pinned in memory afterwards.
 * 2 h of one sample a second fits.
 */
export const SHARED_ROW_VALUES_MAX = 8192;

/** A writer and the float columns' scratch, for encoding one row. */
export interface RowScratch {
  readonly writer: BitWriter;
  readonly floats: FloatScratch;
}

// Shared by every row this thread encodes. Allocating them per row (a few typed arrays of a few
// KiB each) cost about half the encode time of a 240-point chunk: off-heap backing stores and the
// garbage collection they trigger. Sharing is safe because encoding is synchronous, never
// re-entered, and resets the writer first; what a row leaves in them is overwritten before it is
// read. Worker threads each load their own copy of this module.
const shared: RowScratch = { writer: new BitWriter(), floats: new FloatScratch(0) };

/** The writer and scratch for a row of `length` values (the encoder resets the writer before each use). */
export function rowScratch(length: number): RowScratch {
  if (length > SHARED_ROW_VALUES_MAX) return { writer: new BitWriter(length * 8), floats: new FloatScratch(length) };
  return shared;
}
