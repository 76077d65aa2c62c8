// Owns the write-ahead log: append-only segment files of framed batch records, replay (resyncing past damage) and truncation.
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type Durability } from './open-database.js';
import { encodeRecord, readRecord, RecordScratch, type BatchColumns, type DecodedRecord } from './wal-record.js';
import { quarantineSegment, removeLeftoverRewrites, rewriteSegment } from './wal-repair.js';
import {
  countDamagedCopies,
  intactBytes,
  listDamage,
  nextSeqAfter,
  scanSegment,
  segmentName,
  segmentNames,
  type SegmentScan,
  type WalDamage,
  type WalDamageTotals,
} from './wal-scan.js';

/** A segment is closed and a new one started once it holds this many bytes. */
export const WAL_SEGMENT_BYTES_MAX = 64 * 1024 * 1024;

/** What one replay found and did: damage (acknowledged data possibly lost), torn tails cut, copies put aside. */
export interface WalReplayReport extends WalDamageTotals {
  /** The damaged spans in segment and offset order, the first WAL_DAMAGE_LISTED_MAX of corruptSpans. */
  readonly damage: readonly WalDamage[];
  readonly recordsReplayed: number;
  /** Paths of the copies of damaged segments made under `damaged/` before they were rewritten. */
  readonly quarantined: readonly string[];
}

interface Segment {
  readonly path: string;
  readonly firstSeq: number;
  lastSeq: number;
  /** Records of this segment whose points are not all sealed yet. */
  live: number;
}

/**
 * The WAL. A batch is acknowledged once its record is written with one writev: after that a
 * process crash cannot lose it (the bytes are in the OS page cache); with 'full' durability the
 * segment is also fdatasync'ed, so a power loss cannot either. Records carry a crc32, so a record
 * torn by a crash mid-write is recognised and dropped at replay (it was never acknowledged), and
 * a record damaged later is stepped over without losing the records after it (see wal-scan.ts).
 */
export class WalLog {
  private readonly dir: string;
  private readonly durability: Durability;
  private readonly segments: Segment[] = [];
  private fd = -1;
  private currentBytes = 0;
  private nextSeq = 1;
  private readonly scratch = new RecordScratch();
  private found: WalDamageTotals = { corruptSpans: 0, corruptBytes: 0, tornTailBytes: 0 };

  constructor(dir: string, durability: Durability) {
    this.dir = dir;
    this.durability = durability;
    // Segments hold every acknowledged point: private to the owner, like the SQLite files.
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  }

  /**
   * Reads every intact record in seq order and hands it to `visit`, stepping over damaged spans to
   * the records after them. A torn tail is cut. A segment with damage is first copied to
   * `damaged/`, then rewritten to its intact records, so the next start does not find the same
   * damage and appends continue on a record boundary. Must be called once, before the first append.
   * Every replayed record starts live.
   */
  replay(visit: (record: DecodedRecord) => void): WalReplayReport {
    removeLeftoverRewrites(this.dir);
    const names = segmentNames(this.dir);
    const damage: WalDamage[] = [];
    const quarantined: string[] = [];
    let corruptSpans = 0;
    let corruptBytes = 0;
    let recordsReplayed = 0;
    let tornTailBytes = 0;
    for (const [index, name] of names.entries()) {
      const path = join(this.dir, name);
      const buf = readFileSync(path);
      const scan = scanSegment(name, buf, names[index + 1], (offset) => visit(readRecord(buf, offset)));
      const newest = index === names.length - 1;
      if (scan.damage.length > 0) quarantined.push(this.repair(scan, buf, newest));
      else if (scan.tornTailBytes > 0) this.cutTail(path, buf.length - scan.tornTailBytes);
      listDamage(damage, scan.damage);
      corruptSpans += scan.damage.length;
      for (const span of scan.damage) corruptBytes += span.bytes;
      recordsReplayed += scan.records;
      tornTailBytes += scan.tornTailBytes;
      // Seqs never go back, even when every record was released: sealed markers refer to them.
      this.nextSeq = Math.max(this.nextSeq, nextSeqAfter(scan));
      // The newest segment is kept even when empty: its name carries the next seq.
      if (scan.records === 0 && !newest) unlinkSync(path);
      else this.segments.push({ path, firstSeq: scan.firstSeq, lastSeq: scan.lastRecordSeq, live: scan.records });
    }
    this.found = {
      corruptSpans: this.found.corruptSpans + corruptSpans,
      corruptBytes: this.found.corruptBytes + corruptBytes,
      tornTailBytes: this.found.tornTailBytes + tornTailBytes,
    };
    return { damage, corruptSpans, corruptBytes, recordsReplayed, tornTailBytes, quarantined };
  }

  /** Keeps a copy of a damaged segment, then leaves only its intact records in it; returns the copy's path. */
  private repair(scan: SegmentScan, buf: Buffer, newest: boolean): string {
    const copy = quarantineSegment(this.dir, scan.name, buf);
    // An older segment left without records is deleted by replay; rewriting it first would be wasted.
    if (scan.records > 0 || newest) rewriteSegment(this.dir, scan.name, intactBytes(buf, scan));
    return copy;
  }

