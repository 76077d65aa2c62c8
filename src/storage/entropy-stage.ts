// Owns the entropy stage of format-2 chunks: the frame (version, flags, body) and brotli over the body when that is smaller.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { assert, AssertionFailure } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { readVarUint, writeVarUint } from './varint.js';
import { BitReader, BitWriter } from './bit-stream.js';

/** Version byte of chunk and bucket rows that carry a flags byte and may be brotli-compressed. */
export const FRAME_VERSION = 2;

/** Flags byte: the body after it is brotli-compressed, preceded by its decompressed length as a varint. */
const FLAG_BROTLI = 1;

/**
 * Largest decompressed body accepted. A FULL chunk of 2 h holds at most a few hundred thousand
 * points (the head's limits), a compacted one a few times that, about 10 bytes each at worst; a
 * larger declared length is corruption, refused before anything is allocated.
 */
export const FRAME_BODY_BYTES_MAX = 64 * 1024 * 1024;

/**
 * Brotli settings: quality 5 is within 1 % of quality 9 on chunk bodies (measured on the NAB
 * workload) at a third of the time; a 64 KiB window covers any chunk body worth compressing.
 */
const BROTLI_QUALITY = 5;
const BROTLI_WINDOW_BITS = 16;

/**
 * How hard an encoder tries. 'fast' (sealing, rollups): the packed bit layout only, no entropy
 * stage, a few µs a chunk. 'compact' (compaction, in the background): also the byte layout
 * under brotli, and brotli over the packed layout, keeping the smallest.
 */
export type EncodeEffort = 'fast' | 'compact';

/** Bytes of a plain frame's header: the version and the flags. */
export const FRAME_HEADER_BYTES = 2;

/** Frames a body written with the packed layout, uncompressed. */
export function frameBody(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + FRAME_HEADER_BYTES);
  out[0] = FRAME_VERSION;
  out[1] = 0;
  out.set(body, FRAME_HEADER_BYTES);
  return out;
}

/** Writes the header of a plain frame (version, no flags): the body written after it needs no copy to be framed. */
export function writePlainFrameHeader(writer: BitWriter): void {
  writer.writeBits(FRAME_VERSION, 8);
  writer.writeBits(0, 8);
}

/** The smallest frame of: `packed` as is, `packed` under brotli, `bytes` (the byte layout) under brotli. */
export function smallestFrame(packed: Uint8Array, bytes: Uint8Array): Uint8Array {
  let best = frameBody(packed);
  for (const body of [packed, bytes]) {
    // The decoder refuses a compressed body over the bound; such a body stays plain.
    if (body.length > FRAME_BODY_BYTES_MAX) continue;
    const framed = compressedFrame(body);
    if (framed.length < best.length) best = framed;
  }
  return best;
}

function compressedFrame(body: Uint8Array): Uint8Array {
  const compressed = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  const header = new BitWriter(16);
  header.writeBits(FRAME_VERSION, 8);
  header.writeBits(FLAG_BROTLI, 8);
  writeVarUint(header, body.length);
  const head = header.finish();
  const out = new Uint8Array(head.length + compressed.length);
  out.set(head, 0);
  out.set(compressed, head.length);
  return out;
}

/** What a frame says about itself. */
export interface OpenedFrame {
  /** A reader over the body (decompressed when it was). */
  readonly reader: BitReader;
  readonly entropy: 'none' | 'brotli';
}

/** Opens a format-2 frame (bytes[0] === FRAME_VERSION). Damage of any kind fails an assertion (a corrupt row). */
export function openFrame(bytes: Uint8Array): OpenedFrame {
  assert(bytes[0] === FRAME_VERSION, 'not a format-2 frame');
  assert(bytes.length >= 2, 'row ends inside its frame header');
  const flags = bytes[1];
  if (flags === 0) return { reader: new BitReader(bytes.subarray(2)), entropy: 'none' };
  if (flags !== FLAG_BROTLI) {
    throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `row frame flags ${String(flags)} are not supported`, { flags });
  }
  const header = new BitReader(bytes.subarray(2, Math.min(bytes.length, 12)));
  const length = readVarUint(header);
  assert(Number.isSafeInteger(length) && length <= FRAME_BODY_BYTES_MAX, 'row body length out of range');
  const offset = 2 + header.bitPosition / 8;
  let body: Buffer;
  try {
    body = brotliDecompressSync(bytes.subarray(offset), { maxOutputLength: Math.max(length, 1) });
  } catch (error) {
    // zlib reports damage as Z_BUF_ERROR, a body longer than declared as ERR_BUFFER_TOO_LARGE: one kind here.
    throw new AssertionFailure(`row body does not decompress to its declared ${length} bytes (${error instanceof Error ? error.message : String(error)})`);
  }
  assert(body.length === length, 'row body shorter than declared');
  return { reader: new BitReader(body), entropy: 'brotli' };
}

/** A row opened for decoding: a reader positioned at its body, and how it was stored. */
export interface OpenedRow extends OpenedFrame {
  readonly format: number;
}

/**
 * Opens a chunk or bucket row of either format: format 2 through its frame, format 1 (`v1`, a
 * version byte and the body unframed) as it is. Any other version is refused as unsupported.
 */
export function openRow(bytes: Uint8Array, what: 'chunk' | 'bucket', v1: number): OpenedRow {
  const version = bytes[0];
  if (version === FRAME_VERSION) return { ...openFrame(bytes), format: version };
  if (version === v1) {
    const reader = new BitReader(bytes);
    reader.readBits(8);
    return { reader, entropy: 'none', format: version };
  }
  throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `${what} format version ${String(version)} is not supported`, { version, supported: FRAME_VERSION });
}
