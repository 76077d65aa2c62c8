// Owns the rules of a write batch as a whole, the same for every backend: its size, and what a batch with rejected points does.
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import type { PointRejection, WriteResult } from '../store-types.js';

/** Throws INGEST_BATCH_TOO_LARGE when a batch holds more than INGEST_BATCH_POINTS_MAX points. */
export function checkBatchSize(size: number): void {
  if (size > INGEST_BATCH_POINTS_MAX) {
    throw new StrataError('INGEST_BATCH_TOO_LARGE', `a batch holds at most ${INGEST_BATCH_POINTS_MAX} points; this one holds ${size}`, {
      limit: INGEST_BATCH_POINTS_MAX,
      size,
    });
  }
}

/** True when nothing of a validated batch is written: every point was bad, or the write is atomic and some point was. */
export function batchRefused(rejectedCount: number, acceptedCount: number, atomic: boolean | undefined): boolean {
  return rejectedCount > 0 && (atomic === true || acceptedCount === 0);
}

/** The answer to a refused batch: INGEST_POINTS_REJECTED thrown for an atomic write, else the rejections with nothing accepted. */
export function refusal(rejected: readonly PointRejection[], size: number, atomic: boolean | undefined): WriteResult {
  if (atomic === true) {
    throw new StrataError('INGEST_POINTS_REJECTED', `${rejected.length} of ${size} points were rejected; nothing was written`, { rejected });
  }
  return { accepted: 0, rejected };
}
