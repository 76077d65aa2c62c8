// Owns the tests of the streaming recording reader: frames across chunk boundaries, large files, and coded errors with file offsets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { decodeRecording, encodeFileStart, encodeFrame, encodeRecording } from '../../src/recording/recording-codec.js';
import { RECORDING_FRAME_BYTES_MAX, RECORDING_READ_CHUNK_BYTES } from '../../src/recording/recording-limits.js';
import { openRecording, type RecordingReadOptions } from '../../src/recording/recording-reader.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';

const HEADER: RecordingHeader = { kind: 'header', version: 1, startedAtMs: 1_700_000_000_000, sequence: 3, producer: 'test', description: 'reader tests' };

function exchange(atMs: number, bodyBytes: number | null): RecordedExchange {
  const body = bodyBytes === null ? null : Buffer.alloc(bodyBytes, atMs & 0xff);
  return { kind: 'exchange', atMs, method: 'POST', url: `/ingest/v2.0/100000/ingest?n=${atMs}`, tenant: '100000', contentType: 'application/json', body, status: 200, durationMs: 3 };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-recording-reader-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fileWith(bytes: Uint8Array, name = 'r.strata-rec'): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Every frame the reader yields, and the error that ended the pass (null at a clean end). */
async function readAll(path: string, options?: RecordingReadOptions): Promise<{ frames: RecordingFrame[]; error: StrataError | null }> {
  const reader = await openRecording(path, options);
  const frames: RecordingFrame[] = [];
  try {
    for await (const frame of reader.frames()) frames.push(frame);
    return { frames, error: null };
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return { frames, error: error as StrataError };
  } finally {
    await reader.close();
  }
}

async function openError(path: string): Promise<StrataError> {
  const error: unknown = await openRecording(path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

/** Frames with bodies as base64 text: vitest's deep equality walks large Buffers byte by byte, which is slow. */
function comparable(frames: readonly RecordingFrame[]): unknown[] {
  return frames.map((f) => (f.kind === 'exchange' ? { ...f, body: f.body === null ? null : Buffer.from(f.body).toString('base64') } : f));
}

/** Byte offset where frame `index` (0 = header) starts. */
function frameOffset(frames: readonly RecordingFrame[], index: number): number {
  let offset = encodeFileStart(HEADER).length;
  for (const frame of frames.slice(0, index - 1)) offset += encodeFrame(frame).length;
  return index === 0 ? 18 : offset;
}

describe('recording reader', () => {
  it('streams a file several chunks long whose frames straddle the chunk boundaries', async () => {
    const frames: RecordingFrame[] = [];
    // Bodies of 1.5 chunks, a third of a chunk and tiny ones: boundaries fall inside prefixes, payloads and large frames.
    for (let i = 0; i < 40; i += 1) frames.push(exchange(i * 10, [RECORDING_READ_CHUNK_BYTES * 1.5, Math.floor(RECORDING_READ_CHUNK_BYTES / 3) + i, 7, null][i % 4]!));
    frames.splice(20, 0, { kind: 'gap', atMs: 195, dropped: 4 });
    const bytes = encodeRecording(HEADER, frames);
    expect(bytes.length).toBeGreaterThan(RECORDING_READ_CHUNK_BYTES * 10);
    const path = fileWith(bytes);
    const reader = await openRecording(path);
    expect(reader.header).toEqual(HEADER);
    expect(reader.sizeBytes).toBe(bytes.length);
    expect(reader.path).toBe(path);
    await reader.close();
    const { frames: read, error } = await readAll(path);
    expect(error).toBeNull();
    expect(read.every((frame) => frame.kind === 'gap' || frame.body === null || Buffer.isBuffer(frame.body))).toBe(true);
    expect(comparable(read)).toEqual(comparable(frames));
  });

  it('gives the same frames as decodeRecording for any chunk size', async () => {
    const frameArb = fc.oneof(
      fc.record({ atMs: fc.nat(1000), body: fc.option(fc.nat(300)) }).map(({ atMs, body }) => exchange(atMs, body)),
      fc.record({ atMs: fc.nat(1000), dropped: fc.integer({ min: 1, max: 9 }) }).map(({ atMs, dropped }) => ({ kind: 'gap' as const, atMs, dropped })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { maxLength: 12 }), fc.integer({ min: 1, max: 700 }), async (unsorted, chunk) => {
        const frames = unsorted.sort((a, b) => a.atMs - b.atMs);
        const bytes = encodeRecording(HEADER, frames);
        const { frames: read, error } = await readAll(fileWith(bytes), { readChunkBytes: chunk });
        expect(error).toBeNull();
        expect(read).toEqual(decodeRecording(bytes).frames);
      }),
      { numRuns: 60 },
    );
  });

  it('can read the frames twice and closes idempotently', async () => {
    const frames = [exchange(1, 10), exchange(2, null)];
    const reader = await openRecording(fileWith(encodeRecording(HEADER, frames)));
    for (const _pass of [1, 2]) {
      const read: RecordingFrame[] = [];
      for await (const frame of reader.frames()) read.push(frame);
      expect(read).toEqual(frames);
    }
    await reader.close();
    await reader.close();
  });
});

describe('recording reader errors', () => {
  it.each([
    ['an empty file', Buffer.alloc(0)],
    ['a file shorter than the magic', Buffer.from('STRATA')],
    ['a JSON file', Buffer.from('[{"metricName":"a"}]')],
  ])('refuses %s as RECORDING_NOT_A_RECORDING at open', async (_name, bytes) => {
    const error = await openError(fileWith(bytes));
    expect(error.code).toBe('RECORDING_NOT_A_RECORDING');
    expect(error.details).toMatchObject({ offset: 0 });
  });

  it('refuses another format version at open', async () => {
    const bytes = encodeRecording(HEADER, []);
    bytes.writeUInt16BE(7, 16);
    const error = await openError(fileWith(bytes));
    expect(error.code).toBe('RECORDING_VERSION_UNSUPPORTED');
    expect(error.details).toMatchObject({ offset: 16, version: 7 });
  });

  it('reports a header cut short or missing at open as RECORDING_TRUNCATED', async () => {
    const start = encodeFileStart(HEADER);
    for (const cut of [17, 18, 20, start.length - 1]) {
      const error = await openError(fileWith(start.subarray(0, cut)));
      expect(error.code).toBe('RECORDING_TRUNCATED');
      expect(error.details).toMatchObject({ offset: cut < 18 ? 16 : 18, frame: 0, framesRead: 0 });
    }
  });

  it('refuses a first frame that is not a header at open as RECORDING_CORRUPT', async () => {
    const bytes = Buffer.concat([encodeFileStart(HEADER).subarray(0, 18), encodeFrame(exchange(1, 1))]);
    const error = await openError(fileWith(bytes));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ offset: 18, frame: 0 });
  });

  it('yields the frames before a cut and then RECORDING_TRUNCATED with the file offset of the cut frame', async () => {
    const frames = [exchange(1, 2_000), exchange(2, RECORDING_READ_CHUNK_BYTES + 10), exchange(3, 5)];
    const bytes = encodeRecording(HEADER, frames);
    for (const chunk of [undefined, 5, 4096]) {
      for (const cut of [frameOffset(frames, 2) + 3, frameOffset(frames, 2) + 100_000, bytes.length - 1]) {
        const { frames: read, error } = await readAll(fileWith(bytes.subarray(0, cut)), chunk === undefined ? {} : { readChunkBytes: chunk });
        const cutFrame = cut >= frameOffset(frames, 3) ? 3 : 2;
        expect(comparable(read)).toEqual(comparable(frames.slice(0, cutFrame - 1)));
        expect(error?.code).toBe('RECORDING_TRUNCATED');
        expect(error?.details).toMatchObject({ offset: frameOffset(frames, cutFrame), frame: cutFrame, framesRead: cutFrame });
      }
    }
  });

  it('reports a CRC mismatch and an oversized length as RECORDING_CORRUPT at the frame offset', async () => {
    const frames = [exchange(1, 10), exchange(2, 20), exchange(3, 30)];
    const flipped = encodeRecording(HEADER, frames);
    flipped[frameOffset(frames, 2) + 20]! ^= 0x40;
    const crc = await readAll(fileWith(flipped, 'crc'), { readChunkBytes: 16 });
    expect(crc.frames).toEqual(frames.slice(0, 1));
    expect(crc.error?.code).toBe('RECORDING_CORRUPT');
    expect(crc.error?.details).toMatchObject({ offset: frameOffset(frames, 2), frame: 2, reason: 'the payload fails its CRC-32' });

    const long = encodeRecording(HEADER, frames);
    long.writeUInt32BE(RECORDING_FRAME_BYTES_MAX + 1, frameOffset(frames, 3));
    const length = await readAll(fileWith(long, 'long'));
    expect(length.frames).toEqual(frames.slice(0, 2));
    expect(length.error?.code).toBe('RECORDING_CORRUPT');
    expect(length.error?.details).toMatchObject({ offset: frameOffset(frames, 3), frame: 3 });
  });

  it('refuses a second header frame as RECORDING_CORRUPT', async () => {
    const bytes = Buffer.concat([encodeRecording(HEADER, [exchange(1, 1)]), encodeFileStart(HEADER).subarray(18)]);
    const { frames, error } = await readAll(fileWith(bytes));
    expect(frames).toHaveLength(1);
    expect(error?.code).toBe('RECORDING_CORRUPT');
    expect(error?.details).toMatchObject({ frame: 2, reason: 'a header frame after the first frame' });
  });
});
