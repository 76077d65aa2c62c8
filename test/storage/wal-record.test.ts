// Owns the unit tests of the WAL record layout: round trips, wide spans, framing, rejection of torn or corrupt bytes, and telling a torn record apart.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeRecord,
  encodeRecord,
  intactRecordEnd,
  isTornRecord,
  RECORD_ALIGN_BYTES,
  RECORD_HEADER_BYTES,
  RecordScratch,
} from '../../src/storage/wal-record.js';
import { batchOf, expectSameBatch, frame, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10, 12);

function roundTrip(points: readonly TestPoint[], seq = 7): void {
  const batch = batchOf(points);
  const bytes = frame(seq, batch);
  const decoded = decodeRecord(bytes, 0);
  expect(decoded).toBeDefined();
  expect(decoded?.next).toBe(bytes.length);
  expect(decoded?.record.seq).toBe(seq);
  expectSameBatch(decoded!.record.batch, batch);
}

describe('encodeRecord / decodeRecord round trip', () => {
  it('keeps numbers, series ids and timestamps', () => {
    roundTrip([
      { id: 0, t: T0, v: 1.5 },
      { id: 4_294_967_295, t: T0 + 30_000, v: -0 },
      { id: 17, t: T0 - 1, v: Number.MAX_VALUE },
      { id: 3, t: T0, v: -Number.MIN_VALUE },
    ]);
  });

  it('keeps strings keyed by position, and the numbers around them', () => {
    roundTrip([
      { id: 1, t: T0, v: 'up' },
      { id: 1, t: T0 + 1, v: 2 },
      { id: 2, t: T0 + 2, v: '' },
      { id: 2, t: T0 + 3, v: 'ünïcødé ✓ 𝄞' },
      { id: 2, t: T0 + 4, v: 'x'.repeat(1024) },
    ]);
  });

  it('keeps timestamps spanning more than 2^32 ms (the wide layout)', () => {
    roundTrip([
      { id: 1, t: T0, v: 1 },
      { id: 1, t: T0 - 2 ** 32 - 5, v: 2 },
      { id: 1, t: Number.MAX_SAFE_INTEGER, v: 3 },
      { id: 1, t: Number.MIN_SAFE_INTEGER, v: 4 },
    ]);
  });

  it('keeps a span of exactly 0xffffffff ms (the largest offset layout) and one more', () => {
    roundTrip([
      { id: 1, t: T0, v: 1 },
      { id: 1, t: T0 + 0xffff_ffff, v: 2 },
    ]);
    roundTrip([
      { id: 1, t: T0 + 0x1_0000_0000, v: 2 },
      { id: 1, t: T0, v: 1 },
    ]);
  });

  it('keeps negative timestamps (before the epoch)', () => {
    roundTrip([
      { id: 1, t: -86_400_000, v: 1 },
      { id: 1, t: -1, v: 2 },
      { id: 1, t: 0, v: 3 },
    ]);
  });

  it('keeps an empty batch', () => {
    roundTrip([]);
  });

  it('keeps large seqs exactly', () => {
    roundTrip([{ id: 1, t: T0, v: 1 }], 2 ** 40 + 3);
  });

  it('decodes an empty string map as no strings', () => {
    const batch = { ...batchOf([{ id: 1, t: T0, v: 1 }]), strings: new Map<number, string>() };
    const decoded = decodeRecord(frame(1, batch), 0);
    expect(decoded?.record.batch.strings).toBeNull();
  });
});

