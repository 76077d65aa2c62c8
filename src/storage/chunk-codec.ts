// Owns the chunk format: one series' samples for one window, encoded losslessly into a byte string.
import { assert } from '../core/assert.js';
import type { SampleColumns, StringColumns } from '../model/bucket.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { FloatScratch, readFloatColumn, writeFloatColumn, type FloatColumnOptions, type FloatScheme } from './float-column.js';
import { FRAME_HEADER_BYTES, FRAME_VERSION, openRow, smallestFrame, writePlainFrameHeader, type EncodeEffort } from './entropy-stage.js';
import { rowScratch } from './row-scratch.js';
import { readTimestamps, TIMESTAMP_MAGNITUDE_MAX, writeTimestamps } from './timestamp-column.js';
import { readVarUint, unzigzag, writeVarUint, zigzag } from './varint.js';

// Format 2 (entropy-stage.ts frames it): u8 version 2, u8 flags, then the body, brotli-compressed
// when the flags say so. Body (bit-stream.ts defines bit order):
//   varint  numeric sample count n, then string sample count m
//   n timestamps (timestamp-column.ts), then n values (float-column.ts: scheme byte + data)
//   zero bits up to a byte boundary
//   m string samples: first timestamp as zigzag varint, then m - 1 varint deltas,
//   then each string as a varint UTF-8 byte length and its bytes.
// Format 1 was u8 version 1 and the same body unframed, with format-1 float schemes; it still reads.
// Strings are rare (a status text among numbers), so they get a plain byte layout and stay out
// of the way of the numeric columns.

/** Version byte that opens every chunk written now (entropy-stage.ts's frame). */
export const CHUNK_FORMAT_VERSION = FRAME_VERSION;
/**
 * Most numeric samples one chunk may hold: 2^24, more than a 2 h window of one sample every
 * millisecond (7.2 M); compaction leaves a series' windows apart rather than exceed it.
 */
export const CHUNK_LENGTH_MAX = 2 ** 24;

/** The format before the entropy stage, still decoded. */
const CHUNK_FORMAT_V1 = 1;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Encodes one series' samples into a chunk; decodeChunk returns bit-identical columns. 'fast'
 * (sealing) writes the packed layout; 'compact' (compaction) also tries the entropy stage.
 */
export function encodeChunk(samples: SampleColumns, effort: EncodeEffort = 'fast'): Uint8Array {
  assert(samples.timestampsMs.length >= samples.length && samples.values.length >= samples.length, 'sample columns shorter than length');
  // The decoder refuses longer chunks; writing one would store what cannot be read back.
  assert(samples.length <= CHUNK_LENGTH_MAX, `a chunk holds at most ${CHUNK_LENGTH_MAX} samples`);
  const { writer, floats } = rowScratch(samples.length);
  const packed = chunkFrame(samples, PACKED, writer, floats);
  if (effort === 'fast') return packed;
  return smallestFrame(packed.subarray(FRAME_HEADER_BYTES), chunkFrame(samples, BYTES, writer, floats).subarray(FRAME_HEADER_BYTES));
}

const PACKED: FloatColumnOptions = { bytes: false };
const BYTES: FloatColumnOptions = { bytes: true };

/** The chunk as a plain frame: the frame header, then the body in the given layout. */
function chunkFrame(samples: SampleColumns, options: FloatColumnOptions, writer: BitWriter, scratch: FloatScratch): Uint8Array {
  const length = samples.length;
  const strings = samples.strings;
  const stringCount = strings === null ? 0 : strings.length;
  writer.reset();
  writePlainFrameHeader(writer);
  writeVarUint(writer, length);
  writeVarUint(writer, stringCount);
  writeTimestamps(writer, samples.timestampsMs, length);
  writeFloatColumn(writer, samples.values, length, scratch, options);
  if (strings !== null && stringCount > 0) {
    writer.alignToByte();
    writeStrings(writer, strings);
  }
  return writer.finish();
}

/** Decodes a chunk written by encodeChunk (either format). */
export function decodeChunk(bytes: Uint8Array): SampleColumns {
  return readChunk(bytes).samples;
}

/** How a chunk is encoded, for the bench's histogram: the entropy stage and the value scheme. */
export interface ChunkEncoding {
  readonly format: number;
  readonly entropy: 'none' | 'brotli';
  readonly values: FloatScheme | undefined;
}

/** The encoding of a chunk (decodes it). */
export function chunkEncodingOf(bytes: Uint8Array): ChunkEncoding {
  return readChunk(bytes).encoding;
}

function readChunk(bytes: Uint8Array): { samples: SampleColumns; encoding: ChunkEncoding } {
  const { reader, entropy, format } = openRow(bytes, 'chunk', CHUNK_FORMAT_V1);
  const length = readVarUint(reader);
  const stringCount = readVarUint(reader);
  // A regular constant series costs a few bits whatever its length, so the size cannot bound the
  // count; CHUNK_LENGTH_MAX does (more than a 2 h window of 1 ms samples), and refusing a larger
  // count avoids allocating gigabytes for a damaged row. Every string costs at least a byte.
  assert(length <= CHUNK_LENGTH_MAX && stringCount <= reader.inputBits / 8, 'chunk counts exceed its size');
  const timestampsMs = new Float64Array(length);
  const values = new Float64Array(length);
  readTimestamps(reader, timestampsMs, length);
  const scheme = readFloatColumn(reader, values, length);
  let strings: StringColumns | null = null;
  if (stringCount > 0) {
    reader.alignToByte();
    strings = readStrings(reader, stringCount);
  }
  reader.assertWithinInput();
  return { samples: { length, timestampsMs, values, strings }, encoding: { format, entropy, values: scheme } };
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
