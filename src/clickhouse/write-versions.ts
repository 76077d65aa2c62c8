// Owns the versions of the ClickHouse backend's small tables (series units, shard state): the newest row of a key wins.
import type { Clock } from '../core/clock.js';
import { CLICKHOUSE_VERSIONS_PER_MS } from '../core/limits.js';

/**
 * Hands out versions for rows where the highest version wins (a series' unit, the finalized
 * watermark): the clock in ms times CLICKHOUSE_VERSIONS_PER_MS, and always above the last one
 * handed out, so two rows of one store never tie and a later one always wins. Rows of two
 * processes are ordered by their clocks. At 1.8e12 ms × 1024 the versions stay below 2^53, exact
 * in a double. (Points carry no version: see schema.ts.)
 */
export class WriteVersions {
  private last = 0;

  constructor(private readonly clock: Clock) {}

  /** The next version. */
  next(): number {
    this.last = Math.max(this.last + 1, this.clock.now() * CLICKHOUSE_VERSIONS_PER_MS);
    return this.last;
  }
}