describe('framing', () => {
  it('sizes every record to a multiple of 8 bytes, header included', () => {
    for (let n = 0; n < 10; n++) {
      const points = Array.from({ length: n }, (_, i) => ({ id: i, t: T0 + i, v: i % 3 === 0 ? `s${'x'.repeat(i)}` : i }));
      const bytes = frame(1, batchOf(points));
      expect(bytes.length % 8).toBe(0);
      expect(bytes.length).toBeGreaterThanOrEqual(RECORD_HEADER_BYTES + 8);
    }
  });

  it('reads consecutive records by offset', () => {
    const a = batchOf([{ id: 1, t: T0, v: 1 }]);
    const b = batchOf([{ id: 2, t: T0 + 5, v: 'two' }, { id: 3, t: T0 + 6, v: 3 }]);
    const bytes = Buffer.concat([frame(1, a), frame(2, b)]);
    const first = decodeRecord(bytes, 0);
    expect(first?.record.seq).toBe(1);
    const second = decodeRecord(bytes, first!.next);
    expect(second?.record.seq).toBe(2);
    expectSameBatch(second!.record.batch, b);
    expect(second?.next).toBe(bytes.length);
    expect(decodeRecord(bytes, second!.next)).toBeUndefined();
  });

  it('reuses a scratch without leaking an earlier, larger batch into a later one', () => {
    const scratch = new RecordScratch();
    const big = batchOf(Array.from({ length: 100 }, (_, i) => ({ id: 1000 + i, t: T0 + i * 1000, v: i })));
    const small = batchOf([{ id: 5, t: T0 + 7, v: 9 }, { id: 6, t: T0, v: 'x' }]);
    frame(1, big, scratch);
    const bytes = frame(2, small, scratch);
    expect(bytes.equals(frame(2, small))).toBe(true);
    expectSameBatch(decodeRecord(bytes, 0)!.record.batch, small);
  });

  it('encodes the columns of a subarray view (validation hands out views into scratch columns)', () => {
    const whole = batchOf([{ id: 9, t: 1, v: 9 }, { id: 1, t: T0, v: 1 }, { id: 2, t: T0 + 1, v: 2 }]);
    const view = {
      length: 2,
      seriesIds: whole.seriesIds.subarray(1, 3),
      timestampsMs: whole.timestampsMs.subarray(1, 3),
      values: whole.values.subarray(1, 3),
      strings: null,
    };
    const decoded = decodeRecord(frame(3, view), 0);
    expectSameBatch(decoded!.record.batch, batchOf([{ id: 1, t: T0, v: 1 }, { id: 2, t: T0 + 1, v: 2 }]));
  });
});

describe('torn and corrupt records are refused', () => {
  const batch = batchOf([
    { id: 1, t: T0, v: 1 },
    { id: 2, t: T0 + 1, v: 'two' },
  ]);
  const bytes = frame(5, batch);

  it('refuses every truncation', () => {
    for (let cut = 0; cut < bytes.length; cut++) expect(decodeRecord(bytes.subarray(0, cut), 0)).toBeUndefined();
  });

  it('refuses any single flipped byte, in the header or the payload', () => {
    for (let at = 0; at < bytes.length; at++) {
      // Bytes 28..31 of the header are padding, yet covered by the crc too.
      const copy = Buffer.from(bytes);
      copy[at] = (copy[at] as number) ^ 0x40;
      expect(decodeRecord(copy, 0), `flipped byte ${at}`).toBeUndefined();
    }
  });

  it('refuses garbage and zeros', () => {
    expect(decodeRecord(Buffer.alloc(64), 0)).toBeUndefined();
    expect(decodeRecord(Buffer.from('this is not a record, only some text that is long enough'), 0)).toBeUndefined();
    expect(decodeRecord(Buffer.alloc(0), 0)).toBeUndefined();
  });

  it('refuses a record whose length field points past the end', () => {
    const copy = Buffer.from(bytes);
    copy.writeUInt32LE(0xffff_fff0, 4);
    expect(decodeRecord(copy, 0)).toBeUndefined();
  });

  it('is not fooled by the encoder header buffer being reused', () => {
    const scratch = new RecordScratch();
    const first = encodeRecord(1, batch, scratch);
    const firstHeader = Buffer.from(first.buffers[0] as Uint8Array);
    encodeRecord(2, batchOf([{ id: 1, t: T0, v: 1 }]), scratch);
    // The first record's buffers now view a rewritten header: write them before the next call.
    expect(Buffer.from(first.buffers[0] as Uint8Array).equals(firstHeader)).toBe(false);
  });
});

