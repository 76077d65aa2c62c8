// Owns the unit tests of the WAL segment files: append and replay, torn tails (cut silently), release of segments, seq continuity. Damage: wal-log.damage.test.ts.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAL_SEGMENT_BYTES_MAX, WalLog, type WalReplayReport } from '../../src/storage/wal-log.js';
import type { BatchColumns, DecodedRecord } from '../../src/storage/wal-record.js';
import { batchOf, expectSameBatch, frame, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10, 12);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-wal-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the WAL in `dir` afresh (as after a restart) and returns it with what replay handed out and reported. */
function reopen(): { wal: WalLog; records: DecodedRecord[]; report: WalReplayReport } {
  const wal = new WalLog(dir, 'normal');
  const records: DecodedRecord[] = [];
  const report = wal.replay((r) => records.push(r));
  return { wal, records, report };
}

/** Asserts a replay cut a torn tail of `bytes` and reported no corruption, nor put anything aside. */
function expectSilentTear(report: WalReplayReport, bytes: number): void {
  expect(report).toMatchObject({ corruptSpans: 0, corruptBytes: 0, damage: [], quarantined: [], tornTailBytes: bytes });
  expect(existsSync(join(dir, 'damaged'))).toBe(false);
}

function segments(): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
}

function points(n: number, start: number, value: (i: number) => number | string = (i) => i): TestPoint[] {
  return Array.from({ length: n }, (_, i) => ({ id: i % 7, t: start + i * 30_000, v: value(i) }));
}

describe('append and replay', () => {
  it('replays every appended batch, in order, with its seq', () => {
    const batches: BatchColumns[] = [
      batchOf(points(5, T0)),
      batchOf(points(3, T0 + 1, (i) => (i === 1 ? 'down' : -i))),
      batchOf([{ id: 1, t: T0 - 2 ** 33, v: 1 }, { id: 2, t: T0 + 2 ** 33, v: 'far' }]),
    ];
    const wal = new WalLog(dir, 'full');
    wal.replay(() => expect.unreachable('a new WAL has nothing to replay'));
    expect(batches.map((b) => wal.append(b))).toEqual([1, 2, 3]);
    wal.close();
    const { wal: again, records } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3]);
    records.forEach((r, i) => expectSameBatch(r.batch, batches[i] as BatchColumns));
    again.close();
  });

  it('replays records of a WAL that was never closed (the bytes are in the file once append returns)', () => {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    wal.append(batchOf(points(4, T0)));
    wal.append(batchOf(points(2, T0, () => 'x')));
    // No close(): a crash right after the acknowledgement.
    const { wal: again, records } = reopen();
    expect(records.map((r) => [r.seq, r.batch.length])).toEqual([
      [1, 4],
      [2, 2],
    ]);
    again.close();
    wal.close();
  });

  it('replays an empty batch and keeps the records appended after it', () => {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    wal.append(batchOf(points(2, T0)));
    wal.append(batchOf([]));
    wal.append(batchOf(points(3, T0 + 60_000)));
    wal.close();
    const { wal: again, records } = reopen();
    expect(records.map((r) => [r.seq, r.batch.length])).toEqual([
      [1, 2],
      [2, 0],
      [3, 3],
    ]);
    again.close();
  });

  it('continues seqs after replay, in a new segment', () => {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    wal.append(batchOf(points(1, T0)));
    wal.append(batchOf(points(1, T0)));
    wal.close();
    const { wal: again, records } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect(again.append(batchOf(points(1, T0)))).toBe(3);
    expect(again.append(batchOf(points(1, T0)))).toBe(4);
    again.close();
    expect(segments()).toEqual(['0000000000000001.log', '0000000000000003.log']);
    const third = reopen();
    expect(third.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    third.wal.close();
  });

  it('never reuses a seq, even after every record was released and its segment deleted', () => {
    // Sealed markers in the catalog say "window W is sealed through seq S"; replay skips a record
    // of W whose seq is <= S. A seq handed out again after a restart would make replay skip an
    // acknowledged, unsealed record.
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    for (let i = 0; i < 3; i++) wal.append(batchOf(points(1, T0)));
    for (const seq of [1, 2, 3]) wal.release(seq);
    wal.close();
    const { wal: again } = reopen();
    expect(again.append(batchOf(points(1, T0)))).toBeGreaterThan(3);
    again.close();
  });
});

