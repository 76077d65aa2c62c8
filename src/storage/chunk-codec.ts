// Owns the chunk format: one series' samples for one window, encoded losslessly into a byte string.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import type { SampleColumns, StringColumns } from '../model/bucket.js';
import { BitReader, BitWriter } from './bit-stream.js';
import { readFloatColumn, writeFloatColumn } from './float-column.js';
import { readTimestamps, TIMESTAMP_MAGNITUDE_MAX, writeTimestamps } from './timestamp-column.js';
import { readVarUint, unzigzag, writeVarUint, zigzag } from './varint.js';

// Layout (bit-stream.ts defines bit order):
//   u8      format version (CHUNK_FORMAT_VERSION)
//   varint  numeric sample count n, then string sample count m
//   n timestamps (timestamp-column.ts), then n values (float-column.ts: scheme byte + data)
//   zero bits up to a byte boundary
//   m string samples: first timestamp as zigzag varint, then m - 1 varint deltas,
//   then each string as a varint UTF-8 byte length and its bytes.
// Strings are rare (a status text among numbers), so they get a plain byte layout and stay out
// of the way of the numeric columns.

/** Version byte that opens every chunk; bump it when the layout changes. */
export const CHUNK_FORMAT_VERSION = 1;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes one series' samples into a chunk; decodeChunk returns bit-identical columns. */
export function encodeChunk(samples: SampleColumns): Uint8Array {
  const length = samples.length;
  assert(samples.timestampsMs.length >= length && samples.values.length >= length, 'sample columns shorter than length');
  const strings = samples.strings;
  const stringCount = strings === null ? 0 : strings.length;
  // About 6 bytes a point covers full-precision data (about 5); the writer grows for anything worse.
  const writer = new BitWriter(length * 6 + 64);
  writer.writeBits(CHUNK_FORMAT_VERSION, 8);
  writeVarUint(writer, length);
  writeVarUint(writer, stringCount);
  writeTimestamps(writer, samples.timestampsMs, length);
  writeFloatColumn(writer, samples.values, length, new Float64Array(length));
  if (strings !== null && stringCount > 0) {
    writer.alignToByte();
    writeStrings(writer, strings);
  }
  return writer.finish();
}

/** Decodes a chunk written by encodeChunk. */
export function decodeChunk(bytes: Uint8Array): SampleColumns {
  const reader = new BitReader(bytes);
  const version = reader.readBits(8);
  if (version !== CHUNK_FORMAT_VERSION) {
    throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `chunk format version ${version} is not supported`, {
      version,
      supported: CHUNK_FORMAT_VERSION,
    });
  }
  const length = readVarUint(reader);
  const stringCount = readVarUint(reader);
  // Even a constant regular series costs 12 bits per 64 points (the packed blocks' headers), and
  // every string a byte; larger counts mean corruption, and refusing them avoids allocating
  // gigabytes for a damaged row.
  assert(length <= 8 * reader.inputBits && stringCount <= reader.inputBits / 8, 'chunk counts exceed its size');
  const timestampsMs = new Float64Array(length);
  const values = new Float64Array(length);
  readTimestamps(reader, timestampsMs, length);
  readFloatColumn(reader, values, length);
  let strings: StringColumns | null = null;
  if (stringCount > 0) {
    reader.alignToByte();
    strings = readStrings(reader, stringCount);
  }
  reader.assertWithinInput();
  return { length, timestampsMs, values, strings };
}

function writeStrings(writer: BitWriter, strings: StringColumns): void {
  const count = strings.length;
  const timestampsMs = strings.timestampsMs;
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const t = timestampsMs[i]!;
    assert(Number.isInteger(t) && Math.abs(t) <= TIMESTAMP_MAGNITUDE_MAX, 'string timestamp out of the encodable range');
    assert(i === 0 || t > previous, 'string timestamps must ascend strictly');
    writeVarUint(writer, i === 0 ? zigzag(t) : t - previous);
    previous = t;
  }
  for (let i = 0; i < count; i++) {
    const value = strings.values[i];
    assert(value !== undefined, 'string column shorter than its length');
    // UTF-8 cannot carry a lone UTF-16 surrogate; TextEncoder writes U+FFFD for it instead.
    const encoded = utf8Encoder.encode(value);
    writeVarUint(writer, encoded.length);
    writer.writeBytes(encoded);
  }
}

function readStrings(reader: BitReader, count: number): StringColumns {
  const timestampsMs = new Float64Array(count);
  let t = 0;
  for (let i = 0; i < count; i++) {
    const step = readVarUint(reader);
    t = i === 0 ? unzigzag(step) : t + step;
    timestampsMs[i] = t;
  }
  const values = new Array<string>(count);
  for (let i = 0; i < count; i++) values[i] = utf8Decoder.decode(reader.readBytes(readVarUint(reader)));
  return { length: count, timestampsMs, values };
}
