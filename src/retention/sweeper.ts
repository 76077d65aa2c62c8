// Owns the retention sweeper: deleting partition files whose whole window has expired.
import { LAYOUT, RESOLUTIONS, type Resolution, type RetentionTable } from '../model/resolution.js';
import type { PartitionSet } from '../storage/partition-set.js';
import { expiryCutoffMs } from './policy.js';

/** What a sweep needs; store.ts wires it. */
export interface SweepDeps {
  readonly nowMs: number;
  readonly retention: RetentionTable;
  readonly partitions: PartitionSet;
  /** True while a rollup task may read that file: it is kept until the next sweep. */
  readonly isReading: (res: Resolution, partitionStartMs: number) => boolean;
  readonly onDropped: (res: Resolution, partitionStartMs: number, partitionEndMs: number) => void;
  /** Forgets bookkeeping of expired windows: sealed markers before fullBeforeMs, due work before each start. */
  readonly forget: (fullBeforeMs: number, dueBefore: ReadonlyMap<Resolution, number>) => void;
}

/**
 * Drops every partition file whose window ends at or before its resolution's expiry cutoff.
 * Queries never see a file disappear under them: they run synchronously on the same thread as the
 * sweep, and they never serve data older than the cutoff anyway (the planner cuts the range).
 * Returns how many files were dropped.
 */
export function sweepExpired(deps: SweepDeps): number {
  let dropped = 0;
  const dueBefore = new Map<Resolution, number>();
  for (const res of RESOLUTIONS) {
    const cutoff = expiryCutoffMs(deps.nowMs, deps.retention, res);
    const { partitionWidthMs, chunkWidthMs } = LAYOUT[res];
    // A due entry whose source chunk ends before the cutoff can never change a served bucket.
    dueBefore.set(res, cutoff - chunkWidthMs + 1);
    for (const start of deps.partitions.starts(res)) {
      if (start + partitionWidthMs > cutoff) break;
      if (deps.isReading(res, start)) continue;
      deps.partitions.drop(res, start);
      deps.onDropped(res, start, start + partitionWidthMs);
      dropped++;
    }
  }
  if (dropped > 0) deps.forget(expiryCutoffMs(deps.nowMs, deps.retention, 'FULL') - LAYOUT.FULL.chunkWidthMs + 1, dueBefore);
  return dropped;
}
