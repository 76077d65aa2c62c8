// Owns the bucket-row format: one series' rollup buckets for one window, encoded losslessly.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import type { BucketColumns } from '../model/bucket.js';
import { BitReader, BitWriter } from './bit-stream.js';
import { readFloatColumn, writeFloatColumn } from './float-column.js';
import { fitsPackedInts, readPackedInts, writePackedInts } from './int-column.js';
import { readTimestamps, writeTimestamps } from './timestamp-column.js';
import { readVarUint, writeVarUint } from './varint.js';

// Layout (bit-stream.ts defines bit order):
//   u8      format version (BUCKET_FORMAT_VERSION)
//   varint  bucket count n
//   startsMs            timestamp column (regular starts cost one bit each)
//   numPoints           packed integer column (usually constant: a few bits per 64 buckets)
//   numPoints - count   packed integer column (string samples are rare, so usually all zero)
//   mean, m2, min, max  float columns, each choosing decimal or XOR on its own: min and max of
//                       decimal data are decimal, mean and m2 rarely are. A count-0 bucket's NaN
//                       stats push their columns to XOR, which keeps NaN bit-exact.

/** Version byte that opens every bucket row; bump it when the layout changes. */
export const BUCKET_FORMAT_VERSION = 1;

/** Encodes one series' buckets; decodeBuckets returns bit-identical columns. */
export function encodeBuckets(buckets: BucketColumns): Uint8Array {
  const length = buckets.length;
  const { startsMs, numPoints, count, mean, m2, min, max } = buckets;
  for (const column of [startsMs, numPoints, count, mean, m2, min, max]) {
    assert(column.length >= length, 'bucket columns shorter than length');
  }
  const uncounted = new Float64Array(length);
  for (let i = 0; i < length; i++) uncounted[i] = numPoints[i]! - count[i]!;
  assert(fitsPackedInts(numPoints, length) && fitsPackedInts(uncounted, length), 'bucket counts must be integers');
  const writer = new BitWriter(length * 24 + 64);
  writer.writeBits(BUCKET_FORMAT_VERSION, 8);
  writeVarUint(writer, length);
  writeTimestamps(writer, startsMs, length);
  writePackedInts(writer, numPoints, length);
  writePackedInts(writer, uncounted, length);
  // One scratch array for the four float columns; writeFloatColumn overwrites it each time.
  const scratch = uncounted;
  writeFloatColumn(writer, mean, length, scratch);
  writeFloatColumn(writer, m2, length, scratch);
  writeFloatColumn(writer, min, length, scratch);
  writeFloatColumn(writer, max, length, scratch);
  return writer.finish();
}

/** Decodes a bucket row written by encodeBuckets. */
export function decodeBuckets(bytes: Uint8Array): BucketColumns {
  const reader = new BitReader(bytes);
  const version = reader.readBits(8);
  if (version !== BUCKET_FORMAT_VERSION) {
    throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `bucket format version ${version} is not supported`, {
      version,
      supported: BUCKET_FORMAT_VERSION,
    });
  }
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
  readFloatColumn(reader, mean, length);
  readFloatColumn(reader, m2, length);
  readFloatColumn(reader, min, length);
  readFloatColumn(reader, max, length);
  reader.assertWithinInput();
  return { length, startsMs, numPoints, count, mean, m2, min, max };
}
