// Owns catalog.sqlite: the series registry, sealed-window markers, the on-disk rollup due list, and the partition files with their chunk counts and damage.
import type Database from 'better-sqlite3';
import { isResolution, type Resolution } from '../model/resolution.js';
import { openDatabase, type Durability } from './open-database.js';
import { DAMAGE_REASONS, type DamageReason, type PartitionDamage } from './partition-damage.js';

/** A registered series. */
export interface SeriesRow {
  readonly id: number;
  readonly tenant: string;
  readonly metric: string;
  readonly unit: string | null;
}

/** One due rollup entry: the chunk of `seriesId` at `sourceStartMs` of `sourceRes` changed. */
export interface DueRow {
  readonly sourceRes: Resolution;
  readonly sourceStartMs: number;
  readonly seriesId: number;
  readonly gen: number;
}

/** One partition file the catalog says must exist, and what it held at its last recorded write. */
export interface PartitionRow {
  readonly res: Resolution;
  readonly startMs: number;
  /** Chunks the file held at its last recorded write; it may hold more (a later write whose record a crash lost), never fewer. */
  readonly chunks: number;
  /** Lowest WAL seq sealed into the file (FULL only); null when unknown or for rollups. */
  readonly firstSeq: number | null;
}

/** A damaged partition as recorded, with when it was found. */
export interface DamageRow extends PartitionDamage {
  readonly detectedMs: number;
}

/** catalog.sqlite, written only by the thread that owns the store. */
export class Catalog {
  private readonly db: Database.Database;
  private readonly insertSeries: Database.Statement;
  private readonly updateUnit: Database.Statement;
  private readonly upsertSealed: Database.Statement;
  private readonly upsertDue: Database.Statement;
  private readonly deleteDue: Database.Statement;
  private readonly forgetSealed: Database.Statement;
  private readonly forgetDue: Database.Statement;
  private readonly upsertPartition: Database.Statement;
  private readonly deletePartition: Database.Statement;
  private readonly upsertDamage: Database.Statement;
  private readonly deleteDamage: Database.Statement;

  constructor(path: string, durability: Durability) {
    this.db = openDatabase(path, { file: 'catalog', durability });
    // Counts only grow (max), and an unknown first seq stays unknown: a file adopted from an older
    // data directory may hold points of records older than any seal recorded since.
    this.upsertPartition = this.db.prepare(
      `INSERT INTO partition_file (res, start_ms, chunks, first_seq) VALUES (?, ?, ?, ?)
       ON CONFLICT (res, start_ms) DO UPDATE SET chunks = max(chunks, excluded.chunks),
         first_seq = CASE WHEN first_seq IS NULL OR excluded.first_seq IS NULL THEN NULL ELSE min(first_seq, excluded.first_seq) END`,
    );
    this.deletePartition = this.db.prepare('DELETE FROM partition_file WHERE res = ? AND start_ms = ?');
    this.upsertDamage = this.db.prepare(
      'INSERT INTO damaged_partition (res, start_ms, reason, detail, detected_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (res, start_ms) DO UPDATE SET reason = excluded.reason, detail = excluded.detail, detected_ms = excluded.detected_ms',
    );
    this.deleteDamage = this.db.prepare('DELETE FROM damaged_partition WHERE res = ? AND start_ms = ?');
    this.insertSeries = this.db.prepare('INSERT INTO series (id, tenant, metric, unit) VALUES (?, ?, ?, ?)');
    this.updateUnit = this.db.prepare('UPDATE series SET unit = ? WHERE id = ?');
    this.upsertSealed = this.db.prepare(
      'INSERT INTO sealed (window_start_ms, through_seq) VALUES (?, ?) ON CONFLICT (window_start_ms) DO UPDATE SET through_seq = excluded.through_seq',
    );
    this.upsertDue = this.db.prepare(
      'INSERT INTO rollup_due (source_res, source_start_ms, series_id, gen) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET gen = excluded.gen',
    );
    this.deleteDue = this.db.prepare('DELETE FROM rollup_due WHERE source_res = ? AND source_start_ms = ? AND series_id = ? AND gen = ?');
    this.forgetSealed = this.db.prepare('DELETE FROM sealed WHERE window_start_ms < ? AND through_seq < ?');
    this.forgetDue = this.db.prepare('DELETE FROM rollup_due WHERE source_res = ? AND source_start_ms < ?');
  }

  /** Every registered series. */
  loadSeries(): SeriesRow[] {
    return this.db.prepare('SELECT id, tenant, metric, unit FROM series ORDER BY id').all() as SeriesRow[];
  }

  /** Registers new series and unit changes in one transaction. */
  saveSeries(added: readonly SeriesRow[], unitChanges: readonly SeriesRow[]): void {
    this.db.transaction(() => {
      for (const s of added) this.insertSeries.run(s.id, s.tenant, s.metric, s.unit);
      for (const s of unitChanges) this.updateUnit.run(s.unit, s.id);
    })();
  }

  /** Sealed markers: window start -> WAL seq through which the window is sealed. */
  loadSealed(): Map<number, number> {
    const rows = this.db.prepare('SELECT window_start_ms AS w, through_seq AS s FROM sealed').all() as { w: number; s: number }[];
    return new Map(rows.map((r) => [r.w, r.s]));
  }

