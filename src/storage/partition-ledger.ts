// Owns the store's knowledge of its partition files: which must exist and with how many chunks, which were verified this process, which are damaged; the cheap check at open and the adoption of files the catalog does not list.
import type { Clock } from '../core/clock.js';
import { RESOLUTIONS, type Resolution } from '../model/resolution.js';
import type { StoreLogger } from '../store-types.js';
import type { Catalog, DamageRow, PartitionRow } from './catalog.js';
import { partitionEndOf, relativeFault, type PartitionDamage } from './partition-damage.js';
import { checkPartitionHeader } from './partition-header.js';
import { partitionFilesOf, partitionPath, type PartitionState, type PartitionWatch } from './partition-set.js';
import { inspectPartitionFile } from './partition-verify.js';

/** What a thread that opens a partition is told about it (structured-clone friendly, for rollup tasks). */
export interface PartitionNote {
  readonly res: Resolution;
  readonly startMs: number;
  /** Chunks recorded (exact when verified), or undefined when nothing says the file must exist. */
  readonly chunks: number | undefined;
  readonly verified: boolean;
}

/** A chunk count some thread observed: right after it verified the file, or after it wrote it. */
export interface PartitionCount {
  readonly res: Resolution;
  readonly startMs: number;
  readonly chunks: number;
}

/** What the ledger needs; store.ts wires it. */
export interface LedgerDeps {
  readonly dataDir: string;
  readonly catalog: Catalog;
  readonly clock: Clock;
  readonly logger: StoreLogger;
  /** Called once per newly found damage, after it is recorded (the store forgets cached chunks of it). */
  readonly onDamaged?: (damage: PartitionDamage) => void;
}

/** What the open check did. */
export interface LedgerOpenReport {
  /** Files found on disk that the catalog did not list, now recorded with their chunk counts. */
  readonly adopted: number;
  /** Partitions found damaged now or recorded as damaged before. */
  readonly damaged: number;
}

interface Entry {
  chunks: number | undefined;
  verified: boolean;
}

function keyOf(res: Resolution, startMs: number): string {
  return `${res}:${startMs}`;
}

/**
 * The main thread's ledger of partition files, mirrored in catalog.sqlite (partition_file,
 * damaged_partition). It is the PartitionSet watch of the store: it says what each file must hold
 * and learns what opening it found. Chunk counts only grow here: every count reported is what a
 * file held at some moment, and files only gain chunks until retention deletes them.
 */
export class PartitionLedger implements PartitionWatch {
  private readonly deps: LedgerDeps;
  private readonly entries = new Map<string, Entry>();
  private readonly damage = new Map<string, DamageRow>();

  constructor(deps: LedgerDeps) {
    this.deps = deps;
  }

  /**
   * The check at store open, cheap for files the catalog lists: a stat and a 100-byte header read
   * each (no quick_check; that comes on first use). Files the catalog does not list (a data
   * directory written before the catalog kept this list, or a write whose catalog commit a crash
   * lost) are verified in full once and recorded. Damage recorded earlier is logged again, once.
   */
  open(): LedgerOpenReport {
    const { catalog, dataDir, logger } = this.deps;
    for (const row of catalog.loadPartitions()) this.entries.set(keyOf(row.res, row.startMs), { chunks: row.chunks, verified: false });
    for (const row of catalog.loadDamaged()) {
      this.damage.set(keyOf(row.res, row.startMs), row);
      logger.error(this.logFields(row), 'a partition recorded as damaged is still unavailable');
    }
    for (const [key, entry] of this.entries) {
      if (this.damage.has(key) || entry.chunks === undefined) continue;
      const [res, start] = key.split(':') as [Resolution, string];
      const fault = checkPartitionHeader(partitionPath(dataDir, res, Number(start)));
      if (fault === undefined) continue;
      // A file recorded empty holds nothing that could be missing: gone, it is forgotten; empty, it is what it was.
      if (fault.reason === 'missing' && entry.chunks === 0) this.forget(res, Number(start));
      else if (!(fault.reason === 'empty' && entry.chunks === 0)) this.damaged({ res, startMs: Number(start), ...fault });
    }
    const adopted: PartitionRow[] = [];
    for (const res of RESOLUTIONS) {
      for (const startMs of partitionFilesOf(dataDir, res)) {
        const key = keyOf(res, startMs);
        if (this.entries.has(key) || this.damage.has(key)) continue;
        const row = this.adopt(res, startMs);
        if (row !== undefined) adopted.push(row);
      }
    }
    catalog.recordPartitions(adopted);
    if (adopted.length > 0) logger.info({ files: adopted.length }, 'recorded partition files the catalog did not list');
    return { adopted: adopted.length, damaged: this.damage.size };
  }

