// Owns the shards of a ClickHouse store: one client per shard URL, the schema on each, and the check that the URLs are the cluster's shards in order.
import { randomUUID } from 'node:crypto';
import { StrataError } from '../core/errors.js';
import type { ClickHouseConfig } from './clickhouse-options.js';
import {
  CLICKHOUSE_SCHEMA_VERSION,
  distributedDdl,
  distributedTables,
  MIGRATIONS,
  SCHEMA_VERSION_DDL,
  SCHEMA_VERSION_TABLE,
  STATE_FINALIZED_THROUGH,
  STATE_LOCAL,
  STATE_FULL_RETENTION,
  STATE_SHARD_COUNT,
  STATE_SHARD_INDEX,
} from './schema.js';
import { ShardClient } from './shard-client.js';
import { onEveryShard } from './shard-fanout.js';
import { sqlString } from './sql-text.js';
import type { WriteVersions } from './write-versions.js';

interface ClusterRow {
  readonly shard_num: number | string;
  readonly host_address: string;
  readonly port: number | string;
}

/** The shards of one store, in the cluster's order; shard 0 also takes the Distributed statements. */
export class ShardSet {
  readonly shards: readonly ShardClient[];
  private readonly cfg: ClickHouseConfig;
  private readonly shardCount: bigint;
  /** This open's own key in state_local: the order check reads what this open wrote through the cluster's addresses. */
  private readonly openKey = `open_${randomUUID()}`;

  private constructor(cfg: ClickHouseConfig) {
    this.cfg = cfg;
    this.shards = cfg.urls.map((url) => new ShardClient({ url, database: cfg.database, username: cfg.username, password: cfg.password, requestTimeoutMs: cfg.requestTimeoutMs }));
    this.shardCount = BigInt(this.shards.length);
  }

  /** Connects to every shard, creates or migrates the schema on each, and checks the URL order against the cluster. */
  static async open(cfg: ClickHouseConfig, versions: WriteVersions): Promise<ShardSet> {
    const set = new ShardSet(cfg);
    try {
      await onEveryShard(set.shards, (shard, index) => set.migrate(shard, index, versions));
      await set.checkClusterOrder();
      await onEveryShard(set.shards, (shard, index) => set.claimPosition(shard, index, versions));
      return set;
    } catch (error) {
      await set.close();
      throw error;
    }
  }

  /** The shard that takes cross-shard (Distributed) statements. */
  get entry(): ShardClient {
    return this.shards[0] as ShardClient;
  }

  /** The index of the shard holding a series: what Distributed(…, series) picks with every shard's weight 1. */
  shardOf(seriesId: bigint): number {
    return Number(seriesId % this.shardCount);
  }

