// Owns the binary layout of one WAL record: a validated batch as columns, framed with a checksum.
import { crc32 } from 'node:zlib';

/** A validated batch in columns, as the WAL stores it and replay returns it. */
export interface BatchColumns {
  readonly length: number;
  readonly seriesIds: Uint32Array;
  readonly timestampsMs: Float64Array;
  /** Numeric values; NaN where the point holds a string (see `strings`). */
  readonly values: Float64Array;
  /** String values by point index; null when the batch has none. */
  readonly strings: ReadonlyMap<number, string> | null;
}

/** Marks the start of every record, so a torn tail is told apart from a record and a resync finds the next one cheaply. */
const RECORD_MAGIC = 0x5354_5231; // "STR1"
/** Bytes of the frame header: magic, payload length, payload crc32, seq (f64), count, flags. */
export const RECORD_HEADER_BYTES = 32;
/** Timestamps are stored as uint32 offsets from the batch minimum when the batch spans less. */
const OFFSET_SPAN_MAX_MS = 0xffff_ffff;
const FLAG_WIDE_TIMESTAMPS = 1;
const FLAG_HAS_STRINGS = 2;

/** Rounds up to a multiple of 8 so typed arrays inside a record stay aligned. */
function pad8(bytes: number): number {
  return (bytes + 7) & ~7;
}

/** The buffers of one record, ready for a single writev; `bytes` is their total size. */
export interface EncodedRecord {
  readonly buffers: readonly Uint8Array[];
  readonly bytes: number;
}

function encodeStrings(strings: ReadonlyMap<number, string>): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(4);
  head.writeUInt32LE(strings.size, 0);
  parts.push(head);
  for (const [index, text] of strings) {
    const body = Buffer.from(text, 'utf8');
    const meta = Buffer.alloc(8);
    meta.writeUInt32LE(index, 0);
    meta.writeUInt32LE(body.length, 4);
    parts.push(meta, body);
  }
  const joined = Buffer.concat(parts);
  return Buffer.concat([joined, Buffer.alloc(pad8(joined.length) - joined.length)]);
}

/** Reusable buffers for framing, so appending a batch allocates nothing per batch. */
export class RecordScratch {
  readonly header = Buffer.alloc(RECORD_HEADER_BYTES);
  readonly base = Buffer.alloc(8);
  offsets = new Uint32Array(0);
  ids = new Uint8Array(0);
}

/**
 * Frames a batch as one record: header, base time, values, timestamps, series ids, optional
 * strings. The returned buffers view `scratch` and the batch: write them before the next call.
 */
export function encodeRecord(seq: number, batch: BatchColumns, scratch: RecordScratch): EncodedRecord {
  const n = batch.length;
  let minTs = Infinity;
  let maxTs = -Infinity;
  const ts = batch.timestampsMs;
  for (let i = 0; i < n; i++) {
    const t = ts[i] as number;
    if (t < minTs) minTs = t;
    if (t > maxTs) maxTs = t;
  }
  if (n === 0) minTs = maxTs = 0;
  const wide = maxTs - minTs > OFFSET_SPAN_MAX_MS;
  const values = new Uint8Array(batch.values.buffer, batch.values.byteOffset, n * 8);
  let timeBytes: Uint8Array;
  if (wide) {
    timeBytes = new Uint8Array(ts.buffer, ts.byteOffset, n * 8);
  } else {
    const words = pad8(n * 4) / 4;
    if (scratch.offsets.length < words) scratch.offsets = new Uint32Array(words * 2);
    const offsets = scratch.offsets;
    for (let i = 0; i < n; i++) offsets[i] = (ts[i] as number) - minTs;
    offsets.fill(0, n, words);
    timeBytes = new Uint8Array(offsets.buffer, 0, words * 4);
  }
  const idLength = pad8(n * 4);
  if (scratch.ids.length < idLength) scratch.ids = new Uint8Array(idLength * 2);
  const idBytes = scratch.ids.subarray(0, idLength);
  idBytes.set(new Uint8Array(batch.seriesIds.buffer, batch.seriesIds.byteOffset, n * 4));
  idBytes.fill(0, n * 4);
  const parts: Uint8Array[] = [values, timeBytes, idBytes];
  if (batch.strings !== null && batch.strings.size > 0) parts.push(encodeStrings(batch.strings));
  const { header, base } = scratch;
  // The header's own fields after the crc are covered by the crc too (seq, count, flags).
  header.fill(0);
  header.writeDoubleLE(seq, 12);
  header.writeUInt32LE(n, 20);
  header.writeUInt32LE((wide ? FLAG_WIDE_TIMESTAMPS : 0) | (parts.length > 3 ? FLAG_HAS_STRINGS : 0), 24);
  base.writeDoubleLE(minTs, 0);
  let crc = crc32(header.subarray(12), 0);
  crc = crc32(base, crc);
  let payloadBytes = 0;
  for (const part of parts) {
    // zlib.crc32 of an empty view over an empty buffer returns 0, not the running value (Node 20).
    if (part.length > 0) crc = crc32(part, crc);
    payloadBytes += part.length;
  }
  header.writeUInt32LE(RECORD_MAGIC, 0);
  header.writeUInt32LE(payloadBytes + 8, 4);
  header.writeUInt32LE(crc >>> 0, 8);
  return { buffers: [header, base, ...parts], bytes: RECORD_HEADER_BYTES + 8 + payloadBytes };
}

