// Owns the bytes of a recording file (format version 1): the file start, frame prefixes, msgpack payloads, and their strict decoding.
import { crc32 } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import { assert } from '../core/assert.js';
import { StrataError, type ErrorCode } from '../core/errors.js';
import { RECORDING_FORMAT_VERSION, RECORDING_FRAME_BYTES_MAX, RECORDING_FRAME_PREFIX_BYTES, RECORDING_MAGIC } from './recording-limits.js';
import type { RecordedExchange, RecordingFrame, RecordingGap, RecordingHeader } from './recording-types.js';

// zlib.crc32 arrived in Node 20.15; failing at load names the cause instead of failing on the first frame.
assert(typeof crc32 === 'function', 'recordings need zlib.crc32 (Node 20.15 or later)');

/** Bytes before the first frame: the magic and the u16 big-endian format version. */
export const RECORDING_FILE_START_BYTES = RECORDING_MAGIC.length + 2;

const TAG_HEADER = 0;
const TAG_EXCHANGE = 1;
const TAG_GAP = 2;
/** Elements of each payload array, tag included, indexed by tag. */
const FIELD_COUNTS = [6, 9, 3] as const;

/** The msgpack encoder and decoder one encoding or decoding run uses; each run owns its pair (no shared module state). */
export interface FrameCodec {
  readonly packr: Packr;
  readonly unpackr: Unpackr;
}

/**
 * A codec whose encoding is a pure function of the frame: arrays only, no records or shared
 * structures (which make output depend on earlier calls), Buffers as bin. The decoder copies bin
 * values so a decoded body never pins the read chunk it came from.
 */
export function createFrameCodec(): FrameCodec {
  return {
    packr: new Packr({ useRecords: false, moreTypes: false, structuredClone: false, bundleStrings: false }),
    unpackr: new Unpackr({ useRecords: false, mapsAsObjects: false, int64AsType: 'number', copyBuffers: true }),
  };
}

/** Where a frame starts in the file and its index (0 = the header), for error details. */
export interface FramePosition {
  readonly offset: number;
  readonly frame: number;
}

/** A coded recording error with the uniform details `{ offset, frame, reason }` (plus `extra`). */
export function recordingError(code: ErrorCode, position: FramePosition, reason: string, extra: Record<string, unknown> = {}): StrataError {
  const message = `Recording ${code === 'RECORDING_TRUNCATED' ? 'truncated' : 'unreadable'} at byte ${position.offset} (frame ${position.frame}): ${reason}.`;
  return new StrataError(code, message, { offset: position.offset, frame: position.frame, reason, ...extra });
}

/** The error for a file that ends inside frame `position.frame` (which is also the number of frames read before it). */
export function truncatedError(position: FramePosition, reason: string): StrataError {
  return recordingError('RECORDING_TRUNCATED', position, reason, { framesRead: position.frame });
}

const LONE_SURROGATE = /\p{Cs}/u;