describe('torn tails', () => {
  function writeThree(): number[] {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      wal.append(batchOf(points(3 + i, T0 + i * 1000)));
      sizes.push(statSync(join(dir, '0000000000000001.log')).size);
    }
    wal.close();
    return sizes;
  }

  it('drops a last record cut short by a few bytes and cuts the file at the record before it', () => {
    const sizes = writeThree();
    const path = join(dir, '0000000000000001.log');
    truncateSync(path, (sizes[2] as number) - 5);
    const { wal, records, report } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect(statSync(path).size).toBe(sizes[1]);
    expectSilentTear(report, (sizes[2] as number) - 5 - (sizes[1] as number));
    expect(report.recordsReplayed).toBe(2);
    // The torn record was never acknowledged, so its seq may be handed out again (or skipped).
    const seq = wal.append(batchOf(points(2, T0 + 99)));
    expect(seq).toBeGreaterThanOrEqual(3);
    wal.close();
    const after = reopen();
    expect(after.records.map((r) => [r.seq, r.batch.length])).toEqual([
      [1, 3],
      [2, 4],
      [seq, 2],
    ]);
    after.wal.close();
  });

  it('drops a torn header that starts like a record (magic, then nothing)', () => {
    const sizes = writeThree();
    const path = join(dir, '0000000000000001.log');
    const whole = readFileSync(path);
    appendFileSync(path, whole.subarray(0, 12));
    const { wal, records, report } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(statSync(path).size).toBe(sizes[2]);
    expectSilentTear(report, 12);
    wal.close();
  });

  it('cuts a segment that holds only a torn record to nothing, keeping it as the seq marker', () => {
    writeFileSync(join(dir, '0000000000000001.log'), frame(1, batchOf(points(3, T0))).subarray(0, 20));
    const { wal, records, report } = reopen();
    expect(records).toEqual([]);
    expectSilentTear(report, 20);
    expect(segments()).toEqual(['0000000000000001.log']);
    expect(statSync(join(dir, '0000000000000001.log')).size).toBe(0);
    const seq = wal.append(batchOf(points(1, T0)));
    wal.close();
    const after = reopen();
    expect(after.records.map((r) => r.seq)).toEqual([seq]);
    after.wal.close();
  });
});

describe('release', () => {
  /** Three segments: seqs 1-2, 3-4 (made by reopening, as after restarts) and the current one, 5-6. */
  function threeSegments(): WalLog {
    let seq = 0;
    for (let round = 0; round < 2; round++) {
      const { wal } = reopen();
      wal.append(batchOf(points(2, T0 + ++seq)));
      wal.append(batchOf(points(2, T0 + ++seq)));
      wal.close();
    }
    const { wal, records } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(wal.append(batchOf(points(1, T0)))).toBe(5);
    expect(wal.append(batchOf(points(1, T0)))).toBe(6);
    expect(segments()).toEqual(['0000000000000001.log', '0000000000000003.log', '0000000000000005.log']);
    expect(wal.segmentCount()).toBe(3);
    return wal;
  }

  it('deletes a non-current segment once every record of it is released, and only then', () => {
    const wal = threeSegments();
    wal.release(1);
    expect(segments()).toHaveLength(3);
    wal.release(4);
    expect(segments()).toHaveLength(3);
    wal.release(2);
    expect(segments()).toEqual(['0000000000000003.log', '0000000000000005.log']);
    wal.release(3);
    expect(segments()).toEqual(['0000000000000005.log']);
    expect(wal.segmentCount()).toBe(1);
    wal.close();
  });

  it('keeps the current segment while it is open, even when fully released', () => {
    const wal = threeSegments();
    wal.release(5);
    wal.release(6);
    expect(segments()).toContain('0000000000000005.log');
    expect(wal.append(batchOf(points(1, T0)))).toBe(7);
    wal.close();
    const { wal: again, records } = reopen();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    again.close();
  });

  it('ignores a seq it does not hold', () => {
    const wal = threeSegments();
    wal.release(99);
    wal.release(0);
    expect(segments()).toHaveLength(3);
    wal.close();
  });

  it('releasing at replay time (already sealed records) deletes replayed segments', () => {
    threeSegments().close();
    const { wal, records } = reopen();
    expect(records).toHaveLength(6);
    for (const r of records.filter((r) => r.seq <= 4)) wal.release(r.seq);
    expect(segments()).toEqual(['0000000000000005.log']);
    wal.close();
  });

  it(`rotates past WAL_SEGMENT_BYTES_MAX (${WAL_SEGMENT_BYTES_MAX} bytes) and deletes the released old segment`, () => {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    // 200,000 points of 16 bytes make a record of about 3.2 MB; 21 of them pass 64 MiB.
    const n = 200_000;
    const big: BatchColumns = {
      length: n,
      seriesIds: new Uint32Array(n).fill(3),
      timestampsMs: Float64Array.from({ length: n }, (_, i) => T0 + i),
      values: new Float64Array(n).fill(1.25),
      strings: null,
    };
    const seqs: number[] = [];
    while (segments().length < 2) seqs.push(wal.append(big));
    const last = seqs[seqs.length - 1] as number;
    const first = segments()[0] as string;
    expect(statSync(join(dir, first)).size).toBeGreaterThanOrEqual(WAL_SEGMENT_BYTES_MAX);
    expect(segments()[1]).toBe(`${String(last).padStart(16, '0')}.log`);
    for (const seq of seqs.slice(0, -2)) wal.release(seq);
    expect(segments()).toHaveLength(2);
    wal.release(last - 1);
    expect(segments()).toEqual([`${String(last).padStart(16, '0')}.log`]);
    wal.close();
    const { wal: again, records } = reopen();
    expect(records.map((r) => r.seq)).toEqual([last]);
    expect(records[0]?.batch.length).toBe(n);
    again.close();
  });
});
