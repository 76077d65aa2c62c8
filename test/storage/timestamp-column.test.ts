// Owns tests of the timestamp column: what regular and jittered spacing cost, and every code's round trip.
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../src/storage/bit-stream.js';
import { readTimestamps, writeTimestamps } from '../../src/storage/timestamp-column.js';
import { columnDifference } from './codec-fixtures.js';

function encode(timestampsMs: Float64Array): BitWriter {
  const writer = new BitWriter(16);
  writeTimestamps(writer, timestampsMs, timestampsMs.length);
  return writer;
}

function decode(writer: BitWriter, length: number): Float64Array {
  const out = new Float64Array(length);
  readTimestamps(new BitReader(writer.finish()), out, length);
  return out;
}

describe('timestamp column', () => {
  it('spends well under a bit a point on regular 30 s data', () => {
    const timestampsMs = Float64Array.from({ length: 2400 }, (_, i) => 1_700_000_000_000 + i * 30_000);
    const writer = encode(timestampsMs);
    // First timestamp (~48 bits), first delta (24 bits), one run of 2,399 (24 bits).
    expect(writer.bitLength).toBeLessThan(100);
    expect(columnDifference(decode(writer, 2400), timestampsMs)).toBeNull();
  });

  it('spends 9 bits a point on jitter of a few ms', () => {
    const timestampsMs = Float64Array.from({ length: 1000 }, (_, i) => i * 30_000 + (i % 2 === 0 ? 0 : 20));
    const writer = encode(timestampsMs);
    expect(writer.bitLength / 1000).toBeLessThan(9.2);
    expect(columnDifference(decode(writer, 1000), timestampsMs)).toBeNull();
  });

  it('round-trips each code, runs of every length and both signs', () => {
    const steps = [30_000, 30_000, 30_063, 29_936, 38_000, 22_000, 600_000, 2 ** 31, 3, 2 ** 45, 1, 1, 1];
    const values = [-(2 ** 52)];
    for (let run = 1; run <= 70; run++) {
      for (let k = 0; k < run; k++) values.push(values[values.length - 1]! + 1000);
      for (const step of steps) values.push(values[values.length - 1]! + step);
    }
    values.push(2 ** 52);
    const timestampsMs = Float64Array.from(values);
    expect(columnDifference(decode(encode(timestampsMs), timestampsMs.length), timestampsMs)).toBeNull();
  });
});
