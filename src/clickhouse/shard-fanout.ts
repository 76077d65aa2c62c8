// Owns running one step on every shard at once: the fan-out answers only when every shard's step has finished, so a failed shard never leaves another shard's statement running behind a caller that has moved on.

/**
 * Runs `step` on every shard in parallel and answers the results in shard order once all have settled. When a step
 * failed, it throws the first failure in shard order, and only after the other steps finished: a caller that closes,
 * drops, retries, or lets the finalizer pass a refused write's day never races a statement still running on another
 * shard (Promise.all answers at the first failure and leaves the rest running).
 */
export async function onEveryShard<S, T>(shards: readonly S[], step: (shard: S, index: number) => Promise<T>): Promise<T[]> {
  const settled = await Promise.allSettled(shards.map(async (shard, index) => step(shard, index)));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
