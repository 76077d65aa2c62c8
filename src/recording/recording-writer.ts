// Owns writing a recording: encoding frames on the caller's turn, one ordered drain to disk, the bounded queue with gap frames, and rotation.
import { open, rename, type FileHandle } from 'node:fs/promises';
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { createFrameCodec, encodeFileStart, encodeFrame, type FrameCodec } from './recording-codec.js';
import {
  RECORDING_FILE_BYTES_MAX,
  RECORDING_FILE_BYTES_MIN,
  RECORDING_FILES_MAX,
  RECORDING_FORMAT_VERSION,
  RECORDING_FRAME_BYTES_MAX,
  RECORDING_FRAME_PREFIX_BYTES,
} from './recording-limits.js';
import type { RecordedExchange, RecordingHeader, RecordingWriter, RecordingWriterOptions, RecordingWriterStats } from './recording-types.js';

/** Recordings hold request bodies, so only their owner may read them. */
const RECORDING_FILE_MODE = 0o600;
/** Most buffers one writev takes (Linux's IOV_MAX). */
const RECORDING_WRITE_BATCH_BUFFERS_MAX = 1024;
/** Largest file start (magic, version, header frame): what RECORDING_FILE_BYTES_MIN leaves beside one largest frame, so a fresh file always takes the next frame. */
const RECORDING_FILE_START_BYTES_MAX = RECORDING_FILE_BYTES_MIN - RECORDING_FRAME_BYTES_MAX - RECORDING_FRAME_PREFIX_BYTES;

type ExchangeInput = Omit<RecordedExchange, 'kind' | 'atMs'> & { readonly arrivedAtMs: number };

/** An encoded frame waiting for the disk; `exchange` tells a recorded request from a gap frame. */
interface QueuedFrame {
  readonly bytes: Buffer;
  readonly exchange: boolean;
}

function invalid(option: string, value: unknown, accepted: string): StrataError {
  return new StrataError('CONFIG_INVALID', `Recording option ${option} is ${String(value)}; it must be ${accepted}.`, { option, value, accepted });
}

function checkOptions(options: RecordingWriterOptions): void {
  const { path, fileBytesMax, files, queueBytesMax } = options;
  if (typeof path !== 'string' || path.length === 0) throw invalid('path', path, 'a file path');
  if (!Number.isSafeInteger(fileBytesMax) || fileBytesMax < RECORDING_FILE_BYTES_MIN || fileBytesMax > RECORDING_FILE_BYTES_MAX) {
    throw invalid('fileBytesMax', fileBytesMax, `an integer from ${RECORDING_FILE_BYTES_MIN} to ${RECORDING_FILE_BYTES_MAX}`);
  }
  if (!Number.isSafeInteger(files) || files < 1 || files > RECORDING_FILES_MAX) throw invalid('files', files, `an integer from 1 to ${RECORDING_FILES_MAX}`);
  if (!Number.isSafeInteger(queueBytesMax) || queueBytesMax < 1) throw invalid('queueBytesMax', queueBytesMax, 'a positive integer');
}

