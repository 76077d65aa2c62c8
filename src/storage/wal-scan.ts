// Owns the WAL's resync rule (walk a segment record by record, step over damage to the next intact record, tell a torn tail from corruption) and the read-only scan behind `strata check`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { intactRecordEnd, isTornRecord, RECORD_ALIGN_BYTES, RECORD_BYTES_MIN, recordSeq } from './wal-record.js';

/** Names of segment files: the first seq the segment was started for, zero-padded, then `.log`. */
export const SEGMENT_NAME = /^(\d{16})\.log$/;
/** The directory under the WAL directory where copies of damaged segments are kept for inspection. */
export const DAMAGED_DIR_NAME = 'damaged';
/**
 * Reports list at most this many damaged spans (their totals count every one): a segment damaged
 * every few records could hold hundreds of thousands, too many for a log line or a terminal.
 */
export const WAL_DAMAGE_LISTED_MAX = 1_000;

/** The name of the segment whose first record has seq `firstSeq`. */
export function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.log`;
}

function seqOfName(name: string): number {
  return Number(SEGMENT_NAME.exec(name)?.[1]);
}

/** The segment files of `walDir` in seq order; none when the directory does not exist. */
export function segmentNames(walDir: string): string[] {
  if (!existsSync(walDir)) return [];
  return readdirSync(walDir)
    .filter((n) => SEGMENT_NAME.test(n))
    .sort();
}

/** A stretch of a segment that holds no intact record and is not a torn tail: acknowledged data may be lost there. */
export interface WalDamage {
  /** The segment's file name (not its path). */
  readonly segment: string;
  readonly startOffset: number;
  /** Exclusive. */
  readonly endOffset: number;
  readonly bytes: number;
}

/** Totals of what scans found: corrupt spans, and torn tails (a write cut short by a crash, never acknowledged). */
export interface WalDamageTotals {
  readonly corruptSpans: number;
  readonly corruptBytes: number;
  readonly tornTailBytes: number;
}

/** What scanning one segment found. */
export interface SegmentScan {
  readonly name: string;
  /** The seq in the segment's name. */
  readonly firstSeq: number;
  /** Intact records, in file (and seq) order. */
  readonly records: number;
  /** The seq of the first intact record; NaN when there is none. */
  readonly firstRecordSeq: number;
  /** The seq of the last intact record; firstSeq - 1 when there is none. */
  readonly lastRecordSeq: number;
  /** Every seq of the segment is below this: the next segment's first seq, Infinity for the newest. */
  readonly seqCeiling: number;
  readonly damage: readonly WalDamage[];
  readonly tornTailBytes: number;
  readonly bytes: number;
}

/** What scanning a whole WAL directory without changing it found (for `strata check`). */
export interface WalScanReport extends WalDamageTotals {
  readonly segments: number;
  readonly records: number;
  /** Seqs of the first and last intact record; null when there is none. */
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  /** The damaged spans in segment and offset order, the first WAL_DAMAGE_LISTED_MAX of corruptSpans. */
  readonly damage: readonly WalDamage[];
  /** Files under `damaged/` (copies put aside by earlier replays). */
  readonly damagedCopies: number;
}

/**
 * The end of the intact record at `offset` whose seq follows `prevSeq` and stays below `seqCeiling`,
 * or -1. Seqs only grow within a segment and stay below the next segment's name, so a frame that
 * breaks the order is not taken for a record (a frame that a client's value happens to spell).
 */
function acceptedEnd(buf: Buffer, offset: number, prevSeq: number, seqCeiling: number): number {
  const end = intactRecordEnd(buf, offset);
  if (end < 0) return -1;
  const seq = recordSeq(buf, offset);
  return Number.isSafeInteger(seq) && seq > prevSeq && seq < seqCeiling ? end : -1;
}

/**
 * The offset and end of the first intact record after the one at `from` that did not check, trying
 * every RECORD_ALIGN_BYTES step; [buf.length, -1] when none follows. The step is what keeps this
 * cheap: most offsets fail on the magic alone.
 */
function resync(buf: Buffer, from: number, prevSeq: number, seqCeiling: number): [number, number] {
  for (let at = from + RECORD_ALIGN_BYTES; at < buf.length; at += RECORD_ALIGN_BYTES) {
    const end = acceptedEnd(buf, at, prevSeq, seqCeiling);
    if (end >= 0) return [at, end];
  }
  return [buf.length, -1];
}

/**
 * Walks the segment `name` held in `buf`, calling `onRecord` with the offset of each intact record
 * in order. After a record that does not check it steps on in RECORD_ALIGN_BYTES (every record
 * starts at such a multiple) to the next intact record, and names the span between as damage.
 * `nextName` is the next segment's name, undefined for the newest. Appends are whole writevs to the
 * end of the newest segment, so the only damage a crash alone leaves is a span at the end of the
 * newest segment that starts like its next record cut short (isTornRecord): that is a torn tail.
 */
export function scanSegment(name: string, buf: Buffer, nextName: string | undefined, onRecord?: (offset: number) => void): SegmentScan {
  const firstSeq = seqOfName(name);
  // Seqs stay below the next segment's name: it was started for a later seq.
  const seqCeiling = nextName === undefined ? Infinity : seqOfName(nextName);
  const damage: WalDamage[] = [];
  let records = 0;
  let firstRecordSeq = NaN;
  let lastSeq = firstSeq - 1;
  let tornTailBytes = 0;
  let offset = 0;
  while (offset < buf.length) {
    let end = acceptedEnd(buf, offset, lastSeq, seqCeiling);
    if (end < 0) {
      const start = offset;
      [offset, end] = resync(buf, start, lastSeq, seqCeiling);
      if (end < 0) {
        if (nextName === undefined && isTornRecord(buf, start, lastSeq + 1)) tornTailBytes = buf.length - start;
        else damage.push({ segment: name, startOffset: start, endOffset: buf.length, bytes: buf.length - start });
        break;
      }
      damage.push({ segment: name, startOffset: start, endOffset: offset, bytes: offset - start });
    }
    onRecord?.(offset);
    lastSeq = recordSeq(buf, offset);
    if (records++ === 0) firstRecordSeq = lastSeq;
    offset = end;
  }
  return { name, firstSeq, records, firstRecordSeq, lastRecordSeq: lastSeq, seqCeiling, damage, tornTailBytes, bytes: buf.length };
}

/**
 * The lowest seq a new record may take after `scan`: above every intact record, and above every seq
 * that damage at the end may have held (at most one per RECORD_BYTES_MIN bytes, all below the next
 * segment's first seq). Those records were acknowledged and may be covered by a sealed marker, so
 * their seqs must not be handed out again. A torn tail's seq may be: it was never acknowledged.
 */
export function nextSeqAfter(scan: SegmentScan): number {
  const last = scan.damage[scan.damage.length - 1];
  const lost = last !== undefined && last.endOffset === scan.bytes ? Math.floor(last.bytes / RECORD_BYTES_MIN) : 0;
  return Math.max(scan.firstSeq, Math.min(scan.lastRecordSeq + 1 + lost, scan.seqCeiling));
}

/** The bytes of `buf` outside the damage and the torn tail of `scan`: its intact records, back to back. */
export function intactBytes(buf: Buffer, scan: SegmentScan): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const span of scan.damage) {
    if (span.startOffset > from) parts.push(buf.subarray(from, span.startOffset));
    from = span.endOffset;
  }
  const end = buf.length - scan.tornTailBytes;
  if (end > from) parts.push(buf.subarray(from, end));
  return Buffer.concat(parts);
}

/** Appends `spans` to a report's list while it holds fewer than WAL_DAMAGE_LISTED_MAX. */
export function listDamage(list: WalDamage[], spans: readonly WalDamage[]): void {
  for (const span of spans) {
    if (list.length >= WAL_DAMAGE_LISTED_MAX) return;
    list.push(span);
  }
}

/** Files under `<walDir>/damaged/`; they are never deleted automatically. */
export function countDamagedCopies(walDir: string): number {
  const dir = join(walDir, DAMAGED_DIR_NAME);
  return existsSync(dir) ? readdirSync(dir).length : 0;
}

/** Reads every segment of `walDir` and reports records and damage; changes nothing on disk. */
export function scanWal(walDir: string): WalScanReport {
  const names = segmentNames(walDir);
  const damage: WalDamage[] = [];
  let corruptSpans = 0;
  let corruptBytes = 0;
  let records = 0;
  let tornTailBytes = 0;
  let firstSeq: number | null = null;
  let lastSeq: number | null = null;
  for (const [index, name] of names.entries()) {
    const scan = scanSegment(name, readFileSync(join(walDir, name)), names[index + 1]);
    listDamage(damage, scan.damage);
    corruptSpans += scan.damage.length;
    for (const span of scan.damage) corruptBytes += span.bytes;
    tornTailBytes += scan.tornTailBytes;
    records += scan.records;
    if (scan.records > 0) {
      firstSeq ??= scan.firstRecordSeq;
      lastSeq = scan.lastRecordSeq;
    }
  }
  return {
    segments: names.length,
    records,
    firstSeq,
    lastSeq,
    damage,
    corruptSpans,
    corruptBytes,
    tornTailBytes,
    damagedCopies: countDamagedCopies(walDir),
  };
}