/** Stores a fresh crc in the record at 0, as if the bytes had been framed that way (a forged or colliding frame). */
function recrc(bytes: Buffer): Buffer {
  const end = RECORD_HEADER_BYTES + bytes.readUInt32LE(4);
  const crc = crc32(bytes.subarray(RECORD_HEADER_BYTES, end), crc32(bytes.subarray(12, RECORD_HEADER_BYTES)));
  bytes.writeUInt32LE(crc >>> 0, 8);
  return bytes;
}

describe('intactRecordEnd refuses frames whose crc checks but whose layout does not', () => {
  const numbers = frame(3, batchOf([{ id: 1, t: T0, v: 1 }, { id: 2, t: T0 + 1, v: 2 }]));
  const strings = frame(3, batchOf([{ id: 1, t: T0, v: 'up' }, { id: 2, t: T0 + 1, v: 2 }]));

  it('accepts the frames as written', () => {
    expect(intactRecordEnd(numbers, 0)).toBe(numbers.length);
    expect(intactRecordEnd(strings, 0)).toBe(strings.length);
  });

  it('refuses a count that does not fit the length', () => {
    const copy = Buffer.from(numbers);
    copy.writeUInt32LE(3, 20);
    expect(intactRecordEnd(recrc(copy), 0)).toBe(-1);
  });

  it('refuses flags no encoder writes', () => {
    const copy = Buffer.from(numbers);
    copy.writeUInt32LE(copy.readUInt32LE(24) | 4, 24);
    expect(intactRecordEnd(recrc(copy), 0)).toBe(-1);
  });

  it('refuses a length that is not a multiple of the alignment', () => {
    const copy = Buffer.concat([strings, Buffer.alloc(RECORD_ALIGN_BYTES)]);
    copy.writeUInt32LE(copy.readUInt32LE(4) + 4, 4);
    expect(intactRecordEnd(recrc(copy), 0)).toBe(-1);
  });

  it('reads a forged strings section without leaving the record (its crc checks, its entries do not fit)', () => {
    const forged = Buffer.from(strings);
    const section = strings.length - 16;
    forged.writeUInt32LE(3, section);
    forged.writeUInt32LE(1000, section + 8);
    const decoded = decodeRecord(recrc(forged), 0);
    expect(decoded?.next).toBe(forged.length);
    expect([...(decoded?.record.batch.strings ?? new Map<number, string>()).values()]).toEqual(['up\u0000\u0000']);
  });
});

describe('isTornRecord', () => {
  const record = frame(7, batchOf([{ id: 1, t: T0, v: 1 }, { id: 2, t: T0 + 1, v: 'two' }]));

  it('is true for every cut of the record short of its end, given the next seq', () => {
    for (let cut = 1; cut < record.length; cut++) expect(isTornRecord(record.subarray(0, cut), 0, 7), `cut at ${cut}`).toBe(true);
  });

  it('is false for a whole header of another seq', () => {
    expect(isTornRecord(record.subarray(0, 40), 0, 8)).toBe(false);
  });

  it('is false for a short tail that does not start like the magic', () => {
    expect(isTornRecord(Buffer.from([0x31, 0x52, 0x00]), 0, 7)).toBe(false);
    expect(isTornRecord(Buffer.alloc(16), 0, 7)).toBe(false);
  });

  it('is false for a complete record whose length field alone claims more (damage, not a tear)', () => {
    const copy = Buffer.from(record);
    copy.writeUInt32LE(copy.readUInt32LE(4) + 64, 4);
    expect(isTornRecord(copy, 0, 7)).toBe(false);
  });

  it('is false for a complete record (it is no tear; it did not check for another reason)', () => {
    const copy = Buffer.from(record);
    copy[40] = (copy[40] as number) ^ 1;
    expect(isTornRecord(copy, 0, 7)).toBe(false);
  });
});
