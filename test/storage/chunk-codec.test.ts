// Owns example-based tests of the chunk codec: round trips of shaped series and their encoded sizes.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';
import type { SampleColumns } from '../../src/model/bucket.js';
import { CHUNK_FORMAT_VERSION, decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import { columnDifference, randomWalk, samplesOf, seededUint32 } from './codec-fixtures.js';

const T0 = 1_700_000_000_000;

/** Encodes, decodes, checks every column bit-exactly and returns the encoded bytes. */
function roundTrip(samples: SampleColumns): Uint8Array {
  const bytes = encodeChunk(samples);
  const decoded = decodeChunk(bytes);
  expect(decoded.length).toBe(samples.length);
  expect(columnDifference(decoded.timestampsMs, samples.timestampsMs.subarray(0, samples.length))).toBeNull();
  expect(columnDifference(decoded.values, samples.values.subarray(0, samples.length))).toBeNull();
  if (samples.strings === null || samples.strings.length === 0) {
    expect(decoded.strings).toBeNull();
  } else {
    expect(decoded.strings).not.toBeNull();
    expect(columnDifference(decoded.strings!.timestampsMs, samples.strings.timestampsMs)).toBeNull();
    expect(decoded.strings!.values).toEqual(samples.strings.values);
  }
  return bytes;
}

function regular(length: number, value: (i: number) => number): SampleColumns {
  return samplesOf(
    Array.from({ length }, (_, i) => T0 + i * 30_000),
    Array.from({ length }, (_, i) => value(i)),
  );
}

describe('encodeChunk / decodeChunk', () => {
  it('round-trips an empty chunk in four bytes: version 2, no flags, two zero counts', () => {
    const bytes = roundTrip(samplesOf([], []));
    expect(CHUNK_FORMAT_VERSION).toBe(2);
    expect(Array.from(bytes)).toEqual([CHUNK_FORMAT_VERSION, 0, 0, 0]);
  });

  it('round-trips one point', () => {
    roundTrip(samplesOf([T0], [42.5]));
    roundTrip(samplesOf([-5], [-1e-300]));
  });

  it('encodes a regular constant series in a few bytes, whatever its length', () => {
    // Regular timestamps cost a run code and a constant value 12 bits per 64 points, so 240
    // points take about 24 bytes where one bit a point would already be 30.
    const small = roundTrip(regular(240, () => 7));
    const large = roundTrip(regular(2400, () => 7));
    expect(small.length).toBeLessThanOrEqual(26);
    expect((large.length - small.length) / 2160).toBeLessThan(0.03);
  });

  it('round-trips irregular timestamps: jitter, gaps of every size, negatives', () => {
    const next = seededUint32(7);
    const gaps = [1, 29_950, 30_050, 30_000, 30_000, 1_000_000, 3, 40 * 86_400_000, 2 ** 40, 30_000, 1];
    const timestampsMs: number[] = [-(2 ** 52)];
    for (let i = 0; i < 500; i++) {
      const gap = i % 3 === 0 ? gaps[i % gaps.length]! : 1 + (next() % 100_000);
      timestampsMs.push(timestampsMs[timestampsMs.length - 1]! + gap);
    }
    timestampsMs.push(2 ** 52);
    roundTrip(samplesOf(timestampsMs, timestampsMs.map((_, i) => i)));
  });

  it('round-trips negative values, -0, huge and tiny magnitudes bit-exactly', () => {
    const values = [
      -1, -0, 0, -0, -0, 3.5, -123.456, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE,
      -Number.MIN_VALUE, 2.2250738585072014e-308, 1e308, 1e-308, 2 ** 53 + 2, -(2 ** 60), 0.1 + 0.2, 1 / 3,
    ];
    const samples = samplesOf(values.map((_, i) => T0 + i * 1000), values);
    roundTrip(samples);
    const decoded = decodeChunk(encodeChunk(samples));
    expect(Object.is(decoded.values[1], -0)).toBe(true);
    expect(Object.is(decoded.values[2], 0)).toBe(true);
  });

  it('keeps -0 in an otherwise decimal series', () => {
    // -0 passes the decimal check (-0 === 0) but an integer cannot carry its sign.
    const decoded = decodeChunk(encodeChunk(samplesOf([1, 2, 3], [1.25, -0, 2.5])));
    expect(Object.is(decoded.values[1], -0)).toBe(true);
  });

  it('round-trips a 2-decimal walk in under 1.2 bytes a point', () => {
    const samples = randomWalk({ length: 240, seed: 42, decimals: 2 });
    const bytes = roundTrip(samples);
    expect(bytes.length / 240).toBeLessThan(1.2);
  });

  it('round-trips a full-precision walk in under 6 bytes a point', () => {
    const samples = randomWalk({ length: 240, seed: 42 });
    const bytes = roundTrip(samples);
    expect(bytes.length / 240).toBeLessThan(6);
  });

  it('stores a counter as narrow integer deltas', () => {
    const next = seededUint32(3);
    let total = 1_000_000;
    const bytes = roundTrip(regular(240, () => (total += 1000 + (next() % 16))));
    // Steps 1000..1015 need 4 bits each once the block's smallest step is subtracted.
    expect(bytes.length / 240).toBeLessThan(0.7);
  });

  it('round-trips values with many decimal places and integers beyond the decimal range', () => {
    roundTrip(regular(100, (i) => 0.123456789012345 + i * 1e-15));
    roundTrip(regular(100, (i) => 2 ** 51 + i));
    roundTrip(regular(100, (i) => (i % 2 === 0 ? 1e15 : -1e15)));
  });

  it('round-trips string samples mixed with numbers', () => {
    const numbers = samplesOf([T0, T0 + 60_000, T0 + 120_000], [1, 2, 3]);
    const strings = {
      length: 4,
      timestampsMs: Float64Array.from([T0 - 10, T0 + 30_000, T0 + 90_000, T0 + 2 ** 40]),
      values: ['ok', '', 'überhitzt 🔥', 'x'.repeat(1024)],
    };
    roundTrip({ ...numbers, strings });
    roundTrip({ ...samplesOf([], []), strings });
  });

  it('treats an empty string column like none', () => {
    const decoded = decodeChunk(
      encodeChunk({ ...samplesOf([T0], [1]), strings: { length: 0, timestampsMs: new Float64Array(0), values: [] } }),
    );
    expect(decoded.strings).toBeNull();
  });

  it('rejects an unknown format version with a coded error', () => {
    const bytes = encodeChunk(samplesOf([T0], [1]));
    bytes[0] = CHUNK_FORMAT_VERSION + 1;
    expect(() => decodeChunk(bytes)).toThrow(StrataError);
    try {
      decodeChunk(bytes);
    } catch (error) {
      expect((error as StrataError).code).toBe('STORE_SCHEMA_UNSUPPORTED');
    }
  });

  it('detects a truncated chunk', () => {
    const bytes = encodeChunk(randomWalk({ length: 240, seed: 1, decimals: 2 }));
    expect(() => decodeChunk(bytes.subarray(0, bytes.length >>> 1))).toThrow(AssertionFailure);
  });

  it('rejects timestamps outside the encodable range', () => {
    expect(() => encodeChunk(samplesOf([0, 2 ** 53], [1, 2]))).toThrow(AssertionFailure);
  });
});
