// Owns the ClickHouse byte accounting of the bench: OPTIMIZE … FINAL until one part per partition, then active parts' bytes_on_disk per table summed over the shards.
import { setTimeout as sleep } from 'node:timers/promises';
import { chRows, chStatement } from './clickhouse-http.js';

/** OPTIMIZE FINAL is retried while a partition still has several active parts (a background merge may have held it). */
const OPTIMIZE_ATTEMPTS = 20;
/** Pause between those attempts. */
const OPTIMIZE_RETRY_MS = 250;
/** Database and table names the bench builds SQL from: plain identifiers only. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One table's active parts, summed over every shard. */
export interface TableBytes {
  readonly bytesOnDisk: number;
  readonly rows: number;
  readonly parts: number;
}

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return name;
}

async function partitionsWithSeveralParts(url: string, database: string, table: string): Promise<number> {
  const rows = await chRows(
    url,
    `SELECT count() FROM (SELECT partition_id FROM system.parts WHERE active AND database = '${identifier(database)}' AND table = '${identifier(table)}' GROUP BY partition_id HAVING count() > 1)`,
  );
  return Number(rows[0]?.[0] ?? 0);
}

/**
 * Runs `OPTIMIZE TABLE db.t FINAL` on every shard for every table until each partition has one
 * active part; returns the seconds it took. Throws when a partition keeps several parts.
 */
export async function optimizeFinal(urls: readonly string[], database: string, tables: readonly string[]): Promise<number> {
  const started = performance.now();
  for (const url of urls) {
    for (const table of tables) {
      let left = Infinity;
      for (let attempt = 0; attempt < OPTIMIZE_ATTEMPTS && left > 0; attempt++) {
        if (attempt > 0) await sleep(OPTIMIZE_RETRY_MS);
        await chStatement(url, `OPTIMIZE TABLE ${identifier(database)}.${identifier(table)} FINAL`);
        left = await partitionsWithSeveralParts(url, database, table);
      }
      if (left > 0) throw new Error(`${url} ${database}.${table}: ${left} partitions keep several parts after ${OPTIMIZE_ATTEMPTS} OPTIMIZE FINAL`);
    }
  }
  return (performance.now() - started) / 1000;
}

/** Active parts of every table of `database`, bytes_on_disk and rows summed over the shards. */
export async function databaseBytes(urls: readonly string[], database: string): Promise<Record<string, TableBytes>> {
  const totals: Record<string, TableBytes> = {};
  for (const url of urls) {
    const rows = await chRows(
      url,
      `SELECT table, sum(bytes_on_disk), sum(rows), count() FROM system.parts WHERE active AND database = '${identifier(database)}' GROUP BY table ORDER BY table`,
    );
    for (const [table, bytes, count, parts] of rows) {
      const before = totals[table as string] ?? { bytesOnDisk: 0, rows: 0, parts: 0 };
      totals[table as string] = { bytesOnDisk: before.bytesOnDisk + Number(bytes), rows: before.rows + Number(count), parts: before.parts + Number(parts) };
    }
  }
  return totals;
}

/** Bytes of the tables whose names pass `keep`. */
export function sumBytes(tables: Readonly<Record<string, TableBytes>>, keep: (table: string) => boolean = () => true): number {
  return Object.entries(tables).reduce((sum, [table, t]) => (keep(table) ? sum + t.bytesOnDisk : sum), 0);
}

/** Compressed bytes per column of one table, summed over the shards (system.columns; active data only). */
export async function columnBytes(urls: readonly string[], database: string, table: string): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const url of urls) {
    const rows = await chRows(
      url,
      `SELECT name, data_compressed_bytes FROM system.columns WHERE database = '${identifier(database)}' AND table = '${identifier(table)}' ORDER BY name`,
    );
    for (const [name, bytes] of rows) totals[name as string] = (totals[name as string] ?? 0) + Number(bytes);
  }
  return totals;
}
