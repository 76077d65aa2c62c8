// Owns the unit tests of WAL damage at replay: resync past damaged records, torn tail versus corruption, the report, the copy under damaged/, the rewrite, and seqs and appends after a repair.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalLog, type WalReplayReport } from '../../src/storage/wal-log.js';
import type { BatchColumns, DecodedRecord } from '../../src/storage/wal-record.js';
import { batchOf, expectSameBatch, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10, 12);
const FIRST = '0000000000000001.log';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-wal-damage-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function points(n: number, start: number, value: (i: number) => number | string = (i) => i): TestPoint[] {
  return Array.from({ length: n }, (_, i) => ({ id: i % 7, t: start + i * 30_000, v: value(i) }));
}

/** Batch i of the fixtures: i + 3 points, every third point of odd batches a string. */
function batchNo(i: number): BatchColumns {
  return batchOf(points(i + 3, T0 + i * 1000, (j) => (i % 2 === 1 && j % 3 === 0 ? `s${i}.${j}` : i * 100 + j)));
}

/** A closed log holding batches 0..count-1 in one segment: its path, its bytes and the [start, end) of each record. */
function writeRecords(count: number): { path: string; bytes: Buffer; spans: [number, number][] } {
  const wal = new WalLog(dir, 'normal');
  wal.replay(() => {});
  const path = join(dir, FIRST);
  const spans: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const start = existsSync(path) ? statSync(path).size : 0;
    wal.append(batchNo(i));
    spans.push([start, statSync(path).size]);
  }
  wal.close();
  return { path, bytes: readFileSync(path), spans };
}

function reopen(): { wal: WalLog; records: DecodedRecord[]; report: WalReplayReport } {
  const wal = new WalLog(dir, 'normal');
  const records: DecodedRecord[] = [];
  const report = wal.replay((r) => records.push(r));
  return { wal, records, report };
}

/** XORs the byte at `at` of the file with `mask`. */
function flip(path: string, at: number, mask = 0x40): Buffer {
  const bytes = readFileSync(path);
  bytes[at] = (bytes[at] as number) ^ mask;
  writeFileSync(path, bytes);
  return bytes;
}

function damaged(): string[] {
  const sub = join(dir, 'damaged');
  return existsSync(sub) ? readdirSync(sub).sort() : [];
}

/** Asserts the records are batches `kept` (by index, seq = index + 1) in order, content included. */
function expectBatches(records: readonly DecodedRecord[], kept: readonly number[]): void {
  expect(records.map((r) => r.seq)).toEqual(kept.map((i) => i + 1));
  records.forEach((r, k) => expectSameBatch(r.batch, batchNo(kept[k] as number)));
}

/** The segment's bytes without the records `dropped` (by index). */
function without(bytes: Buffer, spans: readonly [number, number][], dropped: readonly number[]): Buffer {
  return Buffer.concat(spans.filter((_, i) => !dropped.includes(i)).map(([s, e]) => bytes.subarray(s, e)));
}

describe('a damaged record in the middle', () => {
  it('replays the records before and after a record whose crc does not match, reports it, keeps a copy and rewrites the segment', () => {
    const { path, spans } = writeRecords(3);
    const [s1, e1] = spans[1] as [number, number];
    const broken = flip(path, s1 + 8, 1);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 2]);
    const copy = join(dir, 'damaged', `${FIRST}.1`);
    expect(report).toEqual({
      damage: [{ segment: FIRST, startOffset: s1, endOffset: e1, bytes: e1 - s1 }],
      corruptSpans: 1,
      corruptBytes: e1 - s1,
      recordsReplayed: 2,
      tornTailBytes: 0,
      quarantined: [copy],
    });
    expect(readFileSync(copy).equals(broken)).toBe(true);
    expect(readFileSync(path).equals(without(broken, spans, [1]))).toBe(true);
    wal.close();
    const again = reopen();
    expect(again.report).toMatchObject({ damage: [], corruptSpans: 0, tornTailBytes: 0, recordsReplayed: 2, quarantined: [] });
    expectBatches(again.records, [0, 2]);
    again.wal.close();
  });

  it('resyncs past a record whose payload was altered', () => {
    const { path, spans } = writeRecords(3);
    flip(path, (spans[1] as [number, number])[0] + 45, 0x80);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 2]);
    expect(report.corruptSpans).toBe(1);
    wal.close();
  });

  it('resyncs past a length field flipped to claim bytes past the end of the file', () => {
    const { path, spans } = writeRecords(4);
    const [s1, e1] = spans[1] as [number, number];
    flip(path, s1 + 7, 0x7f);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 2, 3]);
    expect(report.damage).toEqual([{ segment: FIRST, startOffset: s1, endOffset: e1, bytes: e1 - s1 }]);
    wal.close();
  });

  it('resyncs past a length field flipped to a shorter length', () => {
    const { path, spans } = writeRecords(4);
    const [s2, e2] = spans[2] as [number, number];
    flip(path, s2 + 4, 0x08);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 1, 3]);
    expect(report.damage).toEqual([{ segment: FIRST, startOffset: s2, endOffset: e2, bytes: e2 - s2 }]);
    wal.close();
  });

  it('reports adjacent damaged records as one span and separate ones as two', () => {
    const { path, bytes, spans } = writeRecords(7);
    const [s1] = spans[1] as [number, number];
    const [, e2] = spans[2] as [number, number];
    bytes.fill(0, s1, e2);
    const [s5, e5] = spans[5] as [number, number];
    bytes[s5 + 50] = (bytes[s5 + 50] as number) ^ 1;
    writeFileSync(path, bytes);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 3, 4, 6]);
    expect(report.damage.map((d) => [d.startOffset, d.endOffset])).toEqual([
      [s1, e2],
      [s5, e5],
    ]);
    expect(report).toMatchObject({ corruptSpans: 2, corruptBytes: e2 - s1 + (e5 - s5), quarantined: [join(dir, 'damaged', `${FIRST}.1`)] });
    wal.close();
  });

  it('does not take a frame whose seq goes back for a record (a copy of an earlier record inside damage)', () => {
    const { path, bytes, spans } = writeRecords(3);
    const [s0, e0] = spans[0] as [number, number];
    const [s1, e1] = spans[1] as [number, number];
    // Record 1's bytes become a copy of record 0 (seq 1) followed by garbage: a valid frame, out of order.
    expect(e1 - s1).toBeGreaterThan(e0 - s0);
    bytes.fill(0xee, s1, e1);
    bytes.copy(bytes, s1, s0, e0);
    writeFileSync(path, bytes);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 2]);
    expect(report.damage.map((d) => [d.startOffset, d.endOffset])).toEqual([[s1, e1]]);
    wal.close();
  });
});

