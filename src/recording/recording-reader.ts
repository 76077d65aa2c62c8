// Owns reading a recording file from disk as a stream of frames, in bounded chunks, with file-relative offsets in its errors.
import { open, type FileHandle } from 'node:fs/promises';
import { assert } from '../core/assert.js';
import { FrameDecoder, RECORDING_FILE_START_BYTES, checkFileStart, truncatedError } from './recording-codec.js';
import { RECORDING_FRAME_PREFIX_BYTES, RECORDING_READ_CHUNK_BYTES } from './recording-limits.js';
import type { RecordingFrame, RecordingHeader } from './recording-types.js';

/** An open recording: its header, checked at open, and its frames, read on demand. */
export interface RecordingReader {
  readonly path: string;
  readonly header: RecordingHeader;
  /** Size of the file when it was opened. */
  readonly sizeBytes: number;
  /** The frames after the header, in file order; each call starts a new pass from the first of them. Throws RECORDING_TRUNCATED or RECORDING_CORRUPT. */
  frames(): AsyncGenerator<RecordingFrame>;
  /** Closes the file; idempotent. */
  close(): Promise<void>;
}

/** How a reader reads; tests shrink the chunk to put frame boundaries everywhere. */
export interface RecordingReadOptions {
  /** Bytes read from disk at a time (default RECORDING_READ_CHUNK_BYTES). */
  readonly readChunkBytes?: number;
}

/**
 * Hands out byte ranges of a file in order while holding at most one chunk plus the range asked
 * for: a range that fits a chunk is served from it (refilled when needed), a larger one is read
 * straight into its own buffer. Every chunk is a new Buffer, so a range handed out stays valid.
 */
class ChunkCursor {
  private chunk = Buffer.alloc(0);
  private chunkPosition = 0;
  private chunkFileOffset: number;

  constructor(
    private readonly file: FileHandle,
    startOffset: number,
    private readonly chunkBytes: number,
  ) {
    this.chunkFileOffset = startOffset;
  }

  /** File offset of the next byte `take` hands out. */
  get offset(): number {
    return this.chunkFileOffset + this.chunkPosition;
  }

  /** The next `length` bytes, or fewer when the file ends first (the caller reports truncation). */
  async take(length: number): Promise<Buffer> {
    if (this.chunk.length - this.chunkPosition < length) await this.refill(length);
    const end = Math.min(this.chunk.length, this.chunkPosition + length);
    const bytes = this.chunk.subarray(this.chunkPosition, end);
    this.chunkPosition = end;
    return bytes;
  }

  /** Replaces the chunk with its unread rest followed by fresh bytes, at least `length` of them when the file has them. */
  private async refill(length: number): Promise<void> {
    const rest = this.chunk.subarray(this.chunkPosition);
    const next = Buffer.allocUnsafe(Math.max(this.chunkBytes, length));
    rest.copy(next, 0);
    let filled = rest.length;
    const fileOffset = this.offset;
    // A range larger than a chunk is read exactly; otherwise the chunk is filled as far as the file goes.
    const want = length > this.chunkBytes ? length : next.length;
    while (filled < want) {
      const { bytesRead } = await this.file.read(next, filled, want - filled, fileOffset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.chunk = next.subarray(0, filled);
    this.chunkPosition = 0;
    this.chunkFileOffset = fileOffset;
  }
}

/** Reads the next frame at the cursor, or returns null at a clean end of file (between frames). */
async function readFrame(cursor: ChunkCursor, decoder: FrameDecoder): Promise<ReturnType<FrameDecoder['decode']> | null> {
  const offset = cursor.offset;
  const prefix = await cursor.take(RECORDING_FRAME_PREFIX_BYTES);
  if (prefix.length === 0) return null;
  const at = { offset, frame: decoder.frame };
  if (prefix.length < RECORDING_FRAME_PREFIX_BYTES) throw truncatedError(at, 'the file ends inside a frame prefix');
  const length = decoder.payloadLength(prefix, offset);
  const payload = await cursor.take(length);
  if (payload.length < length) throw truncatedError(at, 'the file ends inside a frame payload');
  return decoder.decode(prefix, payload, offset);
}

class FileRecordingReader implements RecordingReader {
  private closed = false;

  constructor(
    readonly path: string,
    readonly header: RecordingHeader,
    readonly sizeBytes: number,
    private readonly file: FileHandle,
    private readonly framesOffset: number,
    private readonly chunkBytes: number,
  ) {}

  async *frames(): AsyncGenerator<RecordingFrame> {
    assert(!this.closed, 'frames() of a closed recording reader');
    const cursor = new ChunkCursor(this.file, this.framesOffset, this.chunkBytes);
    const decoder = new FrameDecoder(true);
    for (;;) {
      const frame = await readFrame(cursor, decoder);
      if (frame === null) return;
      // FrameDecoder refuses a header after frame 0, so only frames arrive here.
      assert(frame.kind !== 'header', 'a header after the first frame passed the decoder');
      yield frame;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }
}

/** Opens a recording and checks its magic, version and header frame; throws the RECORDING_* codes with file offsets. */
export async function openRecording(path: string, options: RecordingReadOptions = {}): Promise<RecordingReader> {
  const chunkBytes = options.readChunkBytes ?? RECORDING_READ_CHUNK_BYTES;
  assert(Number.isSafeInteger(chunkBytes) && chunkBytes >= 1, 'readChunkBytes must be a positive integer');
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const cursor = new ChunkCursor(file, 0, chunkBytes);
    checkFileStart(await cursor.take(RECORDING_FILE_START_BYTES));
    const decoder = new FrameDecoder();
    const first = await readFrame(cursor, decoder);
    if (first === null) throw truncatedError({ offset: RECORDING_FILE_START_BYTES, frame: 0 }, 'the file ends before its header frame');
    assert(first.kind === 'header', 'the decoder accepted a first frame that is not a header');
    return new FileRecordingReader(path, first, size, file, cursor.offset, chunkBytes);
  } catch (error) {
    await file.close();
    throw error;
  }
}
