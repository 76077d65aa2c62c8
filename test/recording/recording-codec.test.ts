// Owns the example tests of the recording codec: the exact byte layout of version 1 and every coded error of strict decoding.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';
import { decodeRecording, encodeFileStart, encodeFrame, encodeRecording } from '../../src/recording/recording-codec.js';
import { RECORDING_FRAME_BYTES_MAX } from '../../src/recording/recording-limits.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';

const HEADER: RecordingHeader = { kind: 'header', version: 1, startedAtMs: 1_700_000_000_000, sequence: 0, producer: 'p', description: 'd' };
const EXCHANGE: RecordedExchange = {
  kind: 'exchange',
  atMs: 5,
  method: 'GET',
  url: '/x',
  tenant: 't',
  contentType: null,
  body: Buffer.from([1, 2]),
  status: 200,
  durationMs: 7,
};
/** The file start bytes every version-1 file begins with: "STRATA-RECORDING" and u16 1. */
const START_HEX = Buffer.from('STRATA-RECORDING', 'ascii').toString('hex') + '0001';
/** [0, 1, 1700000000000 (float64), 0, "p", "d"] written by hand from the msgpack spec. */
const HEADER_PAYLOAD_HEX = '96' + '00' + '01' + 'cb4278bcfe56800000' + '00' + 'a170' + 'a164';
/** [1, 5, "GET", "/x", "t", nil, bin(01 02), 200, 7]. */
const EXCHANGE_PAYLOAD_HEX = '99' + '01' + '05' + 'a3474554' + 'a22f78' + 'a174' + 'c0' + 'c4020102' + 'ccc8' + '07';

/** A frame (prefix and payload) around raw payload bytes, with a correct CRC unless one is given. */
function rawFrame(payloadHex: string, crc?: number): Buffer {
  const payload = Buffer.from(payloadHex, 'hex');
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(payload.length, 0);
  prefix.writeUInt32BE(crc ?? crc32(payload), 4);
  return Buffer.concat([prefix, payload]);
}

function fileOf(...frames: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(START_HEX, 'hex'), ...frames]);
}

