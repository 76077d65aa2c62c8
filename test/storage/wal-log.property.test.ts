// Owns the WAL's damage properties: after any flipped byte or overwritten run, replay yields every untouched record once, in order, reports the damage, keeps a copy and leaves a segment that replays clean.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WalLog, type WalReplayReport } from '../../src/storage/wal-log.js';
import type { BatchColumns, DecodedRecord } from '../../src/storage/wal-record.js';
import { segmentName } from '../../src/storage/wal-scan.js';
import { batchOf, expectSameBatch, type TestPoint } from './wal-fixtures.js';

const T0 = Date.UTC(2024, 0, 10);
/** Runs per property: each writes, damages and replays real files twice, so a few dozen keep the file near a second. */
const RUNS = 60;

const near = fc.integer({ min: T0 - 3_600_000, max: T0 + 3_600_000 });
const anywhere = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const number = fc.double({ noNaN: true, noDefaultInfinity: true });
const text = fc.string({ maxLength: 12, unit: 'grapheme' });

/** A batch of up to 10 points: near or wide timestamps (the two time layouts), numbers only or with strings. */
const batch: fc.Arbitrary<BatchColumns> = fc
  .tuple(fc.boolean(), fc.boolean())
  .chain(([wide, withStrings]) =>
    fc.array(
      fc.record<TestPoint>({
        id: fc.integer({ min: 0, max: 0xffff_ffff }),
        t: wide ? fc.oneof(near, anywhere) : near,
        v: withStrings ? fc.oneof(number, text) : number,
      }),
      { maxLength: 10 },
    ),
  )
  .map(batchOf);

/** Batches written by one process lifetime each: every round after the first starts a new segment. */
const rounds = fc.array(fc.array(batch, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 });

interface Written {
  readonly seq: number;
  readonly batch: BatchColumns;
  readonly segment: string;
  readonly start: number;
  readonly end: number;
}

/** Appends the rounds, closing and reopening between them, and returns where each record landed. */
function writeRounds(dir: string, batches: readonly (readonly BatchColumns[])[]): Written[] {
  const written: Written[] = [];
  for (const round of batches) {
    const wal = new WalLog(dir, 'normal');
    wal.replay(() => {});
    const segment = segmentName(written.length + 1);
    const path = join(dir, segment);
    for (const b of round) {
      const start = existsSync(path) ? statSync(path).size : 0;
      const seq = wal.append(b);
      written.push({ seq, batch: b, segment, start, end: statSync(path).size });
    }
    wal.close();
  }
  return written;
}

function replay(dir: string): { records: DecodedRecord[]; report: WalReplayReport; wal: WalLog } {
  const wal = new WalLog(dir, 'normal');
  const records: DecodedRecord[] = [];
  const report = wal.replay((r) => records.push(r));
  return { records, report, wal };
}

function expectRecords(records: readonly DecodedRecord[], expected: readonly Written[]): void {
  expect(records.map((r) => r.seq)).toEqual(expected.map((w) => w.seq));
  records.forEach((r, i) => expectSameBatch(r.batch, (expected[i] as Written).batch));
}

/** A position in the concatenation of the segments, as a segment and an offset in it. */
function locate(written: readonly Written[], position: number): { segment: string; offset: number } {
  const segments = [...new Set(written.map((w) => w.segment))];
  const sizes = segments.map((s) => Math.max(...written.filter((w) => w.segment === s).map((w) => w.end)));
  let at = position % sizes.reduce((a, b) => a + b, 0);
  for (const [i, segment] of segments.entries()) {
    if (at < (sizes[i] as number)) return { segment, offset: at };
    at -= sizes[i] as number;
  }
  throw new Error('unreachable');
}

/**
 * Damages the segment with `damage`, replays twice, and checks what holds whatever the damage: the
 * untouched records come back once each, in seq order, identical; every changed byte lies in a
 * reported span or the torn tail; the bytes add up; a copy of the damaged segment is kept; the
 * segment is rewritten so the second replay reports nothing and yields the same records. Returns
 * the first replay's report and the records whose bytes changed.
 */
