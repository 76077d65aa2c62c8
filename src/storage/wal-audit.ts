// Owns what `strata check` finds and repairs in the write-ahead log: corrupt spans and the copies of damaged segments kept for inspection.
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type Durability } from './open-database.js';
import type { Finding } from './partition-audit.js';
import { QUARANTINE_DIR } from './partition-repair.js';
import { WalLog } from './wal-log.js';
import { DAMAGED_DIR_NAME, scanWal } from './wal-scan.js';

/** The write-ahead log's directory inside a data directory. */
export const WAL_DIR_NAME = 'wal';

/**
 * Findings of kind 'wal', from a scan that changes nothing: one per corrupt span (records in it
 * were acknowledged and are lost; the next open replays around it), and one while copies of damaged
 * segments stay under wal/damaged/ (the store reads 'degraded' until they are moved away).
 */
export function auditWal(dataDir: string): Finding[] {
  const report = scanWal(join(dataDir, WAL_DIR_NAME));
  const findings: Finding[] = report.damage.map((span) => ({
    kind: 'wal',
    path: `${WAL_DIR_NAME}/${span.segment}`,
    message: `corrupt span at bytes ${span.startOffset} to ${span.endOffset} (${span.bytes} bytes): the records in it are lost; the next open replays every intact record around it and keeps a copy of the segment in ${WAL_DIR_NAME}/${DAMAGED_DIR_NAME}/`,
  }));
  const unlisted = report.corruptSpans - report.damage.length;
  if (unlisted > 0) findings.push({ kind: 'wal', path: WAL_DIR_NAME, message: `${unlisted} more corrupt spans are not listed` });
  if (report.damagedCopies > 0) {
    findings.push({
      kind: 'wal',
      path: `${WAL_DIR_NAME}/${DAMAGED_DIR_NAME}`,
      message: `${report.damagedCopies} copies of damaged segments are kept for inspection; move them away once inspected (or repair with --accept-loss)`,
    });
  }
  return findings;
}

/** What a WAL repair did, for the check report. */
export interface WalRepair {
  /** Corrupt spans the replay stepped over (the segments were copied aside and rewritten). */
  readonly spansRemoved: number;
  /** Copies of damaged segments moved under quarantine/<nowMs>/wal/ (with --accept-loss). */
  readonly copiesMoved: number;
}

/**
 * Repairs the log of a locked data directory: a replay (the one the store does at open) steps over
 * corrupt spans, copies each damaged segment to wal/damaged/ and rewrites it with its intact
 * records only. With `acceptLoss`, the copies then move under quarantine/<nowMs>/wal/, which
 * acknowledges the loss: the store stops reporting it.
 */
export function repairWal(dataDir: string, options: { readonly acceptLoss: boolean; readonly nowMs: number; readonly durability: Durability }): WalRepair {
  const walDir = join(dataDir, WAL_DIR_NAME);
  let spansRemoved = 0;
  if (scanWal(walDir).corruptSpans > 0) {
    const wal = new WalLog(walDir, options.durability);
    spansRemoved = wal.replay(() => undefined).corruptSpans;
    wal.close();
  }
  let copiesMoved = 0;
  const damagedDir = join(walDir, DAMAGED_DIR_NAME);
  if (options.acceptLoss && existsSync(damagedDir)) {
    const to = join(dataDir, QUARANTINE_DIR, String(options.nowMs), WAL_DIR_NAME);
    for (const name of readdirSync(damagedDir)) {
      mkdirSync(to, { recursive: true, mode: PRIVATE_DIR_MODE });
      renameSync(join(damagedDir, name), join(to, name));
      chmodSync(join(to, name), PRIVATE_FILE_MODE);
      copiesMoved++;
    }
  }
  return { spansRemoved, copiesMoved };
}
