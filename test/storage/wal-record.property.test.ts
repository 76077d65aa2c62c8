// Owns the WAL record's properties: any batch of ids, safe-integer timestamps, finite doubles and strings round-trips exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, RecordScratch } from '../../src/storage/wal-record.js';
import { batchOf, expectSameBatch, frame, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10);

/** Timestamps either near one another (the offset layout) or anywhere in the safe range (the wide layout). */
const timestamp = fc.oneof(
  fc.integer({ min: T0 - 7_200_000, max: T0 + 7_200_000 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, T0 + 0xffff_ffff),
);

const value = fc.oneof(
  { weight: 6, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 0, Number.MIN_VALUE, -Number.MAX_VALUE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'grapheme' }) },
);

const point: fc.Arbitrary<TestPoint> = fc.record({ id: fc.integer({ min: 0, max: 0xffff_ffff }), t: timestamp, v: value });

const seq = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe('WAL record properties', () => {
  it('any batch round-trips exactly', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 200 }), seq, (points, s) => {
        const batch = batchOf(points);
        const bytes = frame(s, batch);
        const decoded = decodeRecord(bytes, 0);
        expect(decoded).toBeDefined();
        expect(decoded?.record.seq).toBe(s);
        expect(decoded?.next).toBe(bytes.length);
        expectSameBatch(decoded!.record.batch, batch);
      }),
      { numRuns: 300 },
    );
  });

  it('a run of batches framed with one scratch reads back in order from one buffer', () => {
    fc.assert(
      fc.property(fc.array(fc.array(point, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 8 }), (batches) => {
        const scratch = new RecordScratch();
        const columns = batches.map(batchOf);
        const bytes = Buffer.concat(columns.map((b, i) => frame(i + 1, b, scratch)));
        let offset = 0;
        columns.forEach((b, i) => {
          const decoded = decodeRecord(bytes, offset);
          expect(decoded?.record.seq).toBe(i + 1);
          expectSameBatch(decoded!.record.batch, b);
          offset = decoded!.next;
        });
        expect(offset).toBe(bytes.length);
      }),
      { numRuns: 100 },
    );
  });

  it('a record cut anywhere short of its end is refused', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 20 }), fc.nat(), (points, at) => {
        const bytes = frame(1, batchOf(points));
        expect(decodeRecord(bytes.subarray(0, at % bytes.length), 0)).toBeUndefined();
      }),
    );
  });
});
