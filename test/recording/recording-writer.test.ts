// Owns the tests of the recording writer: round trips through the reader, bytes equal to the codec's, bodies by reference, file mode, rotation, the bounded queue's gap frames, close, and write failures.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';
import { encodeFrame, encodeRecording } from '../../src/recording/recording-codec.js';
import { RECORDING_FILE_BYTES_MAX, RECORDING_FILE_BYTES_MIN, RECORDING_FILES_MAX, RECORDING_FRAME_BYTES_MAX } from '../../src/recording/recording-limits.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader, RecordingWriter, RecordingWriterOptions } from '../../src/recording/recording-types.js';
import { openRecordingWriter } from '../../src/recording/recording-writer.js';
import { readRecordingFile } from '../support/read-recording.js';

const STARTED_AT_MS = 1_700_000_000_000;
const MIB = 1024 * 1024;
/** Bodies of 4 MiB: four fit a file of RECORDING_FILE_BYTES_MIN (16 MiB + 128 KiB), a fifth rotates it. */
const LARGE_BODY = Buffer.alloc(4 * MIB, 0x61);

type Input = Parameters<RecordingWriter['record']>[0];

function input(n: number, body: Input['body'] = Buffer.from(`[{"n":${n}}]`)): Input {
  return { arrivedAtMs: STARTED_AT_MS + n, method: 'POST', url: `/ingest/v2.0/100000/ingest?n=${n}`, tenant: '100000', contentType: 'application/json', body, status: 200, durationMs: n % 7 };
}

/** The frame `input(n, body)` becomes when nothing went back in time. */
function recorded(n: number, body: Buffer | null = Buffer.from(`[{"n":${n}}]`)): RecordedExchange {
  const { arrivedAtMs: _arrived, ...rest } = input(n, body);
  return { kind: 'exchange', atMs: n, ...rest, body };
}

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-recording-writer-'));
  path = join(dir, 'requests.rec');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function options(extra: Partial<RecordingWriterOptions> = {}): RecordingWriterOptions {
  return { path, fileBytesMax: RECORDING_FILE_BYTES_MIN, files: 3, queueBytesMax: 64 * MIB, producer: 'strata test', description: 'writer tests', now: () => STARTED_AT_MS, ...extra };
}

/** Exchange numbers (from the `n` query parameter) of the frames, with gaps as `gap:<dropped>`. */
function numbers(frames: readonly RecordingFrame[]): string[] {
  return frames.map((f) => (f.kind === 'gap' ? `gap:${f.dropped}` : (new URL(f.url, 'http://x').searchParams.get('n') ?? '?')));
}

async function drained(writer: RecordingWriter): Promise<void> {
  while (writer.stats().queuedBytes > 0) await sleep(2);
}