/** A record read back: its seq and batch. */
export interface DecodedRecord {
  readonly seq: number;
  readonly batch: BatchColumns;
}

/** Every record starts at a multiple of this many bytes from its segment's start (each record's size is one). */
export const RECORD_ALIGN_BYTES = 8;
/** The smallest record: a header and the base time of an empty batch. */
export const RECORD_BYTES_MIN = RECORD_HEADER_BYTES + 8;
/** The magic as it lies on disk, to recognise a header cut short before its length field. */
const MAGIC_BYTES = ((): Buffer => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(RECORD_MAGIC, 0);
  return bytes;
})();
const KNOWN_FLAGS = FLAG_WIDE_TIMESTAMPS | FLAG_HAS_STRINGS;

/**
 * The length field a record of `count` points and `flags` must carry, strings excluded (they add at
 * least 8 bytes when FLAG_HAS_STRINGS is set); -1 for flags no encoder writes.
 */
function fixedPayloadBytes(count: number, flags: number): number {
  if ((flags & ~KNOWN_FLAGS) !== 0) return -1;
  const timeBytes = (flags & FLAG_WIDE_TIMESTAMPS) !== 0 ? count * 8 : pad8(count * 4);
  return 8 + count * 8 + timeBytes + pad8(count * 4);
}

/** True when a header's length field agrees with its count and flags, as every encoded header does. */
function lengthAgrees(buf: Buffer, offset: number, payloadBytes: number): boolean {
  const flags = buf.readUInt32LE(offset + 24);
  const fixed = fixedPayloadBytes(buf.readUInt32LE(offset + 20), flags);
  if (fixed < 0 || payloadBytes % RECORD_ALIGN_BYTES !== 0) return false;
  return (flags & FLAG_HAS_STRINGS) !== 0 ? payloadBytes >= fixed + 8 : payloadBytes === fixed;
}

/** The crc32 over the header tail and the payload of the record at `offset` if it ended at `end`. */
function frameCrc(buf: Buffer, offset: number, end: number): number {
  const crc = crc32(buf.subarray(offset + 12, offset + RECORD_HEADER_BYTES));
  // A torn header may have no payload after it; zlib.crc32 of an empty view can drop the running value (Node 20).
  return (end > offset + RECORD_HEADER_BYTES ? crc32(buf.subarray(offset + RECORD_HEADER_BYTES, end), crc) : crc) >>> 0;
}

/**
 * Where the record framed at `offset` ends, or -1 when no intact record starts there. The cheap tests
 * come first, since a resync calls this at every 8-byte step of a damaged span: the magic, the length
 * within `buf` and agreeing with the header's count and flags, then the crc (which covers the header
 * after itself, padding included).
 */
export function intactRecordEnd(buf: Buffer, offset: number): number {
  if (offset + RECORD_HEADER_BYTES > buf.length || buf.readUInt32LE(offset) !== RECORD_MAGIC) return -1;
  const payloadBytes = buf.readUInt32LE(offset + 4);
  const end = offset + RECORD_HEADER_BYTES + payloadBytes;
  if (end > buf.length || !lengthAgrees(buf, offset, payloadBytes)) return -1;
  return frameCrc(buf, offset, end) === buf.readUInt32LE(offset + 8) ? end : -1;
}

