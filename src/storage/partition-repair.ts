// Owns `strata check --repair` for partitions: putting damaged files aside, restoring FULL partitions from the write-ahead log, marking rollups for the rollup machinery to rebuild, recording what is lost, adopting unlisted files.
import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEFAULT_RETENTION_MS, finerOf, LAYOUT, RESOLUTIONS, type Resolution, type RollupResolution } from '../model/resolution.js';
import { Catalog, type DamageRow, type DueRow, type PartitionRow } from './catalog.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type Durability } from './open-database.js';
import { CATALOG_FILE, partitionKey, type Finding } from './partition-audit.js';
import { partitionEndOf, partitionRangeText, type DamageReason } from './partition-damage.js';
import { chunkStartsOfKey, PARTITIONS_DIR, partitionPath, seriesOfKey } from './partition-set.js';
import { chunkKeysOf, inspectPartitionFile } from './partition-verify.js';
import { WalLog } from './wal-log.js';

/** Name of the directory under the data directory where repairs put damaged files aside. */
export const QUARANTINE_DIR = 'quarantine';

/** Options of a repair. */
export interface RepairOptions {
  /** Give up on what cannot be restored or rebuilt: clear its mark instead of recording it lost. */
  readonly acceptLoss: boolean;
  /** The time of the repair (names the quarantine directory; decides what has expired). */
  readonly nowMs: number;
  readonly durability: Durability;
}

/**
 * What a repair did to one partition. adopted: an unlisted file was recorded; cleared: a mark was
 * removed from a file that verifies; restoring: the file was put aside and the store re-applies its
 * records from the WAL at its next open; rebuilding: the file was put aside and its rollups are
 * marked due, so the store recomputes them from the level below; lost: it can be neither, and stays
 * marked (queries of it keep failing); loss-accepted: likewise, but --accept-loss cleared the mark.
 */
export type RepairKind = 'adopted' | 'cleared' | 'restoring' | 'rebuilding' | 'lost' | 'loss-accepted';

/** One repair. */
export interface RepairAction {
  readonly kind: RepairKind;
  /** The partition file, relative to the data directory. */
  readonly path: string;
  readonly resolution: Resolution;
  readonly partitionStartMs: number;
  readonly partitionEndMs: number;
  readonly message: string;
  /** Where the damaged file went, relative to the data directory. */
  readonly quarantinedTo?: string;
}

/**
 * True when the store no longer serves `res` data of this partition: the CLI cannot know the
 * retention an embedding application chose, so this is the default retention, the one `strata
 * serve` uses.
 */
function expired(res: Resolution, startMs: number, nowMs: number): boolean {
  return partitionEndOf(res, startMs) <= nowMs - DEFAULT_RETENTION_MS[res];
}

