// Owns the fast-check properties of the recording codec: exact round trips both ways, exchanges encoded around their body equal to whole frames, and that every cut or flipped byte gives a coded error.
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { decodeRecording, encodeExchangeAround, encodeFileStart, encodeFrame, encodeRecording, framePrefix } from '../../src/recording/recording-codec.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';

const text = fc.string({ unit: 'grapheme', maxLength: 40 });

const headerArb: fc.Arbitrary<RecordingHeader> = fc.record({
  kind: fc.constant('header' as const),
  version: fc.constant(1),
  startedAtMs: fc.maxSafeInteger(),
  sequence: fc.maxSafeNat(),
  producer: text,
  description: fc.string({ unit: 'grapheme', maxLength: 300 }),
});

/** Bodies: none, empty, small, and now and then past the bin8 and bin16 boundaries of msgpack. */
function bodyArb(large: boolean): fc.Arbitrary<Buffer | null> {
  const sized = large
    ? fc.oneof(
        { weight: 8, arbitrary: fc.uint8Array({ maxLength: 300 }) },
        { weight: 1, arbitrary: fc.integer({ min: 65_530, max: 70_000 }).map((n) => new Uint8Array(n).fill(n & 0xff)) },
      )
    : fc.uint8Array({ maxLength: 40 });
  return fc.option(sized.map((bytes) => Buffer.from(bytes)), { freq: 4 });
}

/** Frames with their atMs made non-decreasing, as every recording has them. */
function framesArb(large: boolean, maxLength: number): fc.Arbitrary<RecordingFrame[]> {
  const exchange = fc.record({
    kind: fc.constant('exchange' as const),
    atMs: fc.maxSafeNat(),
    method: fc.constantFrom('GET', 'POST'),
    url: fc.oneof(text.map((s) => `/metrics/v2.0/${s}`), fc.string({ unit: 'binary', maxLength: 80 })),
    tenant: text,
    contentType: fc.option(fc.constantFrom('application/json', 'application/x-msgpack', 'text/plain; charset=ü')),
    body: bodyArb(large),
    status: fc.integer({ min: 0, max: 999 }),
    durationMs: fc.oneof(fc.nat(100), fc.maxSafeNat()),
  });
  const gap = fc.record({ kind: fc.constant('gap' as const), atMs: fc.maxSafeNat(), dropped: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) });
  return fc.array(fc.oneof({ weight: 4, arbitrary: exchange }, { weight: 1, arbitrary: gap }), { maxLength }).map((frames) => {
    const times = frames.map((f) => f.atMs).sort((a, b) => a - b);
    return frames.map((f, i) => ({ ...f, atMs: times[i]! }));
  });
}

/** Frames with bodies as base64 text: vitest's deep equality walks large Buffers byte by byte, which is slow. */
function comparable(frames: readonly RecordingFrame[]): unknown[] {
  return frames.map((f) => (f.kind === 'exchange' ? { ...f, body: f.body === null ? null : Buffer.from(f.body).toString('base64') } : f));
}

/** What decoding `bytes` throws: a StrataError's code, or the unexpected error itself. */
function outcome(bytes: Uint8Array): string {
  try {
    decodeRecording(bytes);
    return 'decoded';
  } catch (error) {
    if (error instanceof StrataError) return error.code;
    throw error;
  }
}

/** Byte offsets where each frame ends (the header's first): cutting a file there leaves a valid, shorter file. */
function frameEnds(header: RecordingHeader, frames: readonly RecordingFrame[]): number[] {
  let end = encodeFileStart(header).length;
  const ends = [end];
  for (const frame of frames) ends.push((end += encodeFrame(frame).length));
  return ends;
}