/** The StrataError decodeRecording throws for `bytes` (fails the test when it does not throw one). */
function decodeError(bytes: Uint8Array): StrataError {
  try {
    decodeRecording(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }
  throw new Error('decodeRecording accepted the bytes');
}

const headerFrame = (): Buffer => rawFrame(HEADER_PAYLOAD_HEX);

describe('recording codec: byte layout', () => {
  it('writes the magic, the u16 version and the header frame with its length and CRC-32', () => {
    const start = encodeFileStart(HEADER);
    expect(start.toString('hex')).toBe(START_HEX + rawFrame(HEADER_PAYLOAD_HEX).toString('hex'));
    const payload = start.subarray(26);
    expect(start.readUInt32BE(18)).toBe(payload.length);
    expect(start.readUInt32BE(22)).toBe(crc32(payload));
  });

  it('writes an exchange as a 9-element array and a gap as a 3-element array', () => {
    expect(encodeFrame(EXCHANGE).toString('hex')).toBe(rawFrame(EXCHANGE_PAYLOAD_HEX).toString('hex'));
    expect(encodeFrame({ kind: 'gap', atMs: 10, dropped: 3 }).toString('hex')).toBe(rawFrame('93020a03').toString('hex'));
  });

  it('writes a null content type and body as nil and a Uint8Array body as bin', () => {
    const frame = { ...EXCHANGE, contentType: 'application/json', body: new Uint8Array([9]) };
    const payload = encodeFrame(frame).subarray(8).toString('hex');
    expect(payload).toContain(Buffer.from('application/json').toString('hex'));
    expect(payload).toContain('c40109');
    expect(encodeFrame({ ...EXCHANGE, body: null }).subarray(8).toString('hex')).toContain('a174c0c0');
  });

  it('is a whole file: the start followed by every frame, and decodes back with bodies as Buffers', () => {
    const frames: RecordingFrame[] = [EXCHANGE, { kind: 'gap', atMs: 6, dropped: 2 }, { ...EXCHANGE, atMs: 6, body: null }];
    const bytes = encodeRecording(HEADER, frames);
    expect(bytes.equals(Buffer.concat([encodeFileStart(HEADER), ...frames.map((f) => encodeFrame(f))]))).toBe(true);
    const decoded = decodeRecording(bytes);
    expect(decoded).toEqual({ header: HEADER, frames });
    const body = (decoded.frames[0] as RecordedExchange).body;
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(encodeRecording(decoded.header, decoded.frames).equals(bytes)).toBe(true);
    // A plain Uint8Array (not a Buffer), viewing the middle of a larger buffer, decodes the same.
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 5);
    expect(decodeRecording(padded.subarray(5, 5 + bytes.length))).toEqual(decoded);
  });

  it('writes the example of docs/recording.md byte for byte', () => {
    const header: RecordingHeader = { kind: 'header', version: 1, startedAtMs: 1_700_000_000_000, sequence: 0, producer: 'strata', description: 'demo' };
    const get: RecordedExchange = { kind: 'exchange', atMs: 250, method: 'GET', url: '/x', tenant: '7', contentType: null, body: null, status: 200, durationMs: 3 };
    const expected = [
      '53 54 52 41 54 41 2d 52 45 43 4f 52 44 49 4e 47 00 01 00 00 00 19 4f 83 af c1 96 00 01 cb 42 78',
      'bc fe 56 80 00 00 00 a6 73 74 72 61 74 61 a4 64 65 6d 6f 00 00 00 12 1a 18 e5 98 99 01 cc fa a3',
      '47 45 54 a2 2f 78 a1 37 c0 c0 cc c8 03 00 00 00 06 e5 92 ed 47 93 02 cd 01 2c 0c',
    ].join(' ');
    const bytes = encodeRecording(header, [get, { kind: 'gap', atMs: 300, dropped: 12 }]);
    expect(bytes.toString('hex').replace(/(..)(?!$)/g, '$1 ')).toBe(expected);
  });

  it('decodes a header-only file to no frames', () => {
    expect(decodeRecording(fileOf(headerFrame()))).toEqual({ header: HEADER, frames: [] });
  });

  it('asserts on frames the reader would refuse instead of writing them', () => {
    expect(() => encodeFrame({ ...EXCHANGE, url: '/\ud800' })).toThrow(AssertionFailure);
    expect(() => encodeFrame({ ...EXCHANGE, atMs: -1 })).toThrow(AssertionFailure);
    expect(() => encodeFrame({ ...EXCHANGE, status: 1.5 })).toThrow(AssertionFailure);
    expect(() => encodeFrame({ kind: 'gap', atMs: 1, dropped: 0 })).toThrow(AssertionFailure);
    expect(() => encodeFileStart({ ...HEADER, version: 2 })).toThrow(AssertionFailure);
    expect(() => encodeRecording(HEADER, [{ ...EXCHANGE, atMs: 9 }, EXCHANGE])).toThrow(AssertionFailure);
  });
});

describe('recording codec: file start errors', () => {
  it.each([
    ['an empty file', Buffer.alloc(0)],
    ['a file shorter than the magic', Buffer.from('STRATA-REC')],
    ['other bytes', Buffer.from('{"not":"a recording at all"}')],
    ['a lower-case magic', Buffer.concat([Buffer.from('strata-recording'), Buffer.from([0, 1]), headerFrame()])],
  ])('refuses %s as RECORDING_NOT_A_RECORDING', (_name, bytes) => {
    const error = decodeError(bytes);
    expect(error.code).toBe('RECORDING_NOT_A_RECORDING');
    expect(error.details).toMatchObject({ offset: 0 });
  });

  it('refuses another version as RECORDING_VERSION_UNSUPPORTED with the version in the details', () => {
    const bytes = fileOf(headerFrame());
    bytes.writeUInt16BE(2, 16);
    const error = decodeError(bytes);
    expect(error.code).toBe('RECORDING_VERSION_UNSUPPORTED');
    expect(error.details).toMatchObject({ offset: 16, version: 2, supported: 1 });
  });

  it('reports a file cut in the version or before the header as RECORDING_TRUNCATED', () => {
    const inVersion = decodeError(Buffer.from(START_HEX.slice(0, 34), 'hex'));
    expect(inVersion.code).toBe('RECORDING_TRUNCATED');
    expect(inVersion.details).toMatchObject({ offset: 16, frame: 0, framesRead: 0 });
    const noHeader = decodeError(fileOf());
    expect(noHeader.code).toBe('RECORDING_TRUNCATED');
    expect(noHeader.details).toMatchObject({ offset: 18, frame: 0, framesRead: 0 });
  });
});