  private cutTail(path: string, offset: number): void {
    // A torn record was never acknowledged; drop it so the file ends on a record boundary.
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, offset);
    } finally {
      closeSync(fd);
    }
  }

  /** Damage found by replay since this log was opened (for /metrics). */
  damageFound(): WalDamageTotals {
    return this.found;
  }

  /** Copies of damaged segments kept under `damaged/` (for /metrics and `strata check`); never deleted automatically. */
  damagedCopies(): number {
    return countDamagedCopies(this.dir);
  }

  /** Appends a batch durably and returns its seq. */
  append(batch: BatchColumns): number {
    const seq = this.nextSeq++;
    const record = encodeRecord(seq, batch, this.scratch);
    try {
      if (this.fd < 0 || this.currentBytes >= WAL_SEGMENT_BYTES_MAX) this.startSegment(seq);
      let pending = record.buffers.slice();
      let remaining = record.bytes;
      while (remaining > 0) {
        const written = writevSync(this.fd, pending);
        remaining -= written;
        if (remaining > 0) pending = dropBytes(pending, written);
      }
      if (this.durability === 'full') fdatasyncSync(this.fd);
    } catch (error) {
      this.undoAppend(seq);
      throw error;
    }
    this.currentBytes += record.bytes;
    const segment = this.segments[this.segments.length - 1] as Segment;
    segment.lastSeq = seq;
    segment.live++;
    return seq;
  }

  /**
   * After a failed append (a full disk, an I/O error): cuts what part of the record reached the
   * file, so the segment still ends on a record boundary and a later append does not follow a torn
   * record (which replay would report as corruption), and gives the seq back. When even the cut
   * fails, the segment is closed: the next append starts a new one, and the seq stays used.
   */
  private undoAppend(seq: number): void {
    if (this.fd < 0) {
      // No segment could be opened: nothing reached a file.
      this.nextSeq = seq;
      return;
    }
    try {
      ftruncateSync(this.fd, this.currentBytes);
      this.nextSeq = seq;
    } catch {
      closeSync(this.fd);
      this.fd = -1;
    }
  }

  private startSegment(firstSeq: number): void {
    if (this.fd >= 0) {
      closeSync(this.fd);
      // Unset before the open below: if that fails, the next append must not use a closed descriptor.
      this.fd = -1;
    }
    const path = join(this.dir, segmentName(firstSeq));
    this.fd = openSync(path, 'a', PRIVATE_FILE_MODE);
    this.currentBytes = 0;
    // The empty marker segment left by close() (or a replayed newest segment) is reused by name.
    if (this.segments[this.segments.length - 1]?.path !== path) this.segments.push({ path, firstSeq, lastSeq: firstSeq - 1, live: 0 });
  }

  /** Marks the record `seq` as fully sealed; deletes segments whose records all are. */
  release(seq: number): void {
    const segment = this.segments.find((s) => seq >= s.firstSeq && seq <= s.lastSeq);
    if (segment === undefined) return;
    segment.live--;
    this.dropReleasedSegments();
  }

  private dropReleasedSegments(): void {
    // The newest segment always stays: appends go to it, and its name records the next seq.
    for (let i = this.segments.length - 2; i >= 0; i--) {
      const segment = this.segments[i] as Segment;
      if (segment.live > 0) continue;
      if (existsSync(segment.path)) unlinkSync(segment.path);
      this.segments.splice(i, 1);
    }
  }

  /**
   * The lowest seq any segment file on disk may hold: replay reads every record of a surviving
   * segment, released or not, so bookkeeping about older seqs must stay while this is not above it.
   */
  oldestSeqOnDisk(): number {
    return this.segments[0]?.firstSeq ?? this.nextSeq;
  }

  /** Segment files not yet deleted (for stats). */
  segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Flushes to disk and closes the current segment. When every record is released, the newest
   * segment is replaced by an empty one named after the next seq, so a reopen neither rereads
   * released records nor restarts seqs.
   */
  close(): void {
    if (this.fd >= 0) {
      fdatasyncSync(this.fd);
      closeSync(this.fd);
      this.fd = -1;
    }
    this.dropReleasedSegments();
    const newest = this.segments[this.segments.length - 1];
    if (newest !== undefined && newest.live === 0 && newest.firstSeq !== this.nextSeq) {
      const marker = join(this.dir, segmentName(this.nextSeq));
      closeSync(openSync(marker, 'a', PRIVATE_FILE_MODE));
      unlinkSync(newest.path);
      this.segments[this.segments.length - 1] = { path: marker, firstSeq: this.nextSeq, lastSeq: this.nextSeq - 1, live: 0 };
    }
  }
}

function dropBytes(buffers: readonly Uint8Array[], count: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = count;
  for (const b of buffers) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    out.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
}
