// Owns writing a decoded protocol batch to the store and folding the store's rejections back into the batch.
import type { ErrorCode } from '../core/errors.js';
import type { Store } from '../store-types.js';
import type { ProtocolBatch } from '../wire/protocol-batch.js';

/**
 * Writes the batch's points and resolves with how many are durable. Points the store refuses (too
 * old, too far ahead, a name too long) are added to the batch's rejections under their metric's
 * name, so the batch then counts every refused point, the decoder's and the store's. Store errors
 * (STORE_NOT_DURABLE, INGEST_HEAD_FULL) are thrown: nothing of the batch was accepted.
 */
export async function writeProtocolBatch(store: Store, batch: ProtocolBatch): Promise<number> {
  const { columns } = batch;
  if (columns.length === 0) return 0;
  const result = await store.writeColumns(columns);
  for (const rejection of result.rejected) {
    batch.reject(columns.metrics[rejection.index] ?? '', rejection.code as ErrorCode, rejection.message);
  }
  return result.accepted;
}

/**
 * What became of a batch's points, for the client: a first line counting the accepted, rejected
 * and skipped points, then one line per recorded reason (`CODE metric: message`; a batch records
 * the first PROTOCOL_REJECTION_MESSAGES_MAX).
 */
export function batchReport(batch: ProtocolBatch, accepted: number): string[] {
  const lines = [`accepted ${accepted}, rejected ${batch.rejectedPoints}, skipped ${batch.skippedPoints} points`];
  for (const rejection of batch.rejections) lines.push(`${rejection.code} ${rejection.metric}: ${rejection.message}`);
  return lines;
}
