// Owns the bucket-row format: one series' rollup buckets for one window, encoded losslessly.
import { assert } from '../core/assert.js';
import type { BucketColumns } from '../model/bucket.js';
import type { BitWriter } from './bit-stream.js';
import { FloatScratch, readFloatColumn, writeFloatColumn, type FloatColumnOptions, type FloatScheme } from './float-column.js';
import { FRAME_HEADER_BYTES, FRAME_VERSION, openRow, smallestFrame, writePlainFrameHeader, type EncodeEffort } from './entropy-stage.js';
import { rowScratch } from './row-scratch.js';
import { fitsPackedInts, readPackedInts, writePackedInts } from './int-column.js';
import { readTimestamps, writeTimestamps } from './timestamp-column.js';
import { readVarUint, writeVarUint } from './varint.js';

// Format 2 (entropy-stage.ts frames it): u8 version 2, u8 flags, then the body, brotli-compressed
// when the flags say so. Body (bit-stream.ts defines bit order):
//   varint  bucket count n
//   startsMs            timestamp column (regular starts cost one bit each)
//   numPoints           packed integer column (usually constant: a few bits per 64 buckets)
//   numPoints - count   packed integer column (string samples are rare, so usually all zero)
//   mean, m2, min, max  float columns, each choosing its own scheme (float-column.ts): min and max
//                       of decimal data are decimal, mean and m2 rarely are. A count-0 bucket's
//                       NaN stats become raw exceptions or push their column to XOR; either keeps
//                       NaN bit-exact.
// Format 1 was u8 version 1 and the same body unframed, with format-1 float schemes; it still reads.

/** Version byte that opens every bucket row written now (entropy-stage.ts's frame). */
export const BUCKET_FORMAT_VERSION = FRAME_VERSION;
/** The format before the entropy stage, still decoded. */
const BUCKET_FORMAT_V1 = 1;

const PACKED: FloatColumnOptions = { bytes: false };
const BYTES: FloatColumnOptions = { bytes: true };

/** Encodes one series' buckets; decodeBuckets returns bit-identical columns. */
export function encodeBuckets(buckets: BucketColumns, effort: EncodeEffort = 'fast'): Uint8Array {
  const length = buckets.length;
  const { startsMs, numPoints, count, mean, m2, min, max } = buckets;
  for (const column of [startsMs, numPoints, count, mean, m2, min, max]) {
    assert(column.length >= length, 'bucket columns shorter than length');
  }
  const uncounted = new Float64Array(length);
  for (let i = 0; i < length; i++) uncounted[i] = numPoints[i]! - count[i]!;
  assert(fitsPackedInts(numPoints, length) && fitsPackedInts(uncounted, length), 'bucket counts must be integers');
  const { writer, floats } = rowScratch(length);
  const packed = bucketFrame(buckets, uncounted, PACKED, writer, floats);
  if (effort === 'fast') return packed;
  return smallestFrame(packed.subarray(FRAME_HEADER_BYTES), bucketFrame(buckets, uncounted, BYTES, writer, floats).subarray(FRAME_HEADER_BYTES));
}

/** The row as a plain frame: the frame header, then the body in the given layout. */
function bucketFrame(buckets: BucketColumns, uncounted: Float64Array, options: FloatColumnOptions, writer: BitWriter, scratch: FloatScratch): Uint8Array {
  const length = buckets.length;
  writer.reset();
  writePlainFrameHeader(writer);
  writeVarUint(writer, length);
  writeTimestamps(writer, buckets.startsMs, length);
  writePackedInts(writer, buckets.numPoints, length);
  writePackedInts(writer, uncounted, length);
  writeFloatColumn(writer, buckets.mean, length, scratch, options);
  writeFloatColumn(writer, buckets.m2, length, scratch, options);
  writeFloatColumn(writer, buckets.min, length, scratch, options);
  writeFloatColumn(writer, buckets.max, length, scratch, options);
  return writer.finish();
}

/** Decodes a bucket row written by encodeBuckets. */
export function decodeBuckets(bytes: Uint8Array): BucketColumns {
  return readBuckets(bytes).buckets;
}

/** How a bucket row is encoded, for the bench's histogram: the entropy stage and each stat's scheme. */
export interface BucketEncoding {
  readonly format: number;
  readonly entropy: 'none' | 'brotli';
  /** Schemes of mean, m2, min and max, in that order. */
  readonly stats: readonly (FloatScheme | undefined)[];
}

/** The encoding of a bucket row (decodes it). */
export function bucketEncodingOf(bytes: Uint8Array): BucketEncoding {
  return readBuckets(bytes).encoding;
}

function readBuckets(bytes: Uint8Array): { buckets: BucketColumns; encoding: BucketEncoding } {
  const { reader, entropy, format } = openRow(bytes, 'bucket', BUCKET_FORMAT_V1);
  const length = readVarUint(reader);
  // Even constant columns cost 12 bits per 64 buckets each (the packed blocks' headers), so a
  // larger count means corruption; refusing it avoids allocating gigabytes for a damaged row.
  assert(length <= 8 * reader.inputBits, 'bucket count exceeds the row size');
  const startsMs = new Float64Array(length);
  const numPoints = new Float64Array(length);
  const count = new Float64Array(length);
  const mean = new Float64Array(length);
  const m2 = new Float64Array(length);
  const min = new Float64Array(length);
  const max = new Float64Array(length);
  readTimestamps(reader, startsMs, length);
  readPackedInts(reader, numPoints, length);
  readPackedInts(reader, count, length);
  for (let i = 0; i < length; i++) count[i] = numPoints[i]! - count[i]!;
  const stats = [
    readFloatColumn(reader, mean, length),
    readFloatColumn(reader, m2, length),
    readFloatColumn(reader, min, length),
    readFloatColumn(reader, max, length),
  ];
  reader.assertWithinInput();
  return { buckets: { length, startsMs, numPoints, count, mean, m2, min, max }, encoding: { format, entropy, stats } };
}
