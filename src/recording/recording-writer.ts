// Owns writing a recording: a cheap record() that queues exchanges with their bodies by reference, one ordered drain that checksums in bounded steps and writes with writev, the bounded queue with gap frames, and rotation.
import { unlink, type FileHandle } from 'node:fs/promises';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { createFrameCodec, encodeExchangeAround, encodeFileStart, encodeFrame, framePrefix, type FrameCodec } from './recording-codec.js';
import { createRecordingFile, recordingOpenError, shiftRecordingFiles, writeFully } from './recording-files.js';
import {
  RECORDING_ENCODE_BYTES_PER_STEP,
  RECORDING_FILE_BYTES_MAX,
  RECORDING_FILE_BYTES_MIN,
  RECORDING_FILE_START_BYTES_MAX,
  RECORDING_FILES_MAX,
  RECORDING_FORMAT_VERSION,
  RECORDING_FRAME_BYTES_MAX,
  RECORDING_FRAME_PREFIX_BYTES,
  RECORDING_WRITE_BATCH_BUFFERS_MAX,
} from './recording-limits.js';
import type { RecordingBody, RecordingHeader, RecordingInput, RecordingWriter, RecordingWriterOptions, RecordingWriterStats } from './recording-types.js';

/** A frame waiting for the disk: its payload in parts (an exchange's head, body chunks and tail) that are never joined. */
interface QueuedFrame {
  readonly parts: readonly Uint8Array[];
  readonly payloadBytes: number;
  /** True for a recorded request (lost ones count as dropped), false for a gap frame (it only retells drops). */
  readonly exchange: boolean;
  /** Length and CRC-32; null until the drain has checksummed the parts. */
  prefix: Buffer | null;
}

function frameBytes(frame: QueuedFrame): number {
  return RECORDING_FRAME_PREFIX_BYTES + frame.payloadBytes;
}

/** The rule for a file cap (`fileBytesMax`, `--record-max-bytes`): null when `value` is accepted, else what is. The one place the rule lives. */
export function fileBytesMaxProblem(value: number): string | null {
  if (Number.isSafeInteger(value) && value >= RECORDING_FILE_BYTES_MIN && value <= RECORDING_FILE_BYTES_MAX) return null;
  return `an integer from ${RECORDING_FILE_BYTES_MIN} (room for a file start and one largest request) to ${RECORDING_FILE_BYTES_MAX}`;
}

/** The rule for the number of files of a rotation set (`files`, `--record-files`): null when accepted, else what is. */
export function filesProblem(value: number): string | null {
  return Number.isSafeInteger(value) && value >= 1 && value <= RECORDING_FILES_MAX ? null : `an integer from 1 to ${RECORDING_FILES_MAX}`;
}

function invalid(option: string, value: unknown, accepted: string): StrataError {
  return new StrataError('CONFIG_INVALID', `Recording option ${option} is ${String(value)}; it must be ${accepted}.`, { option, value, accepted });
}

function checkOptions(options: RecordingWriterOptions): void {
  const { path, fileBytesMax, files, queueBytesMax } = options;
  if (typeof path !== 'string' || path.length === 0) throw invalid('path', path, 'a file path');
  const fileBytesRule = fileBytesMaxProblem(fileBytesMax);
  if (fileBytesRule !== null) throw invalid('fileBytesMax', fileBytesMax, fileBytesRule);
  const filesRule = filesProblem(files);
  if (filesRule !== null) throw invalid('files', files, filesRule);
  if (!Number.isSafeInteger(queueBytesMax) || queueBytesMax < 1) throw invalid('queueBytesMax', queueBytesMax, 'a positive integer');
}

/** The body's chunks (a copy of the list, never of the bytes) and their total length; null without a body. */
function bodyChunks(body: RecordingBody): { chunks: readonly Uint8Array[]; bytes: number } | null {
  if (body === null) return null;
  const chunks = body instanceof Uint8Array ? [body] : Array.from(body);
  let bytes = 0;
  for (const chunk of chunks) {
    assert(chunk instanceof Uint8Array, 'a recorded body chunk is a Uint8Array');
    bytes += chunk.byteLength;
  }
  return { chunks, bytes };
}