/** The seq in the header at `offset` (meaningful once intactRecordEnd accepted the record). */
export function recordSeq(buf: Buffer, offset: number): number {
  return buf.readDoubleLE(offset + 12);
}

/**
 * True when the bytes from `offset` to the end of `buf` are what a writev cut short by a crash
 * leaves: a prefix of the magic, or a whole header (magic, `expectedSeq`, a length agreeing with
 * its count and flags) whose length runs past the end. A complete record whose length field alone
 * was hit checks over the bytes up to the end: that is damage, not a tear.
 */
export function isTornRecord(buf: Buffer, offset: number, expectedSeq: number): boolean {
  const available = buf.length - offset;
  if (available < RECORD_HEADER_BYTES) {
    const shown = Math.min(available, MAGIC_BYTES.length);
    return buf.subarray(offset, offset + shown).equals(MAGIC_BYTES.subarray(0, shown));
  }
  if (buf.readUInt32LE(offset) !== RECORD_MAGIC || recordSeq(buf, offset) !== expectedSeq) return false;
  const payloadBytes = buf.readUInt32LE(offset + 4);
  if (RECORD_HEADER_BYTES + payloadBytes <= available || !lengthAgrees(buf, offset, payloadBytes)) return false;
  return frameCrc(buf, offset, buf.length) !== buf.readUInt32LE(offset + 8);
}

/**
 * Reads the strings section in [offset, end). The bounds matter only for a frame no encoder wrote
 * whose crc still checks (one a client's values spell, met by a resync): its reads stay inside it.
 */
function decodeStrings(buf: Buffer, offset: number, end: number): Map<number, string> {
  const count = buf.readUInt32LE(offset);
  const strings = new Map<number, string>();
  let at = offset + 4;
  for (let i = 0; i < count && at + 8 <= end; i++) {
    const index = buf.readUInt32LE(at);
    const len = Math.min(buf.readUInt32LE(at + 4), end - at - 8);
    strings.set(index, buf.toString('utf8', at + 8, at + 8 + len));
    at += 8 + len;
  }
  return strings;
}

/** Reads the record at `offset`, which intactRecordEnd must have accepted (this checks nothing). */
export function readRecord(buf: Buffer, offset: number): DecodedRecord {
  const seq = recordSeq(buf, offset);
  const n = buf.readUInt32LE(offset + 20);
  const flags = buf.readUInt32LE(offset + 24);
  const minTs = buf.readDoubleLE(offset + RECORD_HEADER_BYTES);
  let at = offset + RECORD_HEADER_BYTES + 8;
  // Copies keep the batch independent of the file buffer and aligned for typed arrays.
  const values = new Float64Array(n);
  new Uint8Array(values.buffer).set(buf.subarray(at, at + n * 8));
  at += n * 8;
  const timestampsMs = new Float64Array(n);
  if ((flags & FLAG_WIDE_TIMESTAMPS) !== 0) {
    new Uint8Array(timestampsMs.buffer).set(buf.subarray(at, at + n * 8));
    at += n * 8;
  } else {
    const offsets = new Uint32Array(n);
    new Uint8Array(offsets.buffer).set(buf.subarray(at, at + n * 4));
    for (let i = 0; i < n; i++) timestampsMs[i] = minTs + (offsets[i] as number);
    at += pad8(n * 4);
  }
  const seriesIds = new Uint32Array(n);
  new Uint8Array(seriesIds.buffer).set(buf.subarray(at, at + n * 4));
  at += pad8(n * 4);
  const end = offset + RECORD_HEADER_BYTES + buf.readUInt32LE(offset + 4);
  const strings = (flags & FLAG_HAS_STRINGS) !== 0 ? decodeStrings(buf, at, end) : null;
  return { seq, batch: { length: n, seriesIds, timestampsMs, values, strings } };
}

/**
 * Reads the record at `offset`; returns undefined when no intact record starts there (torn or
 * corrupt), else the record and the offset after it.
 */
export function decodeRecord(buf: Buffer, offset: number): { record: DecodedRecord; next: number } | undefined {
  const end = intactRecordEnd(buf, offset);
  return end < 0 ? undefined : { record: readRecord(buf, offset), next: end };
}