function damageAndReplay(
  batches: readonly (readonly BatchColumns[])[],
  position: number,
  damage: (bytes: Buffer, offset: number) => void,
): { report: WalReplayReport; touched: Written[]; written: Written[]; changed: number[]; segment: string; original: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'strata-wal-prop-'));
  try {
    const written = writeRounds(dir, batches);
    const { segment, offset } = locate(written, position);
    const path = join(dir, segment);
    const original = readFileSync(path);
    const bytes = Buffer.from(original);
    damage(bytes, offset);
    writeFileSync(path, bytes);
    const changed = [...bytes.keys()].filter((i) => bytes[i] !== original[i]);
    const touched = written.filter((w) => w.segment === segment && changed.some((c) => c >= w.start && c < w.end));
    const intact = written.filter((w) => !touched.includes(w));

    const first = replay(dir);
    const { report } = first;
    expectRecords(first.records, intact);
    expect(report.recordsReplayed).toBe(intact.length);
    const tornStart = bytes.length - report.tornTailBytes;
    for (const c of changed) {
      const covered = c >= tornStart || report.damage.some((d) => d.segment === segment && d.startOffset <= c && c < d.endOffset);
      expect(covered, `changed byte ${c} of ${segment} is reported`).toBe(true);
    }
    const intactBytes = intact.reduce((sum, w) => sum + (w.end - w.start), 0);
    const totalBytes = [...new Set(written.map((w) => w.segment))].reduce((sum, s) => sum + (s === segment ? bytes.length : statSizeOf(written, s)), 0);
    expect(report.corruptBytes + report.tornTailBytes + intactBytes).toBe(totalBytes);

    const copies = report.quarantined;
    if (report.corruptSpans > 0) {
      expect(copies).toEqual([join(dir, 'damaged', `${segment}.1`)]);
      expect(readFileSync(copies[0] as string).equals(bytes)).toBe(true);
    } else {
      expect(copies).toEqual([]);
    }
    const kept = written.filter((w) => w.segment === segment && !touched.includes(w));
    const newest = segment === written[written.length - 1]?.segment;
    if (kept.length > 0 || newest) {
      const expected = Buffer.concat(kept.map((w) => original.subarray(w.start, w.end)));
      expect(readFileSync(path).equals(expected), 'the segment holds exactly its intact records').toBe(true);
    } else {
      expect(existsSync(path)).toBe(false);
    }
    // Closed only now: a newest segment left empty is replaced by a marker named after the next seq.
    first.wal.close();

    const second = replay(dir);
    expect(second.report).toMatchObject({ damage: [], corruptSpans: 0, tornTailBytes: 0, quarantined: [] });
    expectRecords(second.records, intact);
    expect(second.wal.damagedCopies()).toBe(copies.length);
    second.wal.close();
    return { report, touched, written, changed, segment, original };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The size of segment `s` as written (the last record's end). */
function statSizeOf(written: readonly Written[], s: string): number {
  return Math.max(...written.filter((w) => w.segment === s).map((w) => w.end));
}

describe('WAL damage properties', () => {
  it('a flipped byte anywhere loses exactly the record holding it, reported as one span of that record', () => {
    fc.assert(
      fc.property(rounds, fc.nat(), fc.integer({ min: 1, max: 255 }), (batches, position, mask) => {
        const { report, touched } = damageAndReplay(batches, position, (bytes, at) => {
          bytes[at] = (bytes[at] as number) ^ mask;
        });
        // The crc covers every byte but the magic, length and crc fields, and those are checked
        // themselves: no flip goes unnoticed, and none looks like a tear.
        expect(touched).toHaveLength(1);
        const hit = touched[0] as Written;
        expect(report.damage).toEqual([{ segment: hit.segment, startOffset: hit.start, endOffset: hit.end, bytes: hit.end - hit.start }]);
        expect(report.tornTailBytes).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('an overwritten run of bytes loses only the records it touched', () => {
    fc.assert(
      fc.property(rounds, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 24 }), (batches, position, run) => {
        const { report, touched, written, segment, changed } = damageAndReplay(batches, position, (bytes, at) => {
          bytes.set(run.subarray(0, bytes.length - at), at);
        });
        if (changed.length === 0) {
          expect(report).toMatchObject({ corruptSpans: 0, tornTailBytes: 0 });
          return;
        }
        if (report.tornTailBytes > 0) {
          // A run that reaches the length field of the newest segment's last record and bytes the
          // crc covers leaves what a crash mid-write leaves; replay cannot tell them apart. It is the
          // last record, so nothing after it is lost.
          const last = written[written.length - 1] as Written;
          expect(segment).toBe(last.segment);
          expect(touched).toEqual([last]);
          expect(report.tornTailBytes).toBe(last.end - last.start);
          expect(report.corruptSpans).toBe(0);
        } else {
          expect(report.corruptSpans).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