class FileRecordingWriter implements RecordingWriter {
  /** Frames not yet on disk, from `head` on; compacted now and then so taking from the front stays cheap. */
  private queue: QueuedFrame[] = [];
  private head = 0;
  private framesInFile = 0;
  private queuedBytes = 0;
  private lastAtMs = 0;
  private pendingGap: { atMs: number; dropped: number } | null = null;
  private sequence = 0;
  private framesWritten = 0;
  private bytesWritten: number;
  private dropped = 0;
  private rotations = 0;
  /** Bytes checksummed since the drain last gave the event loop a turn. */
  private stepBytes = 0;
  private draining = false;
  private failure: Error | null = null;
  private closePromise: Promise<void> | null = null;
  private appendTail: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];

  constructor(
    private readonly options: RecordingWriterOptions,
    private readonly header: RecordingHeader,
    private readonly codec: FrameCodec,
    private file: FileHandle | null,
    private fileBytes: number,
  ) {
    this.bytesWritten = fileBytes;
  }

  record(input: RecordingInput): void {
    let atMs = this.lastAtMs;
    try {
      if (this.closePromise !== null || this.failure !== null) {
        // Nothing more reaches this recording, so no gap frame can tell of it; the count still does.
        this.dropped += 1;
        return;
      }
      atMs = this.nextAtMs(input.arrivedAtMs);
      this.lastAtMs = atMs;
      const frame = this.exchangeFrame(input, atMs);
      if (frame === null || !this.tryQueue(frame, false)) this.drop(atMs);
    } catch (error) {
      // A malformed exchange is the caller's bug: reported and counted in the next gap frame like any drop, never thrown into the request path.
      this.drop(atMs);
      this.report(error as Error);
    }
  }

  async append(input: RecordingInput): Promise<void> {
    assert(this.closePromise === null, 'append() after close() of a recording writer');
    // Appends queue one after another, so each stamps its atMs at the moment it is queued, after any it waited behind.
    const run = this.appendTail.then(() => this.appendNow(input));
    this.appendTail = run.catch(() => undefined);
    return run;
  }

  private async appendNow(input: RecordingInput): Promise<void> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const atMs = this.nextAtMs(input.arrivedAtMs);
      const frame = this.exchangeFrame(input, atMs);
      assert(frame !== null, 'append() of a frame over RECORDING_FRAME_BYTES_MAX');
      if (this.tryQueue(frame, this.queuedBytes === 0)) {
        this.lastAtMs = atMs;
        return;
      }
      await this.progress();
    }
  }

  stats(): RecordingWriterStats {
    const { framesWritten, bytesWritten, dropped, rotations, queuedBytes } = this;
    return { framesWritten, bytesWritten, dropped, rotations, queuedBytes };
  }

  close(): Promise<void> {
    this.closePromise ??= this.finish();
    return this.closePromise;
  }

  private async finish(): Promise<void> {
    await this.appendTail;
    if (this.pendingGap !== null && this.failure === null) {
      this.enqueue(this.gapFrame());
      this.pendingGap = null;
      this.kick();
    }
    while (this.draining) await this.progress();
    const file = this.file;
    this.file = null;
    if (file === null) return;
    try {
      if (this.failure === null) await file.sync();
    } catch (error) {
      this.fail(error as Error);
    } finally {
      await file.close().catch((error: Error) => this.fail(error));
    }
  }

  private nextAtMs(arrivedAtMs: number): number {
    assert(Number.isSafeInteger(arrivedAtMs), 'arrivedAtMs must be integer milliseconds');
    return Math.max(this.lastAtMs, arrivedAtMs - this.header.startedAtMs);
  }

  /**
   * The exchange as a queued frame: only the few bytes around the body are encoded here (the
   * fields are checked on the way); the body's chunks are referenced. Null when the frame would be
   * over RECORDING_FRAME_BYTES_MAX.
   */
  private exchangeFrame(input: RecordingInput, atMs: number): QueuedFrame | null {
    const body = bodyChunks(input.body);
    if (body !== null && body.bytes > RECORDING_FRAME_BYTES_MAX) return null;
    const { method, url, tenant, contentType, status, durationMs } = input;
    const { head, tail } = encodeExchangeAround({ atMs, method, url, tenant, contentType, status, durationMs }, body?.bytes ?? null, this.codec);
    const payloadBytes = head.length + (body?.bytes ?? 0) + tail.length;
    if (payloadBytes > RECORDING_FRAME_BYTES_MAX) return null;
    return { parts: body === null ? [head, tail] : [head, ...body.chunks, tail], payloadBytes, exchange: true, prefix: null };
  }

  private drop(atMs: number): void {
    this.dropped += 1;
    if (this.pendingGap === null) this.pendingGap = { atMs, dropped: 0 };
    this.pendingGap.dropped += 1;
  }

  /** The pending gap as a frame; a few bytes, so it is encoded and checksummed at once. */
  private gapFrame(): QueuedFrame {
    assert(this.pendingGap !== null, 'no gap to encode');
    const bytes = encodeFrame({ kind: 'gap', ...this.pendingGap }, this.codec);
    const prefix = bytes.subarray(0, RECORDING_FRAME_PREFIX_BYTES);
    return { parts: [bytes.subarray(RECORDING_FRAME_PREFIX_BYTES)], payloadBytes: bytes.length - RECORDING_FRAME_PREFIX_BYTES, exchange: false, prefix };
  }

  /** Queues the pending gap frame (if any) and then `frame` when both fit under queueBytesMax, or when `force`. */
  private tryQueue(frame: QueuedFrame, force: boolean): boolean {
    const gap = this.pendingGap === null ? null : this.gapFrame();
    const needed = frameBytes(frame) + (gap === null ? 0 : frameBytes(gap));
    if (!force && this.queuedBytes + needed > this.options.queueBytesMax) return false;
    if (gap !== null) this.enqueue(gap);
    this.pendingGap = null;
    this.enqueue(frame);
    this.kick();
    return true;
  }

  private enqueue(frame: QueuedFrame): void {
    this.queue.push(frame);
    this.queuedBytes += frameBytes(frame);
  }

  private kick(): void {
    if (this.draining || this.failure !== null) return;
    this.draining = true;
    // Started on a later macrotask: the caller's turn (a response being finished) never pays for checksums.
    setImmediate(() => void this.drain());
  }

  /** The one loop that writes: it runs while frames wait, so frames reach the disk in the order they were queued. */
  private async drain(): Promise<void> {
    this.stepBytes = 0;
    try {
      while (this.head < this.queue.length && this.failure === null) {
        const count = this.batchSize();
        if (count === 0) await this.rotate();
        else await this.writeBatch(count);
      }
    } catch (error) {
      this.fail(error as Error);
    } finally {
      // Runs in the same turn as the loop's last check, so a frame queued later always finds draining false and kicks.
      this.draining = false;
      this.notify();
    }
  }

  /** How many queued frames the next write takes: as many as fit the current file and one writev; 0 means rotate first. */
  private batchSize(): number {
    // A file holding only its start takes any frame: RECORDING_FILE_BYTES_MIN leaves room for one, and rotating it would loop.
    const freshFile = this.framesInFile === 0;
    let bytes = 0;
    let buffers = 0;
    let count = 0;
    while (this.head + count < this.queue.length) {
      const next = this.queue[this.head + count]!;
      const nextBuffers = next.parts.length + 1;
      // A frame of more chunks than one writev takes goes alone; writeFully splits it.
      if (count > 0 && buffers + nextBuffers > RECORDING_WRITE_BATCH_BUFFERS_MAX) break;
      if (this.fileBytes + bytes + frameBytes(next) > this.options.fileBytesMax && !(freshFile && count === 0)) break;
      bytes += frameBytes(next);
      buffers += nextBuffers;
      count += 1;
    }
    return count;
  }

  /** Computes a frame's CRC-32 over its parts where they lie, giving the event loop a turn after every RECORDING_ENCODE_BYTES_PER_STEP bytes. */
  private async seal(frame: QueuedFrame): Promise<void> {
    if (frame.prefix !== null) return;
    let crc = 0;
    for (const part of frame.parts) {
      // An empty part is never passed on: zlib.crc32 of an empty Buffer without backing memory returns 0, not the running CRC.
      let offset = 0;
      while (offset < part.byteLength) {
        if (this.stepBytes >= RECORDING_ENCODE_BYTES_PER_STEP) {
          await nextMacrotask();
          this.stepBytes = 0;
        }
        const take = Math.min(part.byteLength - offset, RECORDING_ENCODE_BYTES_PER_STEP - this.stepBytes);
        crc = crc32(part.subarray(offset, offset + take), crc);
        offset += take;
        this.stepBytes += take;
      }
    }
    frame.prefix = framePrefix(frame.payloadBytes, crc);
  }

  private async writeBatch(count: number): Promise<void> {
    const batch = this.queue.slice(this.head, this.head + count);
    for (const frame of batch) await this.seal(frame);
    assert(this.file !== null, 'the recording file is open while frames are written');
    await writeFully(this.file, batch.flatMap((frame) => [frame.prefix!, ...frame.parts]));
    // The write completed on a turn of its own: the step budget starts again.
    this.stepBytes = 0;
    const bytes = batch.reduce((sum, frame) => sum + frameBytes(frame), 0);
    this.head += count;
    if (this.head >= RECORDING_WRITE_BATCH_BUFFERS_MAX && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.queuedBytes -= bytes;
    this.fileBytes += bytes;
    this.bytesWritten += bytes;
    this.framesWritten += count;
    this.framesInFile += count;
    this.notify();
  }

  /** Closes the full file (fsync first), shifts the older ones, and starts a new file whose header has the next sequence. */
  private async rotate(): Promise<void> {
    const full = this.file;
    assert(full !== null, 'the recording file is open when it is rotated');
    this.file = null;
    try {
      await full.sync();
    } finally {
      await full.close();
    }
    await shiftRecordingFiles(this.options.path, this.options.files);
    this.file = await createRecordingFile(this.options.path);
    this.sequence += 1;
    const start = encodeFileStart({ ...this.header, sequence: this.sequence }, this.codec);
    await writeFully(this.file, [start]);
    this.fileBytes = start.length;
    this.framesInFile = 0;
    this.bytesWritten += start.length;
    this.rotations += 1;
  }

  /** Stops writing for good: the frames still queued are lost and counted as dropped; the error goes to onError once. */
  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    // Gap frames only retell drops already counted; each lost exchange is a new drop.
    for (let index = this.head; index < this.queue.length; index += 1) if (this.queue[index]!.exchange) this.dropped += 1;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.pendingGap = null;
    this.report(error);
    this.notify();
  }

  private report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing error callback must not turn a recording problem into a server crash.
    }
  }

  private progress(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Opens a recording for writing: checks the options (CONFIG_INVALID), makes room at `path` (a
 * recording there is rotated to `path.1`; anything else there or at a rotated name is refused with
 * CONFIG_INVALID naming it), creates the file exclusively with mode 0o600 and writes its start. A
 * system error on the way (a missing directory, EACCES, ENOSPC …) is CONFIG_INVALID with details
 * `{ path, code }`. `stats().framesWritten` counts exchange and gap frames on disk (not headers);
 * `bytesWritten` counts every byte, file starts included.
 */
export async function openRecordingWriter(options: RecordingWriterOptions): Promise<RecordingWriter> {
  checkOptions(options);
  const codec = createFrameCodec();
  const { path, producer, description } = options;
  const header: RecordingHeader = { kind: 'header', version: RECORDING_FORMAT_VERSION, startedAtMs: options.now(), sequence: 0, producer, description };
  const start = encodeFileStart(header, codec);
  if (start.length > RECORDING_FILE_START_BYTES_MAX) {
    throw invalid('producer and description', `${start.length} bytes long`, `at most ${RECORDING_FILE_START_BYTES_MAX} bytes with the file start`);
  }
  let file: FileHandle;
  try {
    await shiftRecordingFiles(path, options.files);
    file = await createRecordingFile(path);
  } catch (error) {
    throw recordingOpenError(path, error);
  }
  try {
    await writeFully(file, [start]);
  } catch (error) {
    // The file is new (created exclusively), so removing it again touches nothing else.
    await file.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw recordingOpenError(path, error);
  }
  return new FileRecordingWriter(options, header, codec, file, start.length);
}