  /** Every due rollup entry. */
  loadDue(): DueRow[] {
    return this.db
      .prepare('SELECT source_res AS sourceRes, source_start_ms AS sourceStartMs, series_id AS seriesId, gen FROM rollup_due')
      .all() as DueRow[];
  }

  /**
   * Records that a FULL window is sealed through `throughSeq`, that its rollups are due and what
   * its partition file now holds (`written`), in one transaction: either all are on disk or none
   * (then the WAL still holds the points, and the file at least what this records).
   */
  commitSeal(windowStartMs: number, throughSeq: number, due: readonly DueRow[], written?: PartitionRow): void {
    this.db.transaction(() => {
      this.upsertSealed.run(windowStartMs, throughSeq);
      for (const d of due) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
      if (written !== undefined) this.putPartition(written);
    })();
  }

  /**
   * Records one step of a seal: the rollups its chunks made due and what the partition file holds
   * now. The sealed marker comes after the last step (commitSeal).
   */
  commitSealStep(due: readonly DueRow[], written: PartitionRow): void {
    this.db.transaction(() => {
      for (const d of due) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
      this.putPartition(written);
    })();
  }

  /** Finishes a rollup task: records the next level's due entries, clears the ones it consumed, and what the target file now holds. */
  commitRollup(added: readonly DueRow[], consumed: readonly DueRow[], written?: PartitionRow): void {
    this.db.transaction(() => {
      for (const d of added) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
      for (const d of consumed) this.deleteDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
      if (written !== undefined) this.putPartition(written);
    })();
  }

  private putPartition(row: PartitionRow): void {
    this.upsertPartition.run(row.res, row.startMs, row.chunks, row.firstSeq);
  }

  /**
   * Sets a partition's chunk count to exactly `chunks`, lower than before: compaction records the
   * count of the file that is about to replace the old one, before the swap, so that the file on
   * disk always holds at least what the catalog says.
   */
  lowerPartitionCount(res: Resolution, startMs: number, chunks: number): void {
    this.db.prepare('UPDATE partition_file SET chunks = min(chunks, ?) WHERE res = ? AND start_ms = ?').run(chunks, res, startMs);
  }

  /** Every partition file the catalog says must exist. */
  loadPartitions(): PartitionRow[] {
    const rows = this.db.prepare('SELECT res, start_ms AS startMs, chunks, first_seq AS firstSeq FROM partition_file ORDER BY res, start_ms').all() as PartitionRow[];
    return rows.filter((r) => isResolution(r.res));
  }

  /** Records partition files (adopted ones found on disk, or counts learnt), in one transaction. */
  recordPartitions(rows: readonly PartitionRow[]): void {
    this.db.transaction(() => {
      for (const row of rows) this.putPartition(row);
    })();
  }

  /** Every partition recorded as damaged or lost. */
  loadDamaged(): DamageRow[] {
    const rows = this.db.prepare('SELECT res, start_ms AS startMs, reason, detail, detected_ms AS detectedMs FROM damaged_partition ORDER BY res, start_ms').all() as DamageRow[];
    return rows.filter((r) => isResolution(r.res) && DAMAGE_REASONS.includes(r.reason as DamageReason));
  }

  /** Records a partition as damaged (or lost), replacing an earlier record of it. */
  markDamaged(row: DamageRow): void {
    this.upsertDamage.run(row.res, row.startMs, row.reason, row.detail, row.detectedMs);
  }

  /** Clears a partition's damage record (it was repaired, or its loss accepted). */
  clearDamaged(res: Resolution, startMs: number): void {
    this.deleteDamage.run(res, startMs);
  }

  /** Forgets a partition altogether: its file row and any damage record (retention dropped it, or a repair put it aside). */
  forgetPartition(res: Resolution, startMs: number): void {
    this.db.transaction(() => {
      this.deletePartition.run(res, startMs);
      this.deleteDamage.run(res, startMs);
    })();
  }

  /** Deletes the sealed markers of FULL windows in [fromMs, toMs), so a replay re-applies their records (a repair restoring them). */
  forgetSealedIn(fromMs: number, toMs: number): void {
    this.db.prepare('DELETE FROM sealed WHERE window_start_ms >= ? AND window_start_ms < ?').run(fromMs, toMs);
  }

  /** Records due rollup work (a repair marking the sources of a rebuilt partition). */
  addDue(rows: readonly DueRow[]): void {
    this.db.transaction(() => {
      for (const d of rows) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
    })();
  }

  /** The highest generation of any due row, 0 when none. */
  maxDueGen(): number {
    return (this.db.prepare('SELECT coalesce(max(gen), 0) FROM rollup_due').pluck().get() as number) ?? 0;
  }

  /**
   * Forgets due entries of source windows that start before their resolution's bound, and sealed
   * markers of FULL windows before `fullBeforeMs` whose seq is below `seqBelow` (the oldest WAL
   * record still live): a marker must outlive every record it makes replay skip.
   */
  forgetBefore(fullBeforeMs: number, seqBelow: number, dueBefore: ReadonlyMap<Resolution, number>): void {
    this.db.transaction(() => {
      this.forgetSealed.run(fullBeforeMs, seqBelow);
      for (const [res, before] of dueBefore) this.forgetDue.run(res, before);
    })();
  }

  /** Closes the file. */
  close(): void {
    this.db.close();
  }
}
