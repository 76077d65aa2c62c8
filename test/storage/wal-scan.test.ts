// Owns the unit tests of the WAL scan: the read-only report behind `strata check`, segment names, the resync rule on raw bytes.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalLog } from '../../src/storage/wal-log.js';
import { countDamagedCopies, scanSegment, scanWal, segmentName, segmentNames, WAL_DAMAGE_LISTED_MAX } from '../../src/storage/wal-scan.js';
import { batchOf, frame, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10, 12);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-wal-scan-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function points(n: number, start: number): TestPoint[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, t: start + i * 1000, v: i % 2 === 0 ? i : `v${i}` }));
}

/** Every file under `dir` with its bytes and mtime, to prove a scan changed nothing. */
function snapshot(): Map<string, { bytes: Buffer; mtimeMs: number }> {
  const out = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(path, { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs });
  }
  return out;
}

/** Two segments (seqs 1-3 and 4-5) written by the log itself. */
function twoSegments(): [string, string] {
  for (const count of [3, 2]) {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    for (let i = 0; i < count; i++) wal.append(batchOf(points(2 + i, T0 + i)));
    wal.close();
  }
  return [join(dir, segmentName(1)), join(dir, segmentName(4))];
}

describe('scanWal', () => {
  it('reports records, segments and the seq range of an intact WAL', () => {
    twoSegments();
    expect(scanWal(dir)).toEqual({
      segments: 2,
      records: 5,
      firstSeq: 1,
      lastSeq: 5,
      damage: [],
      corruptSpans: 0,
      corruptBytes: 0,
      tornTailBytes: 0,
      damagedCopies: 0,
    });
  });

  it('reports an empty WAL, and a missing directory, as holding nothing', () => {
    expect(scanWal(join(dir, 'absent'))).toMatchObject({ segments: 0, records: 0, firstSeq: null, lastSeq: null, damagedCopies: 0 });
    new WalLog(dir, 'normal').close();
    expect(scanWal(dir)).toMatchObject({ segments: 0, records: 0, corruptSpans: 0 });
  });

  it('reports damage and a torn tail without changing a byte or an mtime, and the same damage a replay then finds', () => {
    const [first, second] = twoSegments();
    const bytes = readFileSync(first);
    bytes[60] = (bytes[60] as number) ^ 0x20;
    writeFileSync(first, bytes);
    truncateSync(second, statSync(second).size - 3);
    // Old mtimes, so a rewrite within the same clock tick would still show.
    for (const path of [first, second]) utimesSync(path, new Date(2020, 0, 1), new Date(2020, 0, 1));
    const before = snapshot();
    const report = scanWal(dir);
    expect(snapshot()).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual([segmentName(1), segmentName(4)]);
    expect(report).toMatchObject({ segments: 2, records: 3, firstSeq: 2, lastSeq: 4, corruptSpans: 1, damagedCopies: 0 });
    expect(report.tornTailBytes).toBeGreaterThan(0);
    expect(report.damage[0]).toMatchObject({ segment: segmentName(1), startOffset: 0 });

    const wal = new WalLog(dir, 'normal');
    const replayed = wal.replay(() => {});
    wal.close();
    expect(replayed.damage).toEqual(report.damage);
    expect(replayed.tornTailBytes).toBe(report.tornTailBytes);
    expect(replayed.recordsReplayed).toBe(report.records);
    expect(scanWal(dir)).toMatchObject({ records: 3, corruptSpans: 0, tornTailBytes: 0, damagedCopies: 1 });
  });
});