describe('recording writer', () => {
  it('writes a file the reader reads back: header, exchanges, atMs never negative or decreasing', async () => {
    const writer = await openRecordingWriter(options());
    writer.record(input(5));
    writer.record({ ...input(6), arrivedAtMs: STARTED_AT_MS + 2 });
    writer.record(input(9, null));
    await writer.append(input(12));
    await writer.close();
    const { header, frames } = await readRecordingFile(path);
    expect(header).toEqual({ kind: 'header', version: 1, startedAtMs: STARTED_AT_MS, sequence: 0, producer: 'strata test', description: 'writer tests' });
    expect(frames).toEqual([recorded(5), { ...recorded(6), atMs: 5 }, recorded(9, null), recorded(12)]);
    const stats = writer.stats();
    expect(stats).toEqual({ framesWritten: 4, bytesWritten: statSync(path).size, dropped: 0, rotations: 0, queuedBytes: 0 });
  });

  it('clamps arrivals before the start to atMs 0', async () => {
    const writer = await openRecordingWriter(options());
    writer.record({ ...input(1), arrivedAtMs: STARTED_AT_MS - 500 });
    await writer.close();
    expect((await readRecordingFile(path)).frames.map((f) => f.atMs)).toEqual([0]);
  });

  it('creates the file with mode 0600 whatever the umask', async () => {
    const umask = process.umask(0o277);
    try {
      const writer = await openRecordingWriter(options());
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await writer.close();
    } finally {
      process.umask(umask);
    }
    expect((await readRecordingFile(path)).frames).toEqual([]);
  });

  it('writes byte for byte what encodeRecording gives for the same frames, whatever chunks the bodies came in', async () => {
    const big = Buffer.alloc(70_000, 0x5a);
    const mid = Buffer.alloc(300, 0x33);
    const writer = await openRecordingWriter(options({ queueBytesMax: 8 * MIB }));
    writer.record(input(1, null));
    writer.record(input(2, [big.subarray(0, 1), Buffer.alloc(0), big.subarray(1, 65_536), big.subarray(65_536)]));
    writer.record(input(3, []));
    writer.record(input(4, [mid.subarray(0, 100), mid.subarray(100)]));
    writer.record({ ...input(5), status: 1.5 });
    writer.record(input(6, new Uint8Array([1, 2, 3])));
    writer.record(input(7, [Buffer.from([])]));
    await writer.close();
    const header: RecordingHeader = { kind: 'header', version: 1, startedAtMs: STARTED_AT_MS, sequence: 0, producer: 'strata test', description: 'writer tests' };
    const expected = encodeRecording(header, [
      recorded(1, null),
      recorded(2, big),
      recorded(3, Buffer.alloc(0)),
      recorded(4, mid),
      { kind: 'gap', atMs: 5, dropped: 1 },
      recorded(6, Buffer.from([1, 2, 3])),
      recorded(7, Buffer.alloc(0)),
    ]);
    expect(readFileSync(path).equals(expected)).toBe(true);
  });

  it('keeps the body chunks by reference until the drain (record() neither copies nor checksums them on the caller\'s turn)', async () => {
    const writer = await openRecordingWriter(options());
    const chunk = Buffer.from('[{"n":1}]');
    writer.record(input(1, [chunk]));
    // Changed after record() returned: a copy or a checksum taken on the caller's turn would keep the old bytes or fail the CRC.
    chunk.write('[{"n":2}]');
    await writer.close();
    expect((await readRecordingFile(path)).frames).toEqual([recorded(1, Buffer.from('[{"n":2}]'))]);
  });

  it('rotates with files=3 into exactly 3 files whose headers are in sequence and whose frames are all the frames', async () => {
    const writer = await openRecordingWriter(options({ files: 3 }));
    for (let n = 0; n < 10; n += 1) await writer.append(input(n, LARGE_BODY));
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['requests.rec', 'requests.rec.1', 'requests.rec.2']);
    const files = [`${path}.2`, `${path}.1`, path];
    const read = await Promise.all(files.map(readRecordingFile));
    expect(read.map((r) => r.header.sequence)).toEqual([0, 1, 2]);
    expect(read.every((r) => r.header.startedAtMs === STARTED_AT_MS)).toBe(true);
    expect(read.map((r) => numbers(r.frames))).toEqual([['0', '1', '2', '3'], ['4', '5', '6', '7'], ['8', '9']]);
    for (const file of files) {
      expect(statSync(file).size).toBeLessThanOrEqual(RECORDING_FILE_BYTES_MIN);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(writer.stats()).toMatchObject({ framesWritten: 10, rotations: 2, dropped: 0 });
    expect(writer.stats().bytesWritten).toBe(files.reduce((sum, file) => sum + statSync(file).size, 0));
  });

  it('deletes the oldest file once more than `files` were written', async () => {
    const writer = await openRecordingWriter(options({ files: 3, queueBytesMax: 100 * MIB }));
    for (let n = 0; n < 18; n += 1) writer.record(input(n, LARGE_BODY));
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['requests.rec', 'requests.rec.1', 'requests.rec.2']);
    const read = await Promise.all([`${path}.2`, `${path}.1`, path].map(readRecordingFile));
    expect(read.map((r) => r.header.sequence)).toEqual([2, 3, 4]);
    expect(read.flatMap((r) => numbers(r.frames))).toEqual(['8', '9', '10', '11', '12', '13', '14', '15', '16', '17']);
  });

  it('replaces the one file when files=1', async () => {
    const writer = await openRecordingWriter(options({ files: 1 }));
    for (let n = 0; n < 6; n += 1) await writer.append(input(n, LARGE_BODY));
    await writer.close();
    expect(readdirSync(dir)).toEqual(['requests.rec']);
    const { header, frames } = await readRecordingFile(path);
    expect(header.sequence).toBe(1);
    expect(numbers(frames)).toEqual(['4', '5']);
  });
});

