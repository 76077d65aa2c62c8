// Owns the snappy block format of Prometheus bodies: a bounded, validating decoder and the encoder.
import { compress } from 'snappyjs';
import { StrataError } from '../core/errors.js';
import { PROTOCOL_DECODED_BYTES_MAX } from './protocol-limits.js';

/** Longest varint of the declared length: snappy declares at most 2^32 - 1 bytes. */
const LENGTH_VARINT_BYTES_MAX = 5;
/**
 * Most bytes one compressed byte can stand for: a 3-byte copy element yields at most 64 bytes.
 * A body declaring more than this times its size cannot be valid, so it is refused before the
 * output buffer is allocated (a 10-byte body cannot make Strata allocate 64 MiB).
 */
const EXPANSION_MAX = 22;
/** Literals at least this long are copied with TypedArray.set; shorter ones byte by byte (cheaper than a subarray). */
const LITERAL_SET_BYTES_MIN = 16;
/** Copies at least this long (at most 64) use copyWithin; shorter ones go byte by byte (measured faster each side). */
const COPY_WITHIN_BYTES_MIN = 16;

function malformed(reason: string, offset: number): StrataError {
  return new StrataError('PROTOCOL_BODY_MALFORMED', `The snappy body is malformed: ${reason} at byte ${offset}.`, { offset });
}

/** The declared decompressed length and the offset after its varint. */
function readDeclaredLength(body: Uint8Array): [number, number] {
  let length = 0;
  let scale = 1;
  for (let i = 0; i < LENGTH_VARINT_BYTES_MAX; i++) {
    if (i >= body.length) throw malformed('the decompressed length is cut short', i);
    const byte = body[i] as number;
    length += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (length > 0xffffffff) throw malformed('the decompressed length is above 2^32 - 1', 0);
      return [length, i + 1];
    }
    scale *= 128;
  }
  throw malformed('the decompressed length is longer than 5 bytes', 0);
}

/** A little-endian unsigned integer of `bytes` bytes at `at` (bounds checked by the caller). */
function littleEndian(body: Uint8Array, at: number, bytes: number): number {
  let value = 0;
  for (let i = bytes - 1; i >= 0; i--) value = value * 256 + (body[at + i] as number);
  return value;
}

/**
 * Decompresses a snappy block-format body (not the framed stream format). The declared length is
 * read first: above PROTOCOL_DECODED_BYTES_MAX it throws PROTOCOL_BODY_TOO_LARGE before anything
 * is allocated. Every element is bounds-checked and the output must be exactly the declared
 * length, else PROTOCOL_BODY_MALFORMED. Written here rather than calling snappyjs.uncompress:
 * that one loops forever on a literal length with its top bit set, zero-fills a short stream and
 * drops the bytes of a long one.
 */
export function snappyDecode(body: Uint8Array): Uint8Array {
  const [length, start] = readDeclaredLength(body);
  if (length > PROTOCOL_DECODED_BYTES_MAX) {
    throw new StrataError(
      'PROTOCOL_BODY_TOO_LARGE',
      `The snappy body declares ${length} decompressed bytes; the limit is ${PROTOCOL_DECODED_BYTES_MAX}.`,
      { declaredBytes: length, limitBytes: PROTOCOL_DECODED_BYTES_MAX },
    );
  }
  if (length > (body.length - start) * EXPANSION_MAX) throw malformed(`a declared length of ${length} is more than the body can hold`, 0);
  const out = new Uint8Array(length);
  let pos = start;
  let outPos = 0;
  while (pos < body.length) {
    const tag = body[pos] as number;
    const kind = tag & 3;
    if (kind === 0) {
      // A literal: its length - 1 is in the tag, or in the 1 to 4 bytes after it.
      let literal = (tag >>> 2) + 1;
      let next = pos + 1;
      if (literal > 60) {
        const bytes = literal - 60;
        if (next + bytes > body.length) throw malformed('a literal length is cut short', pos);
        literal = littleEndian(body, next, bytes) + 1;
        next += bytes;
      }
      if (next + literal > body.length) throw malformed('a literal runs past the body', pos);
      if (outPos + literal > length) throw malformed('a literal runs past the declared length', pos);
      if (literal >= LITERAL_SET_BYTES_MIN) out.set(body.subarray(next, next + literal), outPos);
      else for (let i = 0; i < literal; i++) out[outPos + i] = body[next + i] as number;
      outPos += literal;
      pos = next + literal;
      continue;
    }
    // A copy of earlier output: 1-, 2- or 4-byte offset after the tag.
    let copy: number;
    let offset: number;
    const offsetBytes = kind === 1 ? 1 : kind === 2 ? 2 : 4;
    if (pos + 1 + offsetBytes > body.length) throw malformed('a copy is cut short', pos);
    if (kind === 1) {
      copy = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | (body[pos + 1] as number);
    } else {
      copy = (tag >>> 2) + 1;
      offset = littleEndian(body, pos + 1, offsetBytes);
    }
    if (offset === 0 || offset > outPos) throw malformed(`a copy reaches back ${offset} bytes from ${outPos}`, pos);
    if (outPos + copy > length) throw malformed('a copy runs past the declared length', pos);
    if (copy >= COPY_WITHIN_BYTES_MIN && offset >= copy) out.copyWithin(outPos, outPos - offset, outPos - offset + copy);
    // An overlapping copy (offset < copy) repeats the bytes it has just written, so it goes byte by byte.
    else for (let i = 0; i < copy; i++) out[outPos + i] = out[outPos - offset + i] as number;
    outPos += copy;
    pos += 1 + offsetBytes;
  }
  if (outPos !== length) throw malformed(`the body decompresses to ${outPos} bytes, not the declared ${length}`, pos);
  return out;
}

/** Compresses bytes into the snappy block format (what Prometheus sends and expects back). */
export function snappyEncode(bytes: Uint8Array): Uint8Array {
  return compress(bytes);
}
