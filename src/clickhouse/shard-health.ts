// Owns what the ClickHouse store knows of its shards' health: the last ping of each, for health() which must answer without waiting.
import { StrataError } from '../core/errors.js';
import type { HealthReason, StoreHealth } from '../store-types.js';
import type { ShardClient } from './shard-client.js';
import { onEveryShard } from './shard-fanout.js';

/** The shards that did not answer their last ping, with when. */
export class ShardHealth {
  private readonly down = new Map<string, number>();

  /** Pings every shard and records which did not answer. */
  async probe(shards: readonly ShardClient[], nowMs: number): Promise<void> {
    const answers = await onEveryShard(shards, (s) => s.ping());
    answers.forEach((ok, i) => {
      const url = (shards[i] as ShardClient).url;
      if (ok) this.down.delete(url);
      else if (!this.down.has(url)) this.down.set(url, nowMs);
    });
  }

  /** Notes a shard that failed a request as down until a ping answers. */
  noteFailure(error: unknown, nowMs: number): void {
    if (!(error instanceof StrataError) || error.code !== 'STORE_SHARD_UNAVAILABLE') return;
    const shard = error.details.shard;
    if (typeof shard === 'string' && !this.down.has(shard)) this.down.set(shard, nowMs);
  }

  /** The shards that did not answer their last ping or request, in the order they were found down. */
  downShards(): string[] {
    return [...this.down.keys()];
  }

  /** ok, or unavailable with one reason per shard that is down (writes to it cannot be acknowledged). */
  health(): StoreHealth {
    if (this.down.size === 0) return { status: 'ok', reasons: [] };
    const reasons: HealthReason[] = [...this.down].map(([shard, sinceMs]) => ({
      code: 'STORE_SHARD_UNAVAILABLE',
      message: `ClickHouse shard ${shard} does not answer; writes and reads of its series fail with 503 until it does`,
      details: { shard, sinceMs },
    }));
    return { status: 'unavailable', reasons };
  }
}
