// Owns the read-only audit of a data directory's partition files against catalog.sqlite, for `strata check`: missing and damaged files, recorded damage, files the catalog does not list.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type Database from 'better-sqlite3';
import { RESOLUTIONS, type Resolution } from '../model/resolution.js';
import type { DamageRow, PartitionRow } from './catalog.js';
import { openDatabase } from './open-database.js';
import { partitionEndOf, partitionRangeText, relativeFault, type DamageReason } from './partition-damage.js';
import { partitionFilesOf, partitionPath } from './partition-set.js';
import { inspectPartitionFile, type InspectMode } from './partition-verify.js';

/** Name of the catalog file in a data directory. */
export const CATALOG_FILE = 'catalog.sqlite';

/**
 * What an audit found. partition-damaged: a file the catalog lists is missing or fails
 * verification (or an unlisted file fails it); partition-marked: the catalog records a partition as
 * damaged or lost; partition-unknown: a sound file the catalog does not list; partition-unverified:
 * a file a read-only check cannot read until SQLite recovers it (a crash left it mid-write; opening
 * the store or a repair does that); catalog-outdated: the
 * catalog predates the list of partition files; mode: a file or directory others may read; wal:
 * damage in the write-ahead log.
 */
export type FindingKind = 'partition-damaged' | 'partition-marked' | 'partition-unknown' | 'partition-unverified' | 'catalog-outdated' | 'mode' | 'wal';

/** One finding; the partition fields are set for partition findings, `mode` for mode findings. */
export interface Finding {
  readonly kind: FindingKind;
  /** The path the finding is about, relative to the data directory. */
  readonly path: string;
  readonly message: string;
  readonly resolution?: Resolution;
  readonly partitionStartMs?: number;
  readonly partitionEndMs?: number;
  readonly reason?: DamageReason;
  /** For partition-marked: true when the file now verifies (a repair clears the mark). */
  readonly verifiesNow?: boolean;
  /** For mode findings: the mode found, in octal (`644`). */
  readonly mode?: string;
}

/** The catalog's records about partitions, read without writing anything. */
export interface CatalogSnapshot {
  /** False when the catalog predates partition_file and damaged_partition (schema version 1). */
  readonly listsPartitions: boolean;
  readonly partitions: ReadonlyMap<string, PartitionRow>;
  readonly damaged: ReadonlyMap<string, DamageRow>;
}

/** Key of a partition in snapshot maps. */
export function partitionKey(res: Resolution, startMs: number): string {
  return `${res}:${startMs}`;
}

function hasTables(db: Database.Database): boolean {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('partition_file', 'damaged_partition')").pluck().all();
  return names.length === 2;
}

/** Reads the catalog's partition records through a read-only connection (the server may be running). */
export function readCatalogSnapshot(dataDir: string): CatalogSnapshot {
  const db = openDatabase(join(dataDir, CATALOG_FILE), { file: 'catalog', durability: 'normal', readonly: true });
  try {
    if (!hasTables(db)) return { listsPartitions: false, partitions: new Map(), damaged: new Map() };
    const rows = db.prepare('SELECT res, start_ms AS startMs, chunks, first_seq AS firstSeq FROM partition_file').all() as PartitionRow[];
    const damaged = db.prepare('SELECT res, start_ms AS startMs, reason, detail, detected_ms AS detectedMs FROM damaged_partition').all() as DamageRow[];
    return {
      listsPartitions: true,
      partitions: new Map(rows.map((r) => [partitionKey(r.res, r.startMs), r])),
      damaged: new Map(damaged.map((r) => [partitionKey(r.res, r.startMs), r])),
    };
  } finally {
    db.close();
  }
}

function partitionFinding(dataDir: string, kind: FindingKind, res: Resolution, startMs: number, message: string, reason?: DamageReason): Finding {
  return {
    kind,
    path: relative(dataDir, partitionPath(dataDir, res, startMs)),
    message,
    resolution: res,
    partitionStartMs: startMs,
    partitionEndMs: partitionEndOf(res, startMs),
    ...(reason === undefined ? {} : { reason }),
  };
}

/** Findings about partitions the catalog records as damaged or lost. */
function markedFindings(dataDir: string, snapshot: CatalogSnapshot, mode: InspectMode): Finding[] {
  const out: Finding[] = [];
  for (const row of snapshot.damaged.values()) {
    const path = partitionPath(dataDir, row.res, row.startMs);
    const verifiesNow = row.reason !== 'lost' && existsSync(path) && inspectPartitionFile(path, snapshot.partitions.get(partitionKey(row.res, row.startMs))?.chunks, mode).ok === true;
    const now = verifiesNow ? '; the file verifies now' : '';
    out.push({ ...partitionFinding(dataDir, 'partition-marked', row.res, row.startMs, `${partitionRangeText(row.res, row.startMs)} is recorded as ${row.reason}: ${row.detail}${now}`, row.reason), verifiesNow });
  }
  return out;
}

