// Owns retention on the ClickHouse backend: dropping whole expired partitions on every shard (18.16 has no TTL).
import { CLICKHOUSE_FINALIZE_GRACE_MS } from '../core/limits.js';
import { closedDaysEnd } from './day-finalizer.js';
import { LAYOUT, ROLLUP_RESOLUTIONS, type RetentionTable } from '../model/resolution.js';
import { expiryCutoffMs } from '../retention/policy.js';
import type { StoreLogger } from '../store-types.js';
import { POINTS_LOCAL, RAW_PARTITION_WIDTH_MS, rollupLocalTable } from './schema.js';
import type { ShardClient } from './shard-client.js';
import { sqlString } from './sql-text.js';

/** The end (ms, exclusive) before which a table's partitions may go, and the width of its partitions. */
interface TableRule {
  readonly table: string;
  readonly partitionWidthMs: number;
  readonly dropBeforeMs: number;
}

/**
 * The rule per table at `nowMs`: a rollup partition goes once it is wholly older than its
 * resolution's retention; a raw day goes once it is finalized (its rollups are stored), which
 * happens only after the day is wholly older than the FULL retention.
 */
export function sweepRules(nowMs: number, retention: RetentionTable, finalizedThroughMs: number): TableRule[] {
  return [
    { table: POINTS_LOCAL, partitionWidthMs: RAW_PARTITION_WIDTH_MS, dropBeforeMs: Math.min(finalizedThroughMs, closedDaysEnd(nowMs - CLICKHOUSE_FINALIZE_GRACE_MS, retention)) },
    ...ROLLUP_RESOLUTIONS.map((res) => ({ table: rollupLocalTable(res), partitionWidthMs: LAYOUT[res].partitionWidthMs, dropBeforeMs: expiryCutoffMs(nowMs, retention, res) })),
  ];
}

/** Drops on `shard` every partition the rules let go; returns how many it dropped. */
export async function sweepShard(shard: ShardClient, database: string, rules: readonly TableRule[], logger: StoreLogger): Promise<number> {
  const byTable = new Map(rules.map((r) => [r.table, r]));
  const parts = await shard.rows<{ table: string; partition: string }>(
    `SELECT DISTINCT table, partition FROM system.parts WHERE active AND database = ${sqlString(database)} AND table IN (${rules.map((r) => sqlString(r.table)).join(', ')})`,
  );
  let dropped = 0;
  for (const { table, partition } of parts) {
    const rule = byTable.get(table);
    const index = Number(partition);
    if (rule === undefined || !Number.isSafeInteger(index)) continue;
    if ((index + 1) * rule.partitionWidthMs > rule.dropBeforeMs) continue;
    await shard.command(`ALTER TABLE ${table} DROP PARTITION ${index}`);
    logger.info({ shard: shard.url, table, partitionStartMs: index * rule.partitionWidthMs }, 'dropped an expired partition');
    dropped++;
  }
  return dropped;
}
