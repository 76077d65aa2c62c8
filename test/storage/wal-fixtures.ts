// Owns helpers shared by the WAL tests: building batches, framing records into one buffer, comparing batches.
import { expect } from 'vitest';
import { encodeRecord, RecordScratch, type BatchColumns } from '../../src/storage/wal-record.js';

/** A point of a test batch: a number, or a string (stored as NaN plus a strings entry). */
export interface TestPoint {
  readonly id: number;
  readonly t: number;
  readonly v: number | string;
}

/** Columns of `points`, in order, strings keyed by position (null when there are none). */
export function batchOf(points: readonly TestPoint[]): BatchColumns {
  const n = points.length;
  const seriesIds = new Uint32Array(n);
  const timestampsMs = new Float64Array(n);
  const values = new Float64Array(n);
  let strings: Map<number, string> | null = null;
  points.forEach((p, i) => {
    seriesIds[i] = p.id;
    timestampsMs[i] = p.t;
    if (typeof p.v === 'number') {
      values[i] = p.v;
    } else {
      values[i] = NaN;
      (strings ??= new Map()).set(i, p.v);
    }
  });
  return { length: n, seriesIds, timestampsMs, values, strings };
}

/** One record as the bytes a writev would put on disk (a copy: the scratch may be reused afterwards). */
export function frame(seq: number, batch: BatchColumns, scratch = new RecordScratch()): Buffer {
  const record = encodeRecord(seq, batch, scratch);
  const bytes = Buffer.concat(record.buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
  expect(bytes.length).toBe(record.bytes);
  return bytes;
}

/** Asserts two batches hold the same points bit for bit (-0 and NaN payloads included); empty string maps equal null. */
export function expectSameBatch(actual: BatchColumns, expected: BatchColumns): void {
  expect(actual.length).toBe(expected.length);
  expect(Array.from(actual.seriesIds)).toEqual(Array.from(expected.seriesIds.subarray(0, expected.length)));
  expect(Array.from(actual.timestampsMs)).toEqual(Array.from(expected.timestampsMs.subarray(0, expected.length)));
  const bits = (a: Float64Array, n: number): string[] =>
    Array.from(new BigUint64Array(a.buffer.slice(a.byteOffset, a.byteOffset + n * 8)), (b) => b.toString(16));
  expect(bits(actual.values, actual.length)).toEqual(bits(expected.values, expected.length));
  const strings = (m: ReadonlyMap<number, string> | null): [number, string][] => [...(m ?? new Map<number, string>())].sort((a, b) => a[0] - b[0]);
  expect(strings(actual.strings)).toEqual(strings(expected.strings));
}