describe('recording codec: frame errors', () => {
  const exchangeAt = 18 + headerFrame().length;

  it('reports a cut frame with the offset of its prefix and the frames read before it', () => {
    const whole = fileOf(headerFrame(), rawFrame(EXCHANGE_PAYLOAD_HEX));
    for (const cut of [exchangeAt + 3, exchangeAt + 8, whole.length - 1]) {
      const error = decodeError(whole.subarray(0, cut));
      expect(error.code).toBe('RECORDING_TRUNCATED');
      expect(error.details).toMatchObject({ offset: exchangeAt, frame: 1, framesRead: 1 });
    }
  });

  it('refuses a length over RECORDING_FRAME_BYTES_MAX before looking for the payload', () => {
    const frame = rawFrame(EXCHANGE_PAYLOAD_HEX);
    frame.writeUInt32BE(RECORDING_FRAME_BYTES_MAX + 1, 0);
    const error = decodeError(fileOf(headerFrame(), frame));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ offset: exchangeAt, frame: 1 });
    expect(String(error.details.reason)).toContain('RECORDING_FRAME_BYTES_MAX');
  });

  it('refuses a CRC mismatch', () => {
    const error = decodeError(fileOf(headerFrame(), rawFrame(EXCHANGE_PAYLOAD_HEX, 12345)));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ offset: exchangeAt, frame: 1, reason: 'the payload fails its CRC-32' });
  });

  it.each([
    ['an array of 4 elements', '94020a0303', 'not a msgpack array of 3, 6 or 9'],
    ['an unknown tag in a 3-array', '93070a03', 'unknown frame tag 7'],
    ['a gap with 6 fields', '96020a0301a170a164', 'has 6 fields instead of 3'],
    ['a map', '81a161a162', 'not a msgpack array'],
    ['a gap of zero requests', '93020a00', 'gap dropped'],
    ['a negative atMs', '9302ff01', 'gap atMs'],
    ['a fractional atMs', '9302cb3ff800000000000001', 'gap atMs'],
    ['a non-canonical integer', '9302cd000a03', 'canonical'],
    ['trailing bytes', '93020a0300', 'not msgpack'],
    ['a payload cut inside', '99010', 'not msgpack'],
    ['a string status', EXCHANGE_PAYLOAD_HEX.replace('ccc8', 'a3323030'), 'status'],
    ['a string body', EXCHANGE_PAYLOAD_HEX.replace('c4020102', 'a20102'), 'body'],
    ['a numeric content type', EXCHANGE_PAYLOAD_HEX.replace('a174c0', 'a17405'), 'contentType'],
    ['a numeric url', EXCHANGE_PAYLOAD_HEX.replace('a22f78', '05'), 'url'],
    ['a timestamp extension as atMs', '9302d6ff0000000103', 'gap atMs'],
    ['invalid UTF-8 in a string', EXCHANGE_PAYLOAD_HEX.replace('a22f78', 'a2c328'), 'canonical'],
  ])('refuses %s', (_name, payloadHex, reason) => {
    const error = decodeError(fileOf(headerFrame(), rawFrame(payloadHex.length % 2 === 0 ? payloadHex : payloadHex + '0')));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ offset: exchangeAt, frame: 1 });
    expect(String(error.details.reason)).toContain(reason);
  });

  it('refuses a first frame that is not a header, and a header after the first frame', () => {
    const first = decodeError(fileOf(rawFrame(EXCHANGE_PAYLOAD_HEX)));
    expect(first.code).toBe('RECORDING_CORRUPT');
    expect(first.details).toMatchObject({ offset: 18, frame: 0, reason: 'the first frame is not a header' });
    const later = decodeError(fileOf(headerFrame(), rawFrame(EXCHANGE_PAYLOAD_HEX), headerFrame()));
    expect(later.code).toBe('RECORDING_CORRUPT');
    expect(later.details).toMatchObject({ offset: exchangeAt + rawFrame(EXCHANGE_PAYLOAD_HEX).length, frame: 2 });
  });

  it('refuses a header whose version is not the file version', () => {
    const error = decodeError(fileOf(rawFrame(HEADER_PAYLOAD_HEX.replace('960001', '960002'))));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ offset: 18, frame: 0 });
  });

  it('refuses frames whose atMs goes back in time', () => {
    const error = decodeError(fileOf(headerFrame(), rawFrame('93020a03'), rawFrame('93020903')));
    expect(error.code).toBe('RECORDING_CORRUPT');
    expect(error.details).toMatchObject({ frame: 2 });
    expect(String(error.details.reason)).toContain('before the previous');
  });
});