  /** Verifies a file the catalog does not list; its row when sound, undefined when it is damaged (then recorded so). */
  private adopt(res: Resolution, startMs: number): PartitionRow | undefined {
    // A writer's connection: the store holds the directory, and SQLite may have to recover a file a
    // crash left mid-write (a hot journal, a WAL) before anyone can read it.
    const verification = inspectPartitionFile(partitionPath(this.deps.dataDir, res, startMs), undefined, 'recover');
    if (!verification.ok) {
      this.damaged({ res, startMs, ...verification.fault });
      return undefined;
    }
    this.entries.set(keyOf(res, startMs), { chunks: verification.chunks, verified: true });
    // The lowest seq sealed into an adopted file is unknown: a restore from the WAL must then find every record.
    return { res, startMs, chunks: verification.chunks, firstSeq: null };
  }

  /** Every partition the ledger knows of, damaged ones included (the sweeper must see them expire). */
  known(): { res: Resolution; startMs: number }[] {
    const out = new Map<string, { res: Resolution; startMs: number }>();
    for (const key of [...this.entries.keys(), ...this.damage.keys()]) {
      const [res, start] = key.split(':') as [Resolution, string];
      out.set(key, { res, startMs: Number(start) });
    }
    return [...out.values()];
  }

  /** PartitionWatch: what a file must hold, whether it was verified, whether it is damaged. */
  state(res: Resolution, startMs: number): PartitionState {
    const key = keyOf(res, startMs);
    const entry = this.entries.get(key);
    return { chunks: entry?.chunks, verified: entry?.verified ?? false, damage: this.damage.get(key) };
  }

  /** PartitionWatch: a file was verified (or created, or written) and holds `chunks`. */
  verified(res: Resolution, startMs: number, chunks: number): void {
    this.learn([{ res, startMs, chunks }]);
  }

  /** Records counts other threads observed (a rollup task's verifications and its write); the file was verified. */
  learn(counts: readonly PartitionCount[]): void {
    for (const { res, startMs, chunks } of counts) {
      const key = keyOf(res, startMs);
      const entry = this.entries.get(key);
      if (entry === undefined) this.entries.set(key, { chunks, verified: true });
      else {
        entry.chunks = Math.max(entry.chunks ?? 0, chunks);
        entry.verified = true;
      }
    }
  }

  /**
   * Compaction is replacing a file by one holding exactly `chunks` (fewer): the one place a count
   * goes down. Recorded in the catalog first, so a crash before the swap leaves the old, larger
   * file over a lower count, which is sound.
   */
  lowered(res: Resolution, startMs: number, chunks: number): void {
    this.deps.catalog.lowerPartitionCount(res, startMs, chunks);
    this.entries.set(keyOf(res, startMs), { chunks, verified: true });
  }

  /** PartitionWatch: a file was found damaged. Recorded in memory and in the catalog, and logged, once. */
  damaged(found: PartitionDamage): void {
    const key = keyOf(found.res, found.startMs);
    if (this.damage.has(key)) return;
    const { detail } = relativeFault(found, this.deps.dataDir);
    const row: DamageRow = { res: found.res, startMs: found.startMs, reason: found.reason, detail, detectedMs: this.deps.clock.now() };
    this.damage.set(key, row);
    this.deps.catalog.markDamaged(row);
    this.deps.logger.error(this.logFields(row), 'partition damaged: queries that need it fail until `strata check --repair`');
    this.deps.onDamaged?.(row);
  }

  private logFields(row: PartitionDamage): object {
    return { resolution: row.res, partitionStartMs: row.startMs, partitionEndMs: partitionEndOf(row.res, row.startMs), reason: row.reason, detail: row.detail };
  }

  /** The damage of a partition, or undefined when it is usable. */
  damageOf(res: Resolution, startMs: number): PartitionDamage | undefined {
    return this.damage.get(keyOf(res, startMs));
  }

  /** How many partitions are damaged (cheap: the scheduler asks every second). */
  get damagedCount(): number {
    return this.damage.size;
  }

  /** Every damaged partition, by resolution then start. */
  damages(): DamageRow[] {
    return [...this.damage.values()].sort((a, b) => RESOLUTIONS.indexOf(a.res) - RESOLUTIONS.indexOf(b.res) || a.startMs - b.startMs);
  }

  /** What a rollup task is told about a partition it will open. */
  note(res: Resolution, startMs: number): PartitionNote {
    const entry = this.entries.get(keyOf(res, startMs));
    return { res, startMs, chunks: entry?.chunks, verified: entry?.verified ?? false };
  }

  /** Forgets a partition retention dropped: its counts, its damage, and both catalog rows. */
  forget(res: Resolution, startMs: number): void {
    const key = keyOf(res, startMs);
    this.entries.delete(key);
    this.damage.delete(key);
    this.deps.catalog.forgetPartition(res, startMs);
  }
}
