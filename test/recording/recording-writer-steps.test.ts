// Owns the test that the recording writer never checksums a body on the caller's turn and checksums it later in bounded steps with event-loop turns between them (zlib.crc32 observed through a mock).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RECORDING_ENCODE_BYTES_PER_STEP, RECORDING_FILE_BYTES_MIN } from '../../src/recording/recording-limits.js';
import { openRecording } from '../../src/recording/recording-reader.js';
import { openRecordingWriter } from '../../src/recording/recording-writer.js';

/** Each crc32 call's length and the event-loop turn (counted by a setImmediate ticker) it ran in. */
const calls = vi.hoisted(() => ({ log: [] as { bytes: number; turn: number }[], turn: 0 }));

vi.mock('node:zlib', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:zlib')>();
  return {
    ...real,
    crc32: (data: Uint8Array | string, value?: number): number => {
      calls.log.push({ bytes: typeof data === 'string' ? data.length : data.byteLength, turn: calls.turn });
      return real.crc32(data, value);
    },
  };
});

const MIB = 1024 * 1024;
const BODY_BYTES = 16 * MIB;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-recording-steps-'));
  calls.log = [];
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('recording writer steps', () => {
  it('record() of a 16 MiB body checksums nothing; the drain checksums at most RECORDING_ENCODE_BYTES_PER_STEP per call, across many event-loop turns', async () => {
    const path = join(dir, 'r.rec');
    const writer = await openRecordingWriter({ path, fileBytesMax: RECORDING_FILE_BYTES_MIN, files: 1, queueBytesMax: 64 * MIB, producer: 'p', description: 'd', now: () => 0 });
    let ticking = true;
    const tick = (): void => {
      calls.turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // One chunk larger than a step, as a generator hands it over, and a few small ones.
    const body = [Buffer.alloc(BODY_BYTES - 3 * 1024, 0x41), Buffer.alloc(1024, 0x42), Buffer.alloc(2048, 0x43)];
    calls.log = [];
    writer.record({ arrivedAtMs: 5, method: 'POST', url: '/ingest/v2.0/t/ingest', tenant: 't', contentType: 'application/json', body, status: 200, durationMs: 1 });
    expect(calls.log).toEqual([]);
    await writer.close();
    ticking = false;
    const bodyCalls = calls.log.filter((call) => call.bytes > 1024 * 4);
    expect(Math.max(...calls.log.map((call) => call.bytes))).toBeLessThanOrEqual(RECORDING_ENCODE_BYTES_PER_STEP);
    expect(calls.log.reduce((sum, call) => sum + call.bytes, 0)).toBeGreaterThanOrEqual(BODY_BYTES);
    // A step ends with a turn of the event loop: the 16 steps of the body see the ticker move at least 15 times.
    const turns = new Set(bodyCalls.map((call) => call.turn));
    expect(turns.size).toBeGreaterThanOrEqual(BODY_BYTES / RECORDING_ENCODE_BYTES_PER_STEP - 1);
    const reader = await openRecording(path);
    const frames = [];
    for await (const frame of reader.frames()) frames.push(frame);
    await reader.close();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.kind === 'exchange' && frames[0]!.body!.length).toBe(BODY_BYTES);
  });
});