describe('recording codec properties', () => {
  it('decode(encode(x)) equals x and encode(decode(bytes)) gives the same bytes', () => {
    fc.assert(
      fc.property(headerArb, framesArb(true, 12), (header, frames) => {
        const bytes = encodeRecording(header, frames);
        const decoded = decodeRecording(bytes);
        expect(decoded.header).toEqual(header);
        expect(comparable(decoded.frames)).toEqual(comparable(frames));
        expect(encodeRecording(decoded.header, decoded.frames).equals(bytes)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('encodes the same frames to the same bytes every time (no state kept between calls)', () => {
    fc.assert(
      fc.property(headerArb, framesArb(false, 8), (header, frames) => {
        const once = encodeRecording(header, frames);
        encodeRecording({ ...header, producer: 'other' }, [...frames].reverse().map((f) => ({ ...f, atMs: 0 })));
        expect(encodeRecording(header, frames).equals(once)).toBe(true);
      }),
    );
  });

  it('cut anywhere: inside the magic NOT_A_RECORDING, inside a frame TRUNCATED, between frames the frames before the cut', () => {
    fc.assert(
      fc.property(headerArb, framesArb(false, 5), (header, frames) => {
        const bytes = encodeRecording(header, frames);
        const ends = frameEnds(header, frames);
        for (let cut = 0; cut < bytes.length; cut += 1) {
          const part = bytes.subarray(0, cut);
          const frameCount = ends.indexOf(cut);
          if (frameCount >= 0) expect(decodeRecording(part)).toEqual({ header, frames: frames.slice(0, frameCount) });
          else expect(outcome(part)).toBe(cut < 16 ? 'RECORDING_NOT_A_RECORDING' : 'RECORDING_TRUNCATED');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a truncation reports the offset where the cut frame starts and how many frames came before', () => {
    fc.assert(
      fc.property(headerArb, framesArb(false, 5), fc.nat(), (header, frames, seed) => {
        const bytes = encodeRecording(header, frames);
        const ends = frameEnds(header, frames);
        const cut = 18 + (seed % (bytes.length - 18));
        fc.pre(!ends.includes(cut));
        const frame = ends.filter((end) => end <= cut).length;
        try {
          decodeRecording(bytes.subarray(0, cut));
          expect.unreachable('a cut file decoded');
        } catch (error) {
          expect((error as StrataError).details).toMatchObject({ offset: frame === 0 ? 18 : ends[frame - 1], frame, framesRead: frame });
        }
      }),
    );
  });

  it('every single-byte flip gives a coded error, never a crash or a wrong frame', () => {
    fc.assert(
      fc.property(headerArb, framesArb(false, 4), fc.integer({ min: 1, max: 255 }), (header, frames, mask) => {
        const bytes = encodeRecording(header, frames);
        for (let at = 0; at < bytes.length; at += 1) {
          const flipped = Buffer.from(bytes);
          flipped[at]! ^= mask;
          const code = outcome(flipped);
          if (at < 16) expect(code).toBe('RECORDING_NOT_A_RECORDING');
          else if (at < 18) expect(code).toBe('RECORDING_VERSION_UNSUPPORTED');
          else expect(['RECORDING_CORRUPT', 'RECORDING_TRUNCATED']).toContain(code);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('a payload altered behind a recomputed CRC is refused as RECORDING_CORRUPT or is a valid frame that encodes back to it', () => {
    fc.assert(
      fc.property(
        headerArb,
        framesArb(false, 3),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }),
        (header, frames, edits) => {
          const bytes = encodeRecording(header, frames);
          const ends = frameEnds(header, frames);
          const starts = [18, ...ends.slice(0, -1)];
          const frameIndex = edits[0]![0] % starts.length;
          const start = starts[frameIndex]!;
          const payload = bytes.subarray(start + 8, ends[frameIndex]);
          for (const [position, value] of edits) payload[position % payload.length] = value;
          bytes.writeUInt32BE(crc32(payload), start + 4);
          const code = outcome(bytes);
          if (code === 'decoded') {
            const decoded = decodeRecording(bytes);
            expect(encodeRecording(decoded.header, decoded.frames).equals(bytes)).toBe(true);
          } else {
            expect(code).toBe('RECORDING_CORRUPT');
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an exchange encoded around its body (head, body chunks, tail, CRC over the parts in turn) is byte for byte encodeFrame', () => {
    fc.assert(
      fc.property(framesArb(true, 6), fc.array(fc.nat(), { maxLength: 4 }), (frames, cuts) => {
        for (const frame of frames) {
          if (frame.kind !== 'exchange') continue;
          const { body, kind: _kind, ...fields } = frame;
          const { head, tail } = encodeExchangeAround(fields, body === null ? null : body.length);
          // The body in chunks cut at arbitrary places, as a request stream hands it over.
          const at = body === null ? [] : [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
          const chunks = body === null ? [] : [0, ...at].map((start, i) => body.subarray(start, [...at, body.length][i]));
          const parts = [head, ...chunks, tail];
          // An empty Buffer may have no backing memory, and zlib.crc32 of it returns 0 rather than the running value: skipped, as the writer does.
          const crc = parts.reduce((value, part) => (part.length === 0 ? value : crc32(part, value)), 0);
          const payloadBytes = parts.reduce((sum, part) => sum + part.length, 0);
          expect(Buffer.concat([framePrefix(payloadBytes, crc), ...parts]).equals(encodeFrame(frame))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('exchange bodies keep their bytes and come back as Buffers (or null)', () => {
    fc.assert(
      fc.property(framesArb(true, 6), (frames) => {
        const header: RecordingHeader = { kind: 'header', version: 1, startedAtMs: 0, sequence: 0, producer: '', description: '' };
        const decoded = decodeRecording(encodeRecording(header, frames)).frames;
        decoded.forEach((frame, i) => {
          if (frame.kind !== 'exchange') return;
          const body = (frames[i] as RecordedExchange).body;
          if (body === null) expect(frame.body).toBeNull();
          else expect(Buffer.isBuffer(frame.body) && frame.body.equals(body)).toBe(true);
        });
      }),
      { numRuns: 50 },
    );
  });
});