function isString(value: unknown): value is string {
  // A lone surrogate has no UTF-8 form; msgpackr would write it in a way that does not read back equal.
  return typeof value === 'string' && !LONE_SURROGATE.test(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Checks the fields of a payload array against its tag; the reason for the first misfit, or null. */
function payloadProblem(fields: readonly unknown[]): string | null {
  const tag = fields[0];
  if (tag !== TAG_HEADER && tag !== TAG_EXCHANGE && tag !== TAG_GAP) return `unknown frame tag ${String(tag)}`;
  if (fields.length !== FIELD_COUNTS[tag]) return `a frame with tag ${tag} has ${fields.length} fields instead of ${FIELD_COUNTS[tag]}`;
  if (tag === TAG_HEADER) {
    const [, version, startedAtMs, sequence, producer, description] = fields;
    if (!isCount(version)) return 'header version is not a non-negative integer';
    if (typeof startedAtMs !== 'number' || !Number.isSafeInteger(startedAtMs)) return 'header startedAtMs is not a safe integer';
    if (!isCount(sequence)) return 'header sequence is not a non-negative integer';
    if (!isString(producer) || !isString(description)) return 'header producer or description is not a string';
    return null;
  }
  if (tag === TAG_GAP) {
    const [, atMs, dropped] = fields;
    if (!isCount(atMs)) return 'gap atMs is not a non-negative integer';
    if (!isCount(dropped) || dropped === 0) return 'gap dropped is not a positive integer';
    return null;
  }
  const [, atMs, method, url, tenant, contentType, body, status, durationMs] = fields;
  if (!isCount(atMs)) return 'exchange atMs is not a non-negative integer';
  if (!isString(method) || !isString(url) || !isString(tenant)) return 'exchange method, url or tenant is not a string';
  if (contentType !== null && !isString(contentType)) return 'exchange contentType is neither a string nor nil';
  if (body !== null && !(body instanceof Uint8Array)) return 'exchange body is neither bin nor nil';
  if (!isCount(status) || !isCount(durationMs)) return 'exchange status or durationMs is not a non-negative integer';
  return null;
}

function headerFields(header: RecordingHeader): unknown[] {
  return [TAG_HEADER, header.version, header.startedAtMs, header.sequence, header.producer, header.description];
}

function frameFields(frame: RecordingFrame): unknown[] {
  if (frame.kind === 'gap') return [TAG_GAP, frame.atMs, frame.dropped];
  const { atMs, method, url, tenant, contentType, body, status, durationMs } = frame;
  return [TAG_EXCHANGE, atMs, method, url, tenant, contentType, body, status, durationMs];
}

function fieldsToFrame(fields: readonly unknown[]): RecordingHeader | RecordingFrame {
  // payloadProblem has checked every type; the casts only restate it.
  if (fields[0] === TAG_HEADER) {
    const [, version, startedAtMs, sequence, producer, description] = fields as [number, number, number, number, string, string];
    return { kind: 'header', version, startedAtMs, sequence, producer, description };
  }
  if (fields[0] === TAG_GAP) return { kind: 'gap', atMs: fields[1] as number, dropped: fields[2] as number } satisfies RecordingGap;
  const [, atMs, method, url, tenant, contentType, body, status, durationMs] = fields as [
    number, number, string, string, string, string | null, Buffer | null, number, number,
  ];
  return { kind: 'exchange', atMs, method, url, tenant, contentType, body, status, durationMs } satisfies RecordedExchange;
}

/** Prefix (u32 BE length, u32 BE CRC-32) and payload of one frame, as one new Buffer. */
function encodeFields(fields: unknown[], codec: FrameCodec): Buffer {
  const problem = payloadProblem(fields);
  assert(problem === null, `cannot encode a recording frame: ${problem ?? ''}`);
  const payload = codec.packr.pack(fields);
  return Buffer.concat([framePrefix(payload.length, crc32(payload)), payload]);
}

/** One frame, prefix and payload. Asserts the frame is well formed; the caller checks its size against RECORDING_FRAME_BYTES_MAX. */
export function encodeFrame(frame: RecordingFrame, codec: FrameCodec = createFrameCodec()): Buffer {
  return encodeFields(frameFields(frame), codec);
}

/** An exchange without its body: what `encodeExchangeAround` encodes on either side of the body bytes. */
export type ExchangeFields = Omit<RecordedExchange, 'kind' | 'body'>;

/** The payload bytes of an exchange frame on either side of its body: `head`, then the body's bytes, then `tail`. */
export interface ExchangeFrameParts {
  /** The array header, tag, atMs, method, url, tenant, contentType, and the body's bin header (or nil without a body). */
  readonly head: Buffer;
  /** status and durationMs. */
  readonly tail: Buffer;
}

/** The msgpack bin header of a body of `bytes`, as msgpackr writes it (bin8, bin16 or bin32 by size). */
function binHeader(bytes: number): Buffer {
  if (bytes < 0x100) return Buffer.from([0xc4, bytes]);
  if (bytes < 0x10000) return Buffer.from([0xc5, bytes >> 8, bytes & 0xff]);
  const header = Buffer.alloc(5);
  header[0] = 0xc6;
  header.writeUInt32BE(bytes, 1);
  return header;
}

/**
 * Encodes an exchange around a body of `bodyBytes` (null: no body) without touching the body, so
 * a writer can checksum and write the body's chunks where they lie: head + body + tail is byte for
 * byte the payload `encodeFrame` writes (a msgpack array is its header followed by each element's
 * own encoding, which the property tests check against msgpackr). Asserts the fields are well formed.
 */
export function encodeExchangeAround(exchange: ExchangeFields, bodyBytes: number | null, codec: FrameCodec = createFrameCodec()): ExchangeFrameParts {
  const { atMs, method, url, tenant, contentType, status, durationMs } = exchange;
  const problem = payloadProblem([TAG_EXCHANGE, atMs, method, url, tenant, contentType, null, status, durationMs]);
  assert(problem === null, `cannot encode a recording frame: ${problem ?? ''}`);
  assert(bodyBytes === null || (Number.isSafeInteger(bodyBytes) && bodyBytes >= 0 && bodyBytes <= 0xffffffff), 'a body length is a u32');
  const before = codec.packr.pack([TAG_EXCHANGE, atMs, method, url, tenant, contentType]);
  const after = codec.packr.pack([status, durationMs]);
  // Both are fixarrays (one header byte): the frame's array of nine replaces the first, the second is dropped.
  assert(before[0] === 0x96 && after[0] === 0x92, 'msgpackr writes short arrays as fixarrays');
  const head = Buffer.concat([Buffer.from([0x90 | FIELD_COUNTS[TAG_EXCHANGE]]), before.subarray(1), bodyBytes === null ? Buffer.from([0xc0]) : binHeader(bodyBytes)]);
  return { head, tail: Buffer.from(after.subarray(1)) };
}

/** The 8-byte prefix of a frame: the payload's length and CRC-32, both u32 big-endian. */
export function framePrefix(payloadBytes: number, crc: number): Buffer {
  const prefix = Buffer.allocUnsafe(RECORDING_FRAME_PREFIX_BYTES);
  prefix.writeUInt32BE(payloadBytes, 0);
  prefix.writeUInt32BE(crc, 4);
  return prefix;
}

/** The start of a file: magic, the u16 format version, and the header frame. */
export function encodeFileStart(header: RecordingHeader, codec: FrameCodec = createFrameCodec()): Buffer {
  assert(header.version === RECORDING_FORMAT_VERSION, `this build writes recording format ${RECORDING_FORMAT_VERSION} only`);
  const version = Buffer.alloc(2);
  version.writeUInt16BE(header.version, 0);
  return Buffer.concat([RECORDING_MAGIC, version, encodeFields(headerFields(header), codec)]);
}

/** A whole file: the start and every frame in order (their atMs never decreasing, as decoding requires). */
export function encodeRecording(header: RecordingHeader, frames: readonly RecordingFrame[]): Buffer {
  const codec = createFrameCodec();
  const parts = [encodeFileStart(header, codec)];
  let lastAtMs = 0;
  for (const frame of frames) {
    assert(frame.atMs >= lastAtMs, 'recording frames must not go back in time');
    lastAtMs = frame.atMs;
    parts.push(encodeFrame(frame, codec));
  }
  return Buffer.concat(parts);
}

/**
 * Checks the first RECORDING_FILE_START_BYTES of a file (fewer when the file is shorter): the
 * magic (RECORDING_NOT_A_RECORDING, also for a file shorter than it), then the version.
 */
export function checkFileStart(start: Uint8Array): void {
  const at = { offset: 0, frame: 0 };
  const magicSeen = Buffer.from(start.buffer, start.byteOffset, Math.min(start.byteLength, RECORDING_MAGIC.length));
  if (!magicSeen.equals(RECORDING_MAGIC.subarray(0, magicSeen.length))) {
    throw recordingError('RECORDING_NOT_A_RECORDING', at, 'the file does not start with "STRATA-RECORDING"');
  }
  if (magicSeen.length < RECORDING_MAGIC.length) {
    throw recordingError('RECORDING_NOT_A_RECORDING', at, `the file is shorter than the ${RECORDING_MAGIC.length} magic bytes`);
  }
  const versionAt = { offset: RECORDING_MAGIC.length, frame: 0 };
  if (start.byteLength < RECORDING_FILE_START_BYTES) throw truncatedError(versionAt, 'the file ends inside the format version');
  const version = (start[RECORDING_MAGIC.length]! << 8) | start[RECORDING_MAGIC.length + 1]!;
  if (version !== RECORDING_FORMAT_VERSION) {
    throw recordingError('RECORDING_VERSION_UNSUPPORTED', versionAt, `format version ${version} is not ${RECORDING_FORMAT_VERSION}, the one this build reads`, {
      version,
      supported: RECORDING_FORMAT_VERSION,
    });
  }
}

/**
 * Decodes the frames of one file in order and enforces the rules between them: the header first
 * and only first, its version equal to the file's, atMs never decreasing. One instance per pass.
 */
export class FrameDecoder {
  private readonly codec = createFrameCodec();
  private nextFrame: number;
  private lastAtMs = 0;

  /** Starts at the header (frame 0), or after an already decoded one. */
  constructor(afterHeader = false) {
    this.nextFrame = afterHeader ? 1 : 0;
  }

  /** Index of the frame the next prefix belongs to; also the number of frames decoded so far. */
  get frame(): number {
    return this.nextFrame;
  }

  /** Reads a frame's payload length from its 8-byte prefix; RECORDING_CORRUPT when over RECORDING_FRAME_BYTES_MAX. */
  payloadLength(prefix: Uint8Array, offset: number): number {
    const length = Buffer.from(prefix.buffer, prefix.byteOffset, RECORDING_FRAME_PREFIX_BYTES).readUInt32BE(0);
    if (length > RECORDING_FRAME_BYTES_MAX) {
      throw recordingError('RECORDING_CORRUPT', { offset, frame: this.nextFrame }, `frame length ${length} is over RECORDING_FRAME_BYTES_MAX (${RECORDING_FRAME_BYTES_MAX})`);
    }
    return length;
  }

  /** Checks the CRC, decodes and validates one payload whose prefix starts at `offset`; RECORDING_CORRUPT on any misfit. */
  decode(prefix: Uint8Array, payload: Uint8Array, offset: number): RecordingHeader | RecordingFrame {
    const at = { offset, frame: this.nextFrame };
    const corrupt = (reason: string): StrataError => recordingError('RECORDING_CORRUPT', at, reason);
    const expectedCrc = Buffer.from(prefix.buffer, prefix.byteOffset, RECORDING_FRAME_PREFIX_BYTES).readUInt32BE(4);
    if (crc32(payload) !== expectedCrc) throw corrupt('the payload fails its CRC-32');
    const first = payload[0];
    // A canonical payload is a fixarray of 3, 6 or 9 elements; checking it first keeps msgpackr from building anything else.
    if (first !== 0x93 && first !== 0x96 && first !== 0x99) throw corrupt('the payload is not a msgpack array of 3, 6 or 9 elements');
    let fields: unknown;
    try {
      // msgpackr copies bin values into the source's own type; a Buffer source gives Buffer bodies.
      fields = this.codec.unpackr.unpack(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
    } catch (error) {
      throw corrupt(`the payload is not msgpack (${(error as Error).message})`);
    }
    const problem = Array.isArray(fields) ? payloadProblem(fields) : 'the payload is not an array';
    if (problem !== null) throw corrupt(problem);
    // Only the bytes this codec writes are accepted, so encode(decode(file)) gives the file back.
    if (!this.codec.packr.pack(fields).equals(payload)) throw corrupt('the payload is not in the canonical encoding');
    const decoded = fieldsToFrame(fields as unknown[]);
    this.checkOrder(decoded, corrupt);
    this.nextFrame += 1;
    return decoded;
  }

  private checkOrder(decoded: RecordingHeader | RecordingFrame, corrupt: (reason: string) => StrataError): void {
    if (this.nextFrame === 0) {
      if (decoded.kind !== 'header') throw corrupt('the first frame is not a header');
      if (decoded.version !== RECORDING_FORMAT_VERSION) throw corrupt(`the header says version ${decoded.version}, the file ${RECORDING_FORMAT_VERSION}`);
      return;
    }
    if (decoded.kind === 'header') throw corrupt('a header frame after the first frame');
    if (decoded.atMs < this.lastAtMs) throw corrupt(`atMs ${decoded.atMs} is before the previous frame's ${this.lastAtMs}`);
    this.lastAtMs = decoded.atMs;
  }
}

/** Decodes a whole file held in memory, strictly; throws the RECORDING_* codes with `{ offset, frame, reason }`. */
export function decodeRecording(bytes: Uint8Array): { header: RecordingHeader; frames: RecordingFrame[] } {
  checkFileStart(bytes.subarray(0, RECORDING_FILE_START_BYTES));
  const decoder = new FrameDecoder();
  let header: RecordingHeader | null = null;
  const frames: RecordingFrame[] = [];
  let offset = RECORDING_FILE_START_BYTES;
  while (header === null || offset < bytes.byteLength) {
    const at = { offset, frame: decoder.frame };
    if (bytes.byteLength - offset < RECORDING_FRAME_PREFIX_BYTES) throw truncatedError(at, 'the file ends inside a frame prefix');
    const prefix = bytes.subarray(offset, offset + RECORDING_FRAME_PREFIX_BYTES);
    const length = decoder.payloadLength(prefix, offset);
    const payloadStart = offset + RECORDING_FRAME_PREFIX_BYTES;
    if (bytes.byteLength - payloadStart < length) throw truncatedError(at, 'the file ends inside a frame payload');
    const decoded = decoder.decode(prefix, bytes.subarray(payloadStart, payloadStart + length), offset);
    if (decoded.kind === 'header') header = decoded;
    else frames.push(decoded);
    offset = payloadStart + length;
  }
  return { header, frames };
}