describe('recording writer queue bound', () => {
  const frameBytes = encodeFrame(recorded(1)).length;
  /** Room for one frame and its gap frame, never two frames. */
  const queueBytesMax = frameBytes + 24;

  it('drops what does not fit and writes a gap frame with the count before the next queued frame', async () => {
    const writer = await openRecordingWriter(options({ queueBytesMax }));
    for (let n = 1; n <= 7; n += 1) writer.record(input(n));
    expect(writer.stats().dropped).toBe(6);
    await drained(writer);
    writer.record(input(8));
    await writer.close();
    const { frames } = await readRecordingFile(path);
    expect(numbers(frames)).toEqual(['1', 'gap:6', '8']);
    expect(frames[1]).toEqual({ kind: 'gap', atMs: 2, dropped: 6 });
    expect(writer.stats()).toMatchObject({ framesWritten: 3, dropped: 6, queuedBytes: 0 });
  });

  it('writes the pending gap frame at close', async () => {
    const writer = await openRecordingWriter(options({ queueBytesMax }));
    for (let n = 1; n <= 3; n += 1) writer.record(input(n));
    await writer.close();
    expect(numbers((await readRecordingFile(path)).frames)).toEqual(['1', 'gap:2']);
  });

  it('append waits for room instead of dropping, in call order', async () => {
    const writer = await openRecordingWriter(options({ queueBytesMax }));
    await Promise.all(Array.from({ length: 40 }, (_, i) => writer.append(input(40 - i))));
    await writer.close();
    const { frames } = await readRecordingFile(path);
    expect(numbers(frames)).toEqual(Array.from({ length: 40 }, (_, i) => String(40 - i)));
    expect(frames.every((f) => f.atMs === 40)).toBe(true);
    expect(writer.stats().dropped).toBe(0);
  });

  it('drops a body over RECORDING_FRAME_BYTES_MAX as input, counted in a gap frame', async () => {
    const writer = await openRecordingWriter(options());
    writer.record(input(1));
    writer.record(input(2, Buffer.alloc(RECORDING_FRAME_BYTES_MAX + 1)));
    writer.record(input(3));
    await writer.close();
    expect(numbers((await readRecordingFile(path)).frames)).toEqual(['1', 'gap:1', '3']);
  });

  it('never throws from record on a malformed exchange: it is reported, counted and told by a gap frame like any drop', async () => {
    const errors: Error[] = [];
    const writer = await openRecordingWriter(options({ onError: (error) => errors.push(error) }));
    writer.record(input(1));
    expect(() => writer.record({ ...input(2), status: 1.5 })).not.toThrow();
    expect(() => writer.record({ ...input(3), arrivedAtMs: Number.NaN })).not.toThrow();
    expect(() => writer.record({ ...input(4), body: [Buffer.from('x'), 'not bytes' as unknown as Uint8Array] })).not.toThrow();
    writer.record(input(5));
    await writer.close();
    expect(errors.map((e) => e instanceof AssertionFailure)).toEqual([true, true, true]);
    expect(writer.stats().dropped).toBe(3);
    const { frames } = await readRecordingFile(path);
    expect(numbers(frames)).toEqual(['1', 'gap:3', '5']);
    // The gap starts at the first dropped request's arrival; one whose arrival was unusable takes the previous atMs.
    expect(frames[1]).toEqual({ kind: 'gap', atMs: 2, dropped: 3 });
  });
});

describe('recording writer lifecycle and failures', () => {
  it('close is idempotent; record after close is counted, append after close rejects', async () => {
    const writer = await openRecordingWriter(options());
    writer.record(input(1));
    const first = writer.close();
    expect(writer.close()).toBe(first);
    await first;
    await writer.close();
    expect(() => writer.record(input(2))).not.toThrow();
    expect(writer.stats()).toMatchObject({ framesWritten: 1, dropped: 1 });
    await expect(writer.append(input(3))).rejects.toBeInstanceOf(AssertionFailure);
    expect(numbers((await readRecordingFile(path)).frames)).toEqual(['1']);
  });

  it.each([
    ['fileBytesMax', { fileBytesMax: RECORDING_FILE_BYTES_MIN - 1 }],
    ['fileBytesMax', { fileBytesMax: RECORDING_FILE_BYTES_MAX + 1 }],
    ['files', { files: 0 }],
    ['files', { files: RECORDING_FILES_MAX + 1 }],
    ['files', { files: 1.5 }],
    ['queueBytesMax', { queueBytesMax: 0 }],
    ['path', { path: '' }],
    ['producer and description', { description: 'x'.repeat(200_000) }],
  ])('refuses a bad %s with CONFIG_INVALID and creates no file', async (option, extra) => {
    const error: unknown = await openRecordingWriter(options(extra)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('CONFIG_INVALID');
    expect((error as StrataError).details.option).toBe(option);
    expect(existsSync(path)).toBe(false);
  });

  it('survives a failing rotation (its directory was removed): onError once, later frames dropped, no throw', async () => {
    const recordingDir = join(dir, 'gone');
    mkdirSync(recordingDir);
    const errors: Error[] = [];
    let failed: () => void = () => undefined;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const writer = await openRecordingWriter(options({ path: join(recordingDir, 'r.rec'), onError: (error) => (errors.push(error), failed()) }));
    rmSync(recordingDir, { recursive: true });
    // Four bodies fill the file; the fifth makes the writer rotate, which cannot rename or create in a removed directory.
    for (let n = 0; n < 6; n += 1) writer.record(input(n, LARGE_BODY));
    await failure;
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(() => writer.record(input(6))).not.toThrow();
    await expect(writer.append(input(7))).rejects.toBe(errors[0]);
    await writer.close();
    expect(errors).toHaveLength(1);
    expect(writer.stats()).toMatchObject({ framesWritten: 4, dropped: 3, queuedBytes: 0, rotations: 0 });
  });
});