/** Sorted, distinct WAL seqs: does the list hold every seq from `from` to `to`? */
function coversRange(seqs: readonly number[], from: number, to: number): boolean {
  if (to < from) return true;
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((seqs[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return seqs[lo] === from && seqs[lo + (to - from)] === to;
}

/** One repair run over one data directory, with the directory locked by the caller. */
class Repair {
  private readonly dataDir: string;
  private readonly options: RepairOptions;
  private readonly catalog: Catalog;
  private readonly rows: Map<string, PartitionRow>;
  private readonly damaged: Map<string, DamageRow>;
  private readonly sealed: Map<number, number>;
  private gen: number;
  private walSeqs: number[] | undefined;
  readonly actions: RepairAction[] = [];

  constructor(dataDir: string, options: RepairOptions) {
    this.dataDir = dataDir;
    this.options = options;
    // Opening it for writing also brings an older catalog to the current schema.
    this.catalog = new Catalog(join(dataDir, CATALOG_FILE), options.durability);
    this.rows = new Map(this.catalog.loadPartitions().map((r) => [partitionKey(r.res, r.startMs), r]));
    this.damaged = new Map(this.catalog.loadDamaged().map((r) => [partitionKey(r.res, r.startMs), r]));
    this.sealed = this.catalog.loadSealed();
    this.gen = this.catalog.maxDueGen();
  }

  close(): void {
    this.catalog.close();
  }

  private act(kind: RepairKind, res: Resolution, startMs: number, message: string, quarantinedTo?: string): void {
    const path = relative(this.dataDir, partitionPath(this.dataDir, res, startMs));
    const action: RepairAction = { kind, path, resolution: res, partitionStartMs: startMs, partitionEndMs: partitionEndOf(res, startMs), message };
    this.actions.push(quarantinedTo === undefined ? action : { ...action, quarantinedTo });
  }

  /** Records a sound file as it is now: its real chunk count (lower than a stale row's, when chunks went missing), its first seq kept. */
  private recordAsIs(res: Resolution, startMs: number, chunks: number): void {
    const firstSeq = this.rows.get(partitionKey(res, startMs))?.firstSeq ?? null;
    this.forget(res, startMs);
    const row: PartitionRow = { res, startMs, chunks, firstSeq };
    this.catalog.recordPartitions([row]);
    this.rows.set(partitionKey(res, startMs), row);
  }

  private forget(res: Resolution, startMs: number): void {
    this.catalog.forgetPartition(res, startMs);
    this.rows.delete(partitionKey(res, startMs));
    this.damaged.delete(partitionKey(res, startMs));
  }

  private markLost(res: Resolution, startMs: number, detail: string): void {
    const row: DamageRow = { res, startMs, reason: 'lost', detail, detectedMs: this.options.nowMs };
    this.catalog.markDamaged(row);
    this.damaged.set(partitionKey(res, startMs), row);
  }

  /** Moves a partition file and its -wal and -shm under quarantine/<nowMs>/, private; its path there, or undefined when there was no file. */
  private quarantine(res: Resolution, startMs: number): string | undefined {
    const from = partitionPath(this.dataDir, res, startMs);
    const dir = join(this.dataDir, QUARANTINE_DIR, String(this.options.nowMs), PARTITIONS_DIR, res);
    let moved: string | undefined;
    for (const suffix of ['', '-wal', '-shm']) {
      if (!existsSync(from + suffix)) continue;
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const to = join(dir, `${startMs}.sqlite${suffix}`);
      renameSync(from + suffix, to);
      chmodSync(to, PRIVATE_FILE_MODE);
      if (suffix === '') moved = relative(this.dataDir, to);
    }
    return moved;
  }

  /** Every WAL seq on disk, sorted. Reading the log is the replay the store does at open (the directory is locked). */
  private seqsOnDisk(): number[] {
    if (this.walSeqs !== undefined) return this.walSeqs;
    const wal = new WalLog(join(this.dataDir, 'wal'), this.options.durability);
    const seqs: number[] = [];
    try {
      wal.replay((record) => seqs.push(record.seq));
    } finally {
      wal.close();
    }
    this.walSeqs = seqs.sort((a, b) => a - b);
    return this.walSeqs;
  }

  adopt(res: Resolution, startMs: number): void {
    const verification = inspectPartitionFile(partitionPath(this.dataDir, res, startMs), undefined, 'recover');
    if (!verification.ok) return;
    this.recordAsIs(res, startMs, verification.chunks);
    this.act('adopted', res, startMs, `recorded ${partitionRangeText(res, startMs)} with ${verification.chunks} chunks`);
  }

  clear(res: Resolution, startMs: number): void {
    const verification = inspectPartitionFile(partitionPath(this.dataDir, res, startMs), undefined, 'recover');
    if (!verification.ok) return;
    this.recordAsIs(res, startMs, verification.chunks);
    this.act('cleared', res, startMs, `${partitionRangeText(res, startMs)} verifies (${verification.chunks} chunks): its damage mark is cleared`);
  }

  /** Repairs one damaged partition; finer resolutions must come first (a rollup's rebuild depends on its sources). */
  repair(res: Resolution, startMs: number, reason: DamageReason): void {
    if (reason === 'lost') {
      if (!this.options.acceptLoss) return;
      this.catalog.clearDamaged(res, startMs);
      this.damaged.delete(partitionKey(res, startMs));
      if (res !== 'FULL') this.markSourcesDue(res, startMs);
      this.act('loss-accepted', res, startMs, `${partitionRangeText(res, startMs)}: the loss is accepted; queries of it answer what remains`);
      return;
    }
    // A file that only lacks chunks is sound SQLite: keep what it holds, to merge under the restored or rebuilt chunks.
    const keep = reason === 'chunks';
    const quarantinedTo = keep ? undefined : this.quarantine(res, startMs);
    const kept = keep ? inspectPartitionFile(partitionPath(this.dataDir, res, startMs), undefined, 'recover') : undefined;
    if (kept?.ok === true) this.recordAsIs(res, startMs, kept.chunks);
    else this.forget(res, startMs);
    if (res === 'FULL') this.repairFull(startMs, quarantinedTo);
    else this.repairRollup(res, startMs, quarantinedTo);
  }

  /**
   * A FULL partition comes back from the WAL when the log still holds every record from the
   * partition's first sealed seq through the last seq its windows are sealed through: deleting
   * those windows' sealed markers makes the store's next replay re-apply the records into the head,
   * and the seal writes a new file. A missing seq in that range may have held its points, so then
   * it is lost (a failed append burns a seq too, so this errs on the side of "lost").
   */
  private repairFull(startMs: number, quarantinedTo: string | undefined): void {
    const endMs = partitionEndOf('FULL', startMs);
    const throughs = [...this.sealed].filter(([w]) => w >= startMs && w < endMs).map(([, seq]) => seq);
    const firstSeq = this.rows.get(partitionKey('FULL', startMs))?.firstSeq ?? 1;
    const range = partitionRangeText('FULL', startMs);
    if (throughs.length > 0 && coversRange(this.seqsOnDisk(), firstSeq, Math.max(...throughs))) {
      this.catalog.forgetSealedIn(startMs, endMs);
      for (const w of [...this.sealed.keys()]) if (w >= startMs && w < endMs) this.sealed.delete(w);
      this.act('restoring', 'FULL', startMs, `${range}: the write-ahead log holds every record sealed into it (seqs ${firstSeq} to ${Math.max(...throughs)}); the store re-applies them at its next open`, quarantinedTo);
      return;
    }
    const why = throughs.length === 0 ? 'no sealed window of it is recorded any more' : `the write-ahead log no longer holds every record from seq ${firstSeq} on`;
    this.settleLoss('FULL', startMs, `put aside by strata check --repair; ${why}`, quarantinedTo);
  }

  /**
   * A rollup partition is rebuilt by the rollup machinery: every source chunk of the level below in
   * its window is marked due, so the store's scheduler recomputes the target chunks (from nothing,
   * or over what a kept file holds) exactly as they were first computed. The level below must still
   * hold the whole window: not expired, not lost.
   */
  private repairRollup(res: RollupResolution, startMs: number, quarantinedTo: string | undefined): void {
    const source = finerOf(res);
    const range = partitionRangeText(res, startMs);
    const lostSource = this.sourceStarts(res, startMs).find((s) => this.damaged.get(partitionKey(source, s))?.reason === 'lost');
    const gone = expired(source, startMs, this.options.nowMs)
      ? `the ${source} data it was computed from has expired`
      : lostSource !== undefined
        ? `the ${partitionRangeText(source, lostSource)} partition it was computed from is lost`
        : undefined;
    if (gone === undefined) {
      const marked = this.markSourcesDue(res, startMs);
      this.act('rebuilding', res, startMs, `${range}: ${marked} source chunks of ${source} are marked due; the store rebuilds it from them`, quarantinedTo);
      return;
    }
    if (this.options.acceptLoss) this.markSourcesDue(res, startMs);
    this.settleLoss(res, startMs, `put aside by strata check --repair; ${gone}`, quarantinedTo);
  }

  private settleLoss(res: Resolution, startMs: number, detail: string, quarantinedTo: string | undefined): void {
    const range = partitionRangeText(res, startMs);
    if (this.options.acceptLoss || expired(res, startMs, this.options.nowMs)) {
      this.act('loss-accepted', res, startMs, `${range}: ${detail}; the loss is accepted`, quarantinedTo);
      return;
    }
    this.markLost(res, startMs, detail);
    this.act('lost', res, startMs, `${range}: ${detail}; queries of it fail until --repair --accept-loss`, quarantinedTo);
  }

  /** Starts of the partitions of the level below inside a rollup partition (partition windows nest). */
  private sourceStarts(res: RollupResolution, startMs: number): number[] {
    const source = finerOf(res);
    const out: number[] = [];
    for (let s = startMs; s < partitionEndOf(res, startMs); s += LAYOUT[source].partitionWidthMs) out.push(s);
    return out;
  }

  /** Marks every chunk the level below holds in the window due; returns how many. Files put aside mark their own when restored or rebuilt. */
  private markSourcesDue(res: RollupResolution, startMs: number): number {
    const source = finerOf(res);
    const due: DueRow[] = [];
    for (const s of this.sourceStarts(res, startMs)) {
      const path = partitionPath(this.dataDir, source, s);
      if (!existsSync(path) || !inspectPartitionFile(path, undefined, 'recover').ok) continue;
      for (const key of chunkKeysOf(path)) {
        for (const start of chunkStartsOfKey(source, s, key)) due.push({ sourceRes: source, sourceStartMs: start, seriesId: seriesOfKey(key), gen: ++this.gen });
      }
    }
    this.catalog.addDue(due);
    return due.length;
  }
}

/** The damage reason a finding stands for, or undefined when it needs no partition repair. */
function reasonOf(finding: Finding): DamageReason | undefined {
  if (finding.kind === 'partition-damaged') return finding.reason;
  if (finding.kind === 'partition-marked' && finding.verifiesNow !== true) return finding.reason;
  return undefined;
}

/**
 * Repairs what `findings` (an audit of `dataDir` in 'recover' mode, taken with the directory locked) report about
 * partitions, finest resolution first. Nothing is deleted: damaged files are moved under
 * quarantine/. Returns one action per partition touched.
 */
export function repairPartitions(dataDir: string, findings: readonly Finding[], options: RepairOptions): RepairAction[] {
  const repair = new Repair(dataDir, options);
  try {
    const partitionFindings = findings
      .filter((f) => f.resolution !== undefined && f.partitionStartMs !== undefined)
      .sort((a, b) => RESOLUTIONS.indexOf(a.resolution as Resolution) - RESOLUTIONS.indexOf(b.resolution as Resolution) || (a.partitionStartMs as number) - (b.partitionStartMs as number));
    for (const f of partitionFindings) {
      const res = f.resolution as Resolution;
      const startMs = f.partitionStartMs as number;
      if (f.kind === 'partition-unknown') repair.adopt(res, startMs);
      else if (f.kind === 'partition-marked' && f.verifiesNow === true) repair.clear(res, startMs);
      const reason = reasonOf(f);
      if (reason !== undefined) repair.repair(res, startMs, reason);
    }
    return repair.actions;
  } finally {
    repair.close();
  }
}
