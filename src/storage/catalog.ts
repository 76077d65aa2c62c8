// Owns catalog.sqlite: the series registry, sealed-window markers and the on-disk rollup due list.
import type Database from 'better-sqlite3';
import type { Resolution } from '../model/resolution.js';
import { openDatabase, type Durability } from './open-database.js';

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

  constructor(path: string, durability: Durability) {
    this.db = openDatabase(path, { file: 'catalog', durability });
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
   * Records that a FULL window is sealed through `throughSeq` and that its rollups are due, in one
   * transaction: either both are on disk or neither (then the WAL still holds the points).
   */
  commitSeal(windowStartMs: number, throughSeq: number, due: readonly DueRow[]): void {
    this.db.transaction(() => {
      this.upsertSealed.run(windowStartMs, throughSeq);
      for (const d of due) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
    })();
  }

  /** Finishes a rollup task: records the next level's due entries and clears the ones it consumed. */
  commitRollup(added: readonly DueRow[], consumed: readonly DueRow[]): void {
    this.db.transaction(() => {
      for (const d of added) this.upsertDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
      for (const d of consumed) this.deleteDue.run(d.sourceRes, d.sourceStartMs, d.seriesId, d.gen);
    })();
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
