// Owns the ClickHouse schema: every table Strata keeps on each shard, its versions, and which table holds what.
import { LAYOUT, ROLLUP_RESOLUTIONS, type RollupResolution } from '../model/resolution.js';

/**
 * The schema version this build writes. Strata migrates every shard itself (18.16 runs no
 * ON CLUSTER DDL without ZooKeeper): each migration is a list of idempotent statements, and a
 * shard records the versions it has applied in `schema_version`.
 */
export const CLICKHOUSE_SCHEMA_VERSION = 1;

/** The day a raw partition covers: raw points are partitioned by UTC day, as the layout asks. */
export const RAW_PARTITION_WIDTH_MS = 86_400_000;

/** The local table of raw points on every shard. */
export const POINTS_LOCAL = 'points_local';
/** The Distributed table over every shard's raw points, sharded by series. */
export const POINTS = 'points';
/** The local table of series (tenant, metric, unit) on every shard, on the shard of the series' points. */
export const SERIES_LOCAL = 'series_local';
/** The Distributed table over every shard's series. */
export const SERIES = 'series';
/** A shard's own small facts (its index, the finalized watermark): never distributed. */
export const STATE_LOCAL = 'state_local';
/** The versions a shard has applied. */
export const SCHEMA_VERSION_TABLE = 'schema_version';

/** Key in state_local: the shard's position in the cluster (0-based), checked against the URL order at open. */
export const STATE_SHARD_INDEX = 'shard_index';
/** Key in state_local: how many shards the database was created on (series are placed by id modulo it). */
export const STATE_SHARD_COUNT = 'shard_count';
/** Key in state_local: the FULL retention (ms) the database was created with; every process must use it. */
export const STATE_FULL_RETENTION = 'full_retention_ms';
/** Key in state_local: every UTC day before this (ms) has been finalized: its rollups are stored and its raw may go. */
export const STATE_FINALIZED_THROUGH = 'finalized_through_ms';

/** The local rollup table of a resolution, e.g. rollup_min5_local. */
export function rollupLocalTable(res: RollupResolution): string {
  return `rollup_${res.toLowerCase()}_local`;
}

/** The Distributed rollup table of a resolution, e.g. rollup_min5. */
export function rollupTable(res: RollupResolution): string {
  return `rollup_${res.toLowerCase()}`;
}

/** Columns of a rollup bucket, in the order RowBinary rows are written (the engine's BucketColumns). */
const ROLLUP_COLUMNS = 'series UInt64, bucket UInt64, num_points UInt32, count UInt32, mean Float64, m2 Float64, min Float64, max Float64';

/** The local tables a shard holds, with their partition expressions (retention drops whole partitions). */
function localTables(): string[] {
  const rollups = ROLLUP_RESOLUTIONS.map(
    (res) =>
      `CREATE TABLE IF NOT EXISTS ${rollupLocalTable(res)} (${ROLLUP_COLUMNS}) ENGINE = ReplacingMergeTree ` +
      `PARTITION BY intDiv(bucket, ${LAYOUT[res].partitionWidthMs}) ORDER BY (series, bucket)`,
  );
  return [
    // kind 0: a number in value (text ''); kind 1: a string in text (value 0). No version column: the row
    // inserted last wins (a later part has a higher block number), so last write wins in the order the
    // shard took the writes, across restarts and processes, for no bytes (a version cost 4.9 B/point).
    `CREATE TABLE IF NOT EXISTS ${POINTS_LOCAL} (series UInt64, ts UInt64, kind UInt8, value Float64, text String) ` +
      `ENGINE = ReplacingMergeTree PARTITION BY intDiv(ts, ${RAW_PARTITION_WIDTH_MS}) ORDER BY (series, ts)`,
    `CREATE TABLE IF NOT EXISTS ${SERIES_LOCAL} (tenant String, metric String, series UInt64, unit String, has_unit UInt8, ver UInt64) ` +
      'ENGINE = ReplacingMergeTree(ver) ORDER BY (tenant, metric)',
    `CREATE TABLE IF NOT EXISTS ${STATE_LOCAL} (key String, value UInt64, ver UInt64) ENGINE = ReplacingMergeTree(ver) ORDER BY key`,
    ...rollups,
  ];
}

/** The Distributed tables over the local ones: name, local table, sharding key (always the series). */
export function distributedTables(): readonly (readonly [name: string, local: string])[] {
  return [[POINTS, POINTS_LOCAL], [SERIES, SERIES_LOCAL], ...ROLLUP_RESOLUTIONS.map((res) => [rollupTable(res), rollupLocalTable(res)] as const)];
}

/** The statement that creates one Distributed table over `local` in `database` on `clusterLiteral` (a quoted string). */
export function distributedDdl(name: string, local: string, databaseLiteral: string, clusterLiteral: string): string {
  return `CREATE TABLE IF NOT EXISTS ${name} AS ${local} ENGINE = Distributed(${clusterLiteral}, ${databaseLiteral}, '${local}', series)`;
}

/** The migrations in order: version → statements (idempotent, run on every shard). */
export const MIGRATIONS: readonly (readonly [version: number, statements: readonly string[]])[] = [[1, localTables()]];

/** The statement that creates the version table itself (before any migration). */
export const SCHEMA_VERSION_DDL = `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version UInt32, applied_ms UInt64) ENGINE = TinyLog`;