/**
 * Audits every partition file of `dataDir` against its catalog (each file it verifies is read in
 * full by quick_check). 'read-only' writes nothing, for a directory a server may be using;
 * 'recover' lets SQLite recover files a crash left mid-write, for a directory the caller has
 * locked (a repair). With a server running,
 * files change under the audit: a rollup worker writes a file before the catalog lists it, the
 * sweeper deletes a file and then its row. So findings that such a race could explain (a missing
 * file, an unlisted one) are confirmed against a second reading of the catalog; a chunk count is
 * always read after the catalog's, and counts only grow, so it cannot race.
 */
export function auditPartitions(dataDir: string, mode: InspectMode = 'read-only'): Finding[] {
  const snapshot = readCatalogSnapshot(dataDir);
  const findings: Finding[] = [];
  if (!snapshot.listsPartitions) {
    findings.push({
      kind: 'catalog-outdated',
      path: CATALOG_FILE,
      message: 'the catalog predates the list of partition files (schema version 1): opening the store, or strata check --repair, records the files found',
    });
  }
  for (const row of snapshot.partitions.values()) {
    if (snapshot.damaged.has(partitionKey(row.res, row.startMs))) continue;
    const verification = inspectPartitionFile(partitionPath(dataDir, row.res, row.startMs), row.chunks, mode);
    if (verification.ok === true) continue;
    if (verification.ok === 'recovery') {
      findings.push(partitionFinding(dataDir, 'partition-unverified', row.res, row.startMs, `${partitionRangeText(row.res, row.startMs)}: ${relativeFault({ reason: 'corrupt', detail: verification.detail }, dataDir).detail}`));
      continue;
    }
    const { reason, detail } = relativeFault(verification.fault, dataDir);
    findings.push(partitionFinding(dataDir, 'partition-damaged', row.res, row.startMs, `${partitionRangeText(row.res, row.startMs)}: ${reason}: ${detail}`, reason));
  }
  findings.push(...markedFindings(dataDir, snapshot, mode));
  for (const res of RESOLUTIONS) {
    for (const startMs of partitionFilesOf(dataDir, res)) {
      const key = partitionKey(res, startMs);
      if (snapshot.partitions.has(key) || snapshot.damaged.has(key)) continue;
      const verification = inspectPartitionFile(partitionPath(dataDir, res, startMs), undefined, mode);
      const range = partitionRangeText(res, startMs);
      // (An unlisted empty file counts as sound: a crash between creating it and SQLite's first
      // write, or a file being created right now, holds nothing that could be missing.)
      if (verification.ok === true) {
        findings.push(partitionFinding(dataDir, 'partition-unknown', res, startMs, `${range}: the catalog does not list this file (${verification.chunks} chunks); opening the store or --repair records it`));
      } else if (verification.ok === 'recovery') {
        findings.push(partitionFinding(dataDir, 'partition-unverified', res, startMs, `${range}: ${relativeFault({ reason: 'corrupt', detail: verification.detail }, dataDir).detail}`));
      } else {
        const { reason, detail } = relativeFault(verification.fault, dataDir);
        findings.push(partitionFinding(dataDir, 'partition-damaged', res, startMs, `${range}: not listed by the catalog, and ${reason}: ${detail}`, reason));
      }
    }
  }
  return confirm(dataDir, findings);
}

/** Drops findings a second reading of the catalog explains as a race with a running server. */
function confirm(dataDir: string, findings: Finding[]): Finding[] {
  const racy = findings.some((f) => f.kind === 'partition-unknown' || f.reason === 'missing');
  if (!racy) return findings;
  const again = readCatalogSnapshot(dataDir);
  return findings.filter((f) => {
    if (f.resolution === undefined || f.partitionStartMs === undefined) return true;
    const key = partitionKey(f.resolution, f.partitionStartMs);
    // Listed by now: a worker's write whose catalog commit came after the first reading.
    if (f.kind === 'partition-unknown') return !again.partitions.has(key);
    // No longer listed: retention dropped the file and then its row.
    if (f.kind === 'partition-damaged' && f.reason === 'missing') return again.partitions.has(key) || again.damaged.has(key);
    return true;
  });
}