  private async migrate(shard: ShardClient, index: number, versions: WriteVersions): Promise<void> {
    await shard.command(`CREATE DATABASE IF NOT EXISTS ${this.cfg.database}`, { noDatabase: true });
    await shard.command(SCHEMA_VERSION_DDL);
    const [row] = await shard.rows<{ v: number | string }>(`SELECT max(version) AS v FROM ${SCHEMA_VERSION_TABLE}`);
    const applied = Number(row?.v ?? 0);
    if (applied > CLICKHOUSE_SCHEMA_VERSION) {
      throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `shard ${shard.url} holds schema version ${applied}; this build understands up to ${CLICKHOUSE_SCHEMA_VERSION}`, { shard: shard.url, version: applied });
    }
    for (const [version, statements] of MIGRATIONS) {
      if (version <= applied) continue;
      for (const sql of statements) await shard.command(sql);
      await shard.command(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${version}, ${this.cfg.clock.now()})`);
    }
    await this.ensureDistributed(shard);
    await shard.command(`INSERT INTO ${STATE_LOCAL} VALUES (${sqlString(this.openKey)}, ${index}, ${versions.next()})`);
  }

  /**
   * Records the shard's position, the shard count and the FULL retention the first time, and
   * refuses them changed later: series are placed by id modulo the count, so a reordered or resized cluster would
   * read and write each series on the wrong shard. Resharding is not supported.
   */
  private async claimPosition(shard: ShardClient, index: number, versions: WriteVersions): Promise<void> {
    const rows = await shard.rows<{ key: string; v: number | string }>(
      `SELECT key, argMax(value, ver) AS v FROM ${STATE_LOCAL} WHERE key IN (${sqlString(STATE_SHARD_INDEX)}, ${sqlString(STATE_SHARD_COUNT)}, ${sqlString(STATE_FULL_RETENTION)}) GROUP BY key`,
    );
    const recorded = new Map(rows.map((r) => [r.key, Number(r.v)]));
    const count = this.shards.length;
    const fullMs = this.cfg.retention.FULL;
    if (recorded.size === 0) {
      const version = versions.next();
      await shard.command(
        `INSERT INTO ${STATE_LOCAL} VALUES (${sqlString(STATE_SHARD_INDEX)}, ${index}, ${version}), (${sqlString(STATE_SHARD_COUNT)}, ${count}, ${version}), (${sqlString(STATE_FULL_RETENTION)}, ${fullMs}, ${version})`,
      );
      return;
    }
    // Every process must close days at the same time: one with a longer FULL retention would take
    // points into days another has finalized (their stored buckets would never hold them).
    const recordedFull = recorded.get(STATE_FULL_RETENTION);
    if (recordedFull !== undefined && recordedFull !== fullMs) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `database ${this.cfg.database} keeps raw points ${recordedFull} ms (its FULL retention at creation); this store was given ${fullMs} ms: every process of one database must use the same FULL retention`,
        { option: 'retention.FULL', recorded: recordedFull, given: fullMs },
      );
    }
    if (recorded.get(STATE_SHARD_INDEX) !== index || recorded.get(STATE_SHARD_COUNT) !== count) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `shard ${shard.url} holds database ${this.cfg.database} as shard ${(recorded.get(STATE_SHARD_INDEX) ?? -1) + 1} of ${recorded.get(STATE_SHARD_COUNT)}, but was given as shard ${index + 1} of ${count}: give the shards in the order and number the database was created with (resharding is not supported)`,
        { option: 'backend.urls', shard: shard.url, recordedIndex: recorded.get(STATE_SHARD_INDEX), recordedCount: recorded.get(STATE_SHARD_COUNT) },
      );
    }
  }

  /** Creates the Distributed tables, and recreates one that points at another cluster (they hold no data of their own). */
  private async ensureDistributed(shard: ShardClient): Promise<void> {
    const clusterLiteral = sqlString(this.cfg.cluster);
    const existing = await shard.rows<{ name: string; engine_full: string }>(
      `SELECT name, engine_full FROM system.tables WHERE database = ${sqlString(this.cfg.database)} AND engine = 'Distributed'`,
    );
    const engines = new Map(existing.map((t) => [t.name, t.engine_full]));
    for (const [name, local] of distributedTables()) {
      const engine = engines.get(name);
      if (engine !== undefined && !engine.startsWith(`Distributed(${clusterLiteral},`)) await shard.command(`DROP TABLE IF EXISTS ${name}`);
      await shard.command(distributedDdl(name, local, sqlString(this.cfg.database), clusterLiteral));
    }
  }

  /**
   * The cluster must have exactly one shard per URL, in the same order: Strata writes each series
   * straight to the shard Distributed would pick, so a wrong order would split a series. Each
   * shard's recorded index is read through the cluster's own addresses (remote()).
   */
  private async checkClusterOrder(): Promise<void> {
    const cluster = await this.entry.rows<ClusterRow>(
      `SELECT shard_num, host_address, port FROM system.clusters WHERE cluster = ${sqlString(this.cfg.cluster)} AND replica_num = 1 ORDER BY shard_num`,
    );
    if (cluster.length !== this.shards.length) {
      throw new StrataError(
        'STORE_OPTIONS_INVALID',
        `cluster ${this.cfg.cluster} has ${cluster.length} shards on ${this.entry.url}, but ${this.shards.length} shard URLs were given: give one URL per shard, in the cluster's order`,
        { option: 'backend.urls', cluster: this.cfg.cluster, clusterShards: cluster.length, urls: this.shards.length },
      );
    }
    for (const [position, row] of cluster.entries()) {
      const address = sqlString(`${row.host_address}:${row.port}`);
      const found = await this.entry
        .rows<{ v: number | string; n: number | string }>(
          `SELECT any(value) AS v, count() AS n FROM remote(${address}, ${this.cfg.database}, ${STATE_LOCAL}${this.credentials()}) WHERE key = ${sqlString(this.openKey)}`,
        )
        .then(
          ([r]) => r,
          (error: unknown) => {
            // Every URL answered; through the cluster's address the shard holds no such database: another server.
            if (error instanceof StrataError && error.code === 'STORE_SHARD_UNAVAILABLE') return undefined;
            throw error;
          },
        );
      if (found === undefined || Number(found.n) === 0 || Number(found.v) !== position) {
        throw new StrataError(
          'STORE_OPTIONS_INVALID',
          `shard ${position + 1} of cluster ${this.cfg.cluster} (${row.host_address}:${row.port}) is not ${this.shards[position]?.url}: give the shard URLs in the cluster's order`,
          { option: 'backend.urls', cluster: this.cfg.cluster, shard: position + 1 },
        );
      }
    }
  }

  /** remote()'s user and password arguments: without them it connects as default with no password. */
  private credentials(): string {
    if (this.cfg.username === undefined && this.cfg.password === undefined) return '';
    return `, ${sqlString(this.cfg.username ?? 'default')}, ${sqlString(this.cfg.password ?? '')}`;
  }

  /** Every day before the returned time is finalized on every shard (the lowest watermark of all). */
  async finalizedThrough(): Promise<number> {
    const marks = await onEveryShard(this.shards, (shard) => this.finalizedOn(shard));
    return Math.min(...marks);
  }

  private async finalizedOn(shard: ShardClient): Promise<number> {
    // The watermark only moves forward: the largest recorded wins, whatever process recorded it last.
    const [row] = await shard.rows<{ v: number | string }>(`SELECT max(value) AS v FROM ${STATE_LOCAL} WHERE key = ${sqlString(STATE_FINALIZED_THROUGH)}`);
    return Number(row?.v ?? 0);
  }

  /** Records on every shard that every day before `throughMs` is finalized. */
  async recordFinalized(throughMs: number, versions: WriteVersions): Promise<void> {
    const version = versions.next();
    await onEveryShard(this.shards, (shard) => shard.command(`INSERT INTO ${STATE_LOCAL} VALUES (${sqlString(STATE_FINALIZED_THROUGH)}, ${throughMs}, ${version})`));
  }

  /** Closes every client. */
  async close(): Promise<void> {
    await onEveryShard(this.shards, (shard) => shard.close());
  }
}