describe('damage at the end of a segment', () => {
  it('reports a last record whose payload was altered: its length is intact, so it is no tear', () => {
    const { path, spans } = writeRecords(3);
    const [s2, e2] = spans[2] as [number, number];
    flip(path, e2 - 3);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 1]);
    expect(report).toMatchObject({ damage: [{ segment: FIRST, startOffset: s2, endOffset: e2, bytes: e2 - s2 }], tornTailBytes: 0 });
    expect(statSync(path).size).toBe(s2);
    wal.close();
  });

  it.each([
    ['numbers only', 3],
    ['strings', 2],
  ])('reports a last record (%s) whose length field was flipped past the end of the file', (_, count) => {
    const { path, spans } = writeRecords(count);
    const [s, e] = spans[count - 1] as [number, number];
    expect(batchNo(count - 1).strings !== null).toBe(count === 2);
    flip(path, s + 5, 0x10);
    const { wal, records, report } = reopen();
    expect(records).toHaveLength(count - 1);
    expect(report).toMatchObject({ damage: [{ startOffset: s, endOffset: e }], tornTailBytes: 0 });
    wal.close();
  });

  it('reports bytes after the last record that are not a record cut short', () => {
    const { path, bytes } = writeRecords(3);
    const garbage = Buffer.from('garbage after the last record \u0000\u0001\u0002');
    appendFileSync(path, garbage);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 1, 2]);
    expect(report.damage).toEqual([{ segment: FIRST, startOffset: bytes.length, endOffset: bytes.length + garbage.length, bytes: garbage.length }]);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    const seq = wal.append(batchNo(3));
    expect(seq).toBeGreaterThanOrEqual(4);
    wal.close();
    expect(reopen().records.map((r) => r.seq)).toEqual([1, 2, 3, seq]);
  });

  it('reports a header cut short whose seq is not the next one (a tear only ever holds the next seq)', () => {
    const { path, bytes, spans } = writeRecords(3);
    // The first record's header and part of its payload again: a whole header, its length past the end, seq 1.
    expect((spans[0] as [number, number])[1]).toBeGreaterThan(48);
    appendFileSync(path, bytes.subarray(0, 48));
    const { wal, report } = reopen();
    expect(report).toMatchObject({ corruptSpans: 1, tornTailBytes: 0 });
    wal.close();
  });

  it('does not hand out again the seqs that damage at the end may have held (they were acknowledged)', () => {
    const { path, spans } = writeRecords(4);
    const [s2] = spans[2] as [number, number];
    const bytes = readFileSync(path);
    bytes.fill(0, s2);
    writeFileSync(path, bytes);
    const { wal, records } = reopen();
    expectBatches(records, [0, 1]);
    // Seqs 3 and 4 may be named by sealed markers: a new record reusing one could be skipped by a later replay.
    expect(wal.append(batchNo(9))).toBeGreaterThan(4);
    wal.close();
  });
});