/** Creates (or truncates) a recording file and makes sure a regular file is private whatever mode it had. */
async function createFile(path: string): Promise<FileHandle> {
  const file = await open(path, 'w', RECORDING_FILE_MODE);
  try {
    const stat = await file.stat();
    if (stat.isFile() && (stat.mode & 0o777) !== RECORDING_FILE_MODE) await file.chmod(RECORDING_FILE_MODE);
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

/** Writes every buffer in order at the file's position, resuming after short writes. */
async function writeFully(file: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    let { bytesWritten } = await file.writev(rest);
    let skip = 0;
    while (skip < rest.length && bytesWritten >= rest[skip]!.length) bytesWritten -= rest[skip++]!.length;
    rest = rest.slice(skip);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}

/** Moves `path` to `path.1`, `path.1` to `path.2` … so that `files` files remain with the new one; the oldest is replaced. */
async function shiftFiles(path: string, files: number): Promise<void> {
  for (let index = files - 1; index >= 1; index -= 1) {
    const from = index === 1 ? path : `${path}.${index - 1}`;
    try {
      await rename(from, `${path}.${index}`);
    } catch (error) {
      // Older slots are empty until enough rotations have happened; the current file must exist.
      if (index === 1 || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

class FileRecordingWriter implements RecordingWriter {
  /** Encoded frames not yet on disk, from `head` on; compacted now and then so taking from the front stays cheap. */
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

  record(input: ExchangeInput): void {
    try {
      if (this.closePromise !== null || this.failure !== null) {
        // Nothing more reaches this recording, so no gap frame can tell of it; the count still does.
        this.dropped += 1;
        return;
      }
      const atMs = this.nextAtMs(input.arrivedAtMs);
      this.lastAtMs = atMs;
      if (input.body !== null && input.body.length > RECORDING_FRAME_BYTES_MAX) {
        this.drop(atMs);
        return;
      }
      const bytes = encodeFrame(exchangeFrame(input, atMs), this.codec);
      if (bytes.length - RECORDING_FRAME_PREFIX_BYTES > RECORDING_FRAME_BYTES_MAX || !this.tryQueue(bytes, false)) this.drop(atMs);
    } catch (error) {
      // A malformed exchange is the caller's bug; it is reported, never thrown into the request path.
      this.dropped += 1;
      this.report(error as Error);
    }
  }

  async append(input: ExchangeInput): Promise<void> {
    assert(this.closePromise === null, 'append() after close() of a recording writer');
    // Appends queue one after another, so each stamps its atMs at the moment it is queued, after any it waited behind.
    const run = this.appendTail.then(() => this.appendNow(input));
    this.appendTail = run.catch(() => undefined);
    return run;
  }

  private async appendNow(input: ExchangeInput): Promise<void> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const atMs = this.nextAtMs(input.arrivedAtMs);
      const bytes = encodeFrame(exchangeFrame(input, atMs), this.codec);
      assert(bytes.length - RECORDING_FRAME_PREFIX_BYTES <= RECORDING_FRAME_BYTES_MAX, 'append() of a frame over RECORDING_FRAME_BYTES_MAX');
      if (this.tryQueue(bytes, this.queuedBytes === 0)) {
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
      this.enqueue(this.encodeGap(), false);
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

  private drop(atMs: number): void {
    this.dropped += 1;
    if (this.pendingGap === null) this.pendingGap = { atMs, dropped: 0 };
    this.pendingGap.dropped += 1;
  }

  private encodeGap(): Buffer {
    assert(this.pendingGap !== null, 'no gap to encode');
    return encodeFrame({ kind: 'gap', ...this.pendingGap }, this.codec);
  }

  /** Queues the pending gap frame (if any) and then `bytes` when both fit under queueBytesMax, or when `force`. */
  private tryQueue(bytes: Buffer, force: boolean): boolean {
    const gap = this.pendingGap === null ? null : this.encodeGap();
    const needed = bytes.length + (gap === null ? 0 : gap.length);
    if (!force && this.queuedBytes + needed > this.options.queueBytesMax) return false;
    if (gap !== null) this.enqueue(gap, false);
    this.pendingGap = null;
    this.enqueue(bytes, true);
    this.kick();
    return true;
  }

  private enqueue(bytes: Buffer, exchange: boolean): void {
    this.queue.push({ bytes, exchange });
    this.queuedBytes += bytes.length;
  }

  private kick(): void {
    if (this.draining || this.failure !== null) return;
    this.draining = true;
    void this.drain();
  }

  /** The one loop that writes: it runs while frames wait, so frames reach the disk in the order they were queued. */
  private async drain(): Promise<void> {
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

  /** How many queued frames the next write takes: as many as fit in the current file; 0 means rotate first. */
  private batchSize(): number {
    // A file holding only its start takes any frame: RECORDING_FILE_BYTES_MIN leaves room for one, and rotating it would loop.
    const freshFile = this.framesInFile === 0;
    let bytes = 0;
    let count = 0;
    while (this.head + count < this.queue.length && count < RECORDING_WRITE_BATCH_BUFFERS_MAX) {
      const next = this.queue[this.head + count]!.bytes.length;
      if (this.fileBytes + bytes + next > this.options.fileBytesMax && !(freshFile && count === 0)) break;
      bytes += next;
      count += 1;
    }
    return count;
  }

  private async writeBatch(count: number): Promise<void> {
    assert(this.file !== null, 'the recording file is open while frames are written');
    const batch = this.queue.slice(this.head, this.head + count).map((frame) => frame.bytes);
    await writeFully(this.file, batch);
    const bytes = batch.reduce((sum, buffer) => sum + buffer.length, 0);
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
    await shiftFiles(this.options.path, this.options.files);
    this.file = await createFile(this.options.path);
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

function exchangeFrame(input: ExchangeInput, atMs: number): RecordedExchange {
  const { method, url, tenant, contentType, body, status, durationMs } = input;
  return { kind: 'exchange', atMs, method, url, tenant, contentType, body, status, durationMs };
}

/**
 * Opens a recording for writing: checks the options (CONFIG_INVALID), creates `path` with mode
 * 0o600 (replacing a file there) and writes its start. `stats().framesWritten` counts exchange and
 * gap frames on disk (not headers); `bytesWritten` counts every byte, file starts included.
 */
export async function openRecordingWriter(options: RecordingWriterOptions): Promise<RecordingWriter> {
  checkOptions(options);
  const codec = createFrameCodec();
  const { producer, description } = options;
  const header: RecordingHeader = { kind: 'header', version: RECORDING_FORMAT_VERSION, startedAtMs: options.now(), sequence: 0, producer, description };
  const start = encodeFileStart(header, codec);
  if (start.length > RECORDING_FILE_START_BYTES_MAX) {
    throw invalid('producer and description', `${start.length} bytes long`, `at most ${RECORDING_FILE_START_BYTES_MAX} bytes with the file start`);
  }
  const file = await createFile(options.path);
  try {
    await writeFully(file, [start]);
  } catch (error) {
    await file.close();
    throw error;
  }
  return new FileRecordingWriter(options, header, codec, file, start.length);
}