describe('the damage list', () => {
  it(`lists at most WAL_DAMAGE_LISTED_MAX (${WAL_DAMAGE_LISTED_MAX}) spans while the totals count them all`, () => {
    // Every other record damaged: one more span than the list holds, each with an intact record between.
    const spans = WAL_DAMAGE_LISTED_MAX + 1;
    const frames = Array.from({ length: 2 * spans + 1 }, (_, i) => {
      const bytes = frame(i + 1, batchOf([]));
      if (i % 2 === 1) bytes[8] = (bytes[8] as number) ^ 1;
      return bytes;
    });
    writeFileSync(join(dir, segmentName(1)), Buffer.concat(frames));
    const scanned = scanWal(dir);
    expect(scanned).toMatchObject({ records: spans + 1, corruptSpans: spans, corruptBytes: spans * (frames[1] as Buffer).length });
    expect(scanned.damage).toHaveLength(WAL_DAMAGE_LISTED_MAX);
    const wal = new WalLog(dir, 'normal');
    const replayed = wal.replay(() => {});
    wal.close();
    expect(replayed).toMatchObject({ recordsReplayed: spans + 1, corruptSpans: spans, corruptBytes: scanned.corruptBytes });
    expect(replayed.damage).toEqual(scanned.damage);
  });
});

describe('segment names', () => {
  it('lists only segment files: not damaged/, its copies, rewrite leftovers or other files', () => {
    writeFileSync(join(dir, segmentName(7)), '');
    writeFileSync(join(dir, segmentName(3)), '');
    writeFileSync(join(dir, `${segmentName(3)}.rewrite`), '');
    writeFileSync(join(dir, 'notes.log'), '');
    mkdirSync(join(dir, 'damaged'));
    writeFileSync(join(dir, 'damaged', `${segmentName(3)}.1`), '');
    expect(segmentNames(dir)).toEqual([segmentName(3), segmentName(7)]);
    expect(countDamagedCopies(dir)).toBe(1);
  });
});

describe('scanSegment', () => {
  const one = frame(1, batchOf(points(3, T0)));
  const two = frame(2, batchOf(points(4, T0)));
  const three = frame(3, batchOf(points(1, T0)));

  it('calls back with the offset of each intact record, in order', () => {
    const offsets: number[] = [];
    const scan = scanSegment(segmentName(1), Buffer.concat([one, two, three]), undefined, (o) => offsets.push(o));
    expect(offsets).toEqual([0, one.length, one.length + two.length]);
    expect(scan).toMatchObject({ records: 3, firstRecordSeq: 1, lastRecordSeq: 3, damage: [], tornTailBytes: 0 });
  });

  it('takes a prefix of the magic as a torn tail, and any other short tail as damage', () => {
    const torn = scanSegment(segmentName(1), Buffer.concat([one, two.subarray(0, 3)]), undefined);
    expect(torn).toMatchObject({ records: 1, damage: [], tornTailBytes: 3 });
    const junk = scanSegment(segmentName(1), Buffer.concat([one, Buffer.from([0x31, 0x52, 0x00])]), undefined);
    expect(junk).toMatchObject({ records: 1, tornTailBytes: 0, damage: [{ startOffset: one.length, endOffset: one.length + 3 }] });
  });

  it('does not take a frame at or past the next segment\'s first seq for a record', () => {
    const scan = scanSegment(segmentName(1), Buffer.concat([one, two, three]), segmentName(3));
    expect(scan).toMatchObject({ records: 2, lastRecordSeq: 2 });
    expect(scan.damage).toHaveLength(1);
  });

  it('takes a record cut short for a torn tail only in the newest segment (a crash tears nothing else)', () => {
    const bytes = Buffer.concat([one, two.subarray(0, 50)]);
    expect(scanSegment(segmentName(1), bytes, undefined)).toMatchObject({ damage: [], tornTailBytes: 50 });
    expect(scanSegment(segmentName(1), bytes, segmentName(9))).toMatchObject({
      damage: [{ startOffset: one.length, endOffset: bytes.length, bytes: 50 }],
      tornTailBytes: 0,
    });
  });

  it('does not take a frame below the segment\'s own first seq for a record', () => {
    const scan = scanSegment(segmentName(2), Buffer.concat([one, two]), undefined);
    expect(scan).toMatchObject({ records: 1, firstRecordSeq: 2, damage: [{ startOffset: 0, endOffset: one.length }] });
  });

  it('names no records and a seq before the first for an empty segment', () => {
    expect(scanSegment(segmentName(5), Buffer.alloc(0), undefined)).toMatchObject({ records: 0, firstSeq: 5, lastRecordSeq: 4, damage: [] });
  });
});