describe('after a repair', () => {
  it('appends continue at a record boundary and survive another reopen', () => {
    const { path, spans } = writeRecords(4);
    flip(path, (spans[1] as [number, number])[0] + 40);
    const { wal, records } = reopen();
    expectBatches(records, [0, 2, 3]);
    const a = wal.append(batchNo(10));
    const b = wal.append(batchNo(11));
    expect([a, b]).toEqual([5, 6]);
    wal.close();
    const again = reopen();
    expect(again.report.corruptSpans).toBe(0);
    expect(again.records.map((r) => r.seq)).toEqual([1, 3, 4, 5, 6]);
    expectSameBatch((again.records[3] as DecodedRecord).batch, batchNo(10));
    expectSameBatch((again.records[4] as DecodedRecord).batch, batchNo(11));
    again.wal.close();
  });

  it('keeps every copy: a segment damaged again gets the next number', () => {
    const { path, spans } = writeRecords(4);
    flip(path, (spans[1] as [number, number])[0] + 40);
    reopen().wal.close();
    // The rewritten segment holds records 0, 2, 3; damage record 2 (now the second one).
    const rewritten = readFileSync(path);
    const second = rewritten.length - ((spans[3] as [number, number])[1] - (spans[2] as [number, number])[0]);
    flip(path, second + 40);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 3]);
    expect(report.quarantined).toEqual([join(dir, 'damaged', `${FIRST}.2`)]);
    expect(damaged()).toEqual([`${FIRST}.1`, `${FIRST}.2`]);
    expect(wal.damagedCopies()).toBe(2);
    wal.close();
  });

  it('keeps copies private: 0600 files in a 0700 directory', () => {
    const { path, spans } = writeRecords(2);
    flip(path, (spans[0] as [number, number])[0] + 40);
    reopen().wal.close();
    expect((statSync(join(dir, 'damaged')).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(dir, 'damaged', `${FIRST}.1`)).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
  });

  it('does not take damaged/ or a leftover rewrite file for a segment, and deletes the leftover', () => {
    const { path, spans } = writeRecords(3);
    flip(path, (spans[1] as [number, number])[0] + 40);
    reopen().wal.close();
    writeFileSync(join(dir, `${FIRST}.rewrite`), Buffer.alloc(64, 7));
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 2]);
    expect(report.corruptSpans).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([FIRST, 'damaged']);
    wal.close();
  });

  it('counts the damage found since open and the copies on disk', () => {
    const { path, spans } = writeRecords(3);
    const fresh = new WalLog(dir, 'normal');
    expect(fresh.damageFound()).toEqual({ corruptSpans: 0, corruptBytes: 0, tornTailBytes: 0 });
    expect(fresh.damagedCopies()).toBe(0);
    const [s1, e1] = spans[1] as [number, number];
    flip(path, s1 + 40);
    fresh.replay(() => {});
    expect(fresh.damageFound()).toEqual({ corruptSpans: 1, corruptBytes: e1 - s1, tornTailBytes: 0 });
    expect(fresh.damagedCopies()).toBe(1);
    fresh.close();
  });
});

describe('several segments', () => {
  /** Three segments, as after restarts: seqs 1-2 (batches 0, 1), 3-4 (2, 3) and 5-6 (4, 5). */
  function threeSegments(): string[] {
    for (let round = 0; round < 3; round++) {
      const { wal } = reopen();
      wal.append(batchNo(2 * round));
      wal.append(batchNo(2 * round + 1));
      wal.close();
    }
    const names = readdirSync(dir).sort();
    expect(names).toEqual(['0000000000000001.log', '0000000000000003.log', '0000000000000005.log']);
    return names;
  }

  it('resyncs in each damaged segment and keeps seqs in order across them', () => {
    const names = threeSegments();
    flip(join(dir, names[0] as string), 40);
    const last = join(dir, names[2] as string);
    flip(last, statSync(last).size - 1);
    const { wal, records, report } = reopen();
    expectBatches(records, [1, 2, 3, 4]);
    expect(report.damage.map((d) => d.segment)).toEqual([names[0], names[2]]);
    expect(report.quarantined).toHaveLength(2);
    // The newest segment's damaged tail may have held seq 6 and more: new seqs start past them.
    const seq = wal.append(batchNo(6));
    expect(seq).toBeGreaterThan(6);
    wal.close();
    expect(reopen().records.map((r) => r.seq)).toEqual([2, 3, 4, 5, seq]);
  });

  it('deletes an older segment left with no intact record, after keeping its copy', () => {
    const names = threeSegments();
    const middle = join(dir, names[1] as string);
    const original = readFileSync(middle).fill(0xab);
    writeFileSync(middle, original);
    const { wal, records, report } = reopen();
    expectBatches(records, [0, 1, 4, 5]);
    expect(report.damage).toEqual([{ segment: names[1], startOffset: 0, endOffset: original.length, bytes: original.length }]);
    expect(readdirSync(dir).sort()).toEqual([names[0], names[2], 'damaged']);
    expect(readFileSync(join(dir, 'damaged', `${names[1]}.1`)).equals(original)).toBe(true);
    wal.close();
  });
});
