// Owns the ClickHouse backend's Store: validation and the query plan are the engine's own; points, series and rollups live on the shards.
import { StrataError } from '../core/errors.js';
import { CLICKHOUSE_PING_INTERVAL_MS, CLICKHOUSE_SWEEP_INTERVAL_MS, MAINTENANCE_INTERVAL_MS } from '../core/limits.js';
import { alignDown, DAY_MS } from '../core/time.js';
import { checkColumnsShape, type PointColumns } from '../model/point-columns.js';
import type { Point } from '../model/sample.js';
import { batchRefused, checkBatchSize, refusal } from '../ingest/batch-rules.js';
import { IngestScratch, validateBatch, validateColumns, type TimeBounds, type ValidatedBatch } from '../ingest/validate.js';
import { planQuery, runnablePlan } from '../query/planner.js';
import { ingestBounds } from '../retention/policy.js';
import { valuesFromBuckets, valuesFromSamples } from '../query/values.js';
import type { ListMetricsOptions, MetricPage, QueryPlan, QueryRequest, QueryResult, Store, StoreHealth, StoreStats, TimestampBounds, WriteOptions, WriteResult } from '../store-types.js';
import type { ClickHouseConfig } from './clickhouse-options.js';
import { BatchDedupe } from './batch-dedupe.js';
import { closedDaysEnd, DayFinalizer, rawDaysOn } from './day-finalizer.js';
import { listMetricsOn } from './metric-listing.js';
import { sweepRules, sweepShard } from './partition-sweeper.js';
import { encodePoints, encodeSeriesRows } from './row-codecs.js';
import { POINTS_LOCAL, RAW_PARTITION_WIDTH_MS, SERIES_LOCAL } from './schema.js';
import { SeriesCache } from './series-cache.js';
import { seriesIdOf } from './series-id.js';
import { readBuckets, readSamples, type SeriesLocation } from './series-reads.js';
import type { ShardClient } from './shard-client.js';
import { onEveryShard } from './shard-fanout.js';
import { ShardHealth } from './shard-health.js';
import { ShardSet } from './shard-set.js';
import { sqlString } from './sql-text.js';
import { WriteVersions } from './write-versions.js';

interface UnitRow {
  readonly unit: string;
  readonly has_unit: number | string;
  readonly n: number | string;
}

/** The engine on a ClickHouse cluster (see docs/clickhouse.md). */
export class ClickHouseStore implements Store {
  private readonly scratch = new IngestScratch();
  private readonly dedupe = new BatchDedupe();
  private readonly series: SeriesCache;
  private readonly shardHealth = new ShardHealth();
  private timer: NodeJS.Timeout | undefined;
  /** Background and flush() work run one after another on this chain. */
  private chain: Promise<void> = Promise.resolve();
  private maintaining = false;
  private lastPingMs = -Infinity;
  private lastSweepMs = -Infinity;
  private lastCatchUpMs = -Infinity;
  private closed = false;
  private accepted = 0;
  private rejected = 0;
  /** The oldest timestamp of each write in flight, so no day one touches is finalized under it. */
  private readonly inFlight = new Map<number, number>();
  private writeSeq = 0;

  private constructor(
    private readonly cfg: ClickHouseConfig,
    private readonly shards: ShardSet,
    private readonly versions: WriteVersions,
    private readonly finalizer: DayFinalizer,
  ) {
    this.series = new SeriesCache((id) => shards.shardOf(id));
    if (cfg.background) {
      this.timer = setInterval(() => this.maintain(), MAINTENANCE_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Connects to every shard, migrates the schema and reads the finalized watermark (every shard must answer). */
  static async open(cfg: ClickHouseConfig): Promise<ClickHouseStore> {
    const versions = new WriteVersions(cfg.clock);
    const shards = await ShardSet.open(cfg, versions);
    try {
      let watermark = await shards.finalizedThrough();
      if (watermark === 0) {
        // A new database: nothing before its oldest raw day (or the days closed now) needs finalizing.
        const days = (await onEveryShard(shards.shards, (s) => rawDaysOn(s, cfg.database))).flat();
        watermark = days.length === 0 ? closedDaysEnd(cfg.clock.now(), cfg.retention) : Math.min(...days) * RAW_PARTITION_WIDTH_MS;
      }
      return new ClickHouseStore(cfg, shards, versions, new DayFinalizer(shards, cfg.database, versions, watermark));
    } catch (error) {
      await shards.close();
      throw error;
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StrataError('STORE_CLOSED', 'the store is closed');
  }

  async write(points: readonly Point[], options: WriteOptions = {}): Promise<WriteResult> {
    this.ensureOpen();
    if (!Array.isArray(points)) throw new StrataError('INGEST_POINT_MALFORMED', 'write takes an array of points');
    return this.ingest(points.length, options, (bounds) => validateBatch(points, this.series.registry, bounds, this.scratch));
  }

  async writeColumns(columns: PointColumns, options: WriteOptions = {}): Promise<WriteResult> {
    this.ensureOpen();
    checkColumnsShape(columns);
    return this.ingest(columns.length, options, (bounds) => validateColumns(columns, this.series.registry, bounds, this.scratch));
  }

  /**
   * The engine's bounds, narrowed to after the finalized days: a day whose rollups are stored takes
   * no more points (another process with a slower clock or a longer FULL retention could try).
   */
  timestampBounds(): TimestampBounds {
    const bounds = ingestBounds(this.cfg.clock.now(), this.cfg.retention);
    return { oldestMs: Math.max(bounds.oldestMs, this.finalizer.finalizedThroughMs), newestMs: bounds.newestMs };
  }

  /** The end of the days that may be finalized now: closed ones, before the oldest day a write in flight touches. */
  private finalizableEnd(nowMs: number): number {
    let end = closedDaysEnd(nowMs, this.cfg.retention);
    for (const oldestMs of this.inFlight.values()) end = Math.min(end, alignDown(oldestMs, DAY_MS));
    return end;
  }

  /**
   * Validates with the engine's rules, then sends each shard its series rows (new series, unit
   * changes, rows not yet acknowledged) and then its points, all shards at once. Resolves only
   * when every shard acknowledged; a refused batch may have reached some shards, and its retry
   * rewrites the same points (last write wins), so nothing acknowledged is lost or doubled. Writes
   * of one timestamp are ordered as the shard took them (see schema.ts).
   */
  private async ingest(size: number, options: WriteOptions, validate: (bounds: TimeBounds) => ValidatedBatch): Promise<WriteResult> {
    checkBatchSize(size);
    if (size === 0) return { accepted: 0, rejected: [] };
    const nowMs = this.cfg.clock.now();
    const { columns, rejected } = validate(this.timestampBounds());
    if (batchRefused(rejected.length, columns.length, options.atomic)) {
      this.series.registry.discardPending();
      this.rejected += rejected.length;
      return refusal(rejected, size, options.atomic);
    }
    // Everything below up to the first await reads the validated columns, views into the scratch.
    const rows = this.series.rowsFor(columns.seriesIds, columns.length);
    const n = this.shards.shards.length;
    const points = encodePoints(columns, this.series, n, this.dedupe.replacedPoints(columns.seriesIds, columns.timestampsMs, columns.length));
    const seriesRows = encodeSeriesRows(rows, this.series, n, this.versions.next());
    const accepted = columns.length;
    const write = ++this.writeSeq;
    this.inFlight.set(write, minOf(columns.timestampsMs, columns.length));
    try {
      await this.guard(
        onEveryShard(this.shards.shards, async (shard, i) => {
          const seriesBody = seriesRows[i] as Buffer;
          const pointsBody = points[i] as Buffer;
          if (seriesBody.length > 0) await shard.insertRowBinary(SERIES_LOCAL, seriesBody);
          if (pointsBody.length > 0) await shard.insertRowBinary(POINTS_LOCAL, pointsBody);
        }),
        nowMs,
      );
    } finally {
      this.inFlight.delete(write);
    }
    this.series.confirm(rows);
    this.accepted += accepted;
    this.rejected += rejected.length;
    return { accepted, rejected };
  }

  /** Awaits a request to the shards, noting a shard that did not answer for health(). */
  private async guard<T>(work: Promise<T>, nowMs: number): Promise<T> {
    try {
      return await work;
    } catch (error) {
      this.shardHealth.noteFailure(error, nowMs);
      throw error;
    }
  }

  plan(request: QueryRequest): QueryPlan {
    return planQuery(request, this.cfg.clock.now(), this.cfg.retention);
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    this.ensureOpen();
    const nowMs = this.cfg.clock.now();
    const plan = runnablePlan(request, nowMs, this.cfg.retention);
    const seriesId = seriesIdOf(request.tenant, request.metric);
    const at: SeriesLocation = { shard: this.shards.shards[this.shards.shardOf(seriesId)] as ShardClient, seriesId };
    const res = plan.resolution;
    if (res !== 'FULL') await this.catchUpWatermark(plan.readFrom, nowMs);
    const read = async (): Promise<QueryResult['values']> => {
      if (res === 'FULL') return valuesFromSamples(await readSamples(at, plan.readFrom, plan.to), plan.select);
      // A day finalized (and its raw dropped) while the read ran is read again from its stored
      // buckets; the watermark moves once a day, so a second read is the most ever needed.
      let watermark = this.finalizer.finalizedThroughMs;
      let buckets = await readBuckets(at, res, plan.readFrom, plan.to, watermark);
      if (this.finalizer.finalizedThroughMs !== watermark) {
        watermark = this.finalizer.finalizedThroughMs;
        buckets = await readBuckets(at, res, plan.readFrom, plan.to, watermark);
      }
      return valuesFromBuckets(buckets, plan.select);
    };
    const [unit, values] = await this.guard(Promise.all([this.unitOf(at.shard, request.tenant, request.metric), read()]), nowMs);
    if (unit === undefined) return { resolution: res, unit: null, values: [] };
    return { resolution: res, unit, values };
  }

  /**
   * Another process may have finalized days (and dropped their raw points) that this one still
   * takes for raw: before reading a closed day it has not seen finalized, it reads the shards'
   * watermark, at most once per ping interval. A shard that does not answer leaves the watermark
   * as it is (a query of a series on a shard that is up is not refused for it).
   */
  private async catchUpWatermark(readFromMs: number, nowMs: number): Promise<void> {
    const closedEnd = closedDaysEnd(nowMs, this.cfg.retention);
    if (!this.finalizer.due(closedEnd) || readFromMs >= closedEnd || nowMs - this.lastCatchUpMs < CLICKHOUSE_PING_INTERVAL_MS) return;
    this.lastCatchUpMs = nowMs;
    try {
      this.finalizer.learn(await this.shards.finalizedThrough());
    } catch (error) {
      this.shardHealth.noteFailure(error, nowMs);
    }
  }

  /** The series' unit (null when it has none); undefined when the series was never written. */
  private async unitOf(shard: ShardClient, tenant: string, metric: string): Promise<string | null | undefined> {
    const [row] = await shard.rows<UnitRow>(
      `SELECT argMax(unit, ver) AS unit, argMax(has_unit, ver) AS has_unit, count() AS n FROM ${SERIES_LOCAL} WHERE tenant = ${sqlString(tenant)} AND metric = ${sqlString(metric)}`,
    );
    if (row === undefined || Number(row.n) === 0) return undefined;
    return Number(row.has_unit) === 1 ? row.unit : null;
  }

  async listMetrics(tenant: string, options: ListMetricsOptions = {}): Promise<MetricPage> {
    this.ensureOpen();
    const nowMs = this.cfg.clock.now();
    try {
      return await listMetricsOn(this.shards.entry, tenant, options);
    } catch (error) {
      throw await this.shardDown(error, nowMs);
    }
  }

  /**
   * A Distributed statement that failed for a shard names the shard it was sent to, which may be
   * up; pinging every shard finds the ones that are down, and the error names them.
   */
  private async shardDown(error: unknown, nowMs: number): Promise<unknown> {
    if (!(error instanceof StrataError) || error.code !== 'STORE_SHARD_UNAVAILABLE') return error;
    await this.shardHealth.probe(this.shards.shards, nowMs);
    const down = this.shardHealth.downShards();
    if (down.length === 0) return error;
    return new StrataError('STORE_SHARD_UNAVAILABLE', `ClickHouse shard ${down.join(', ')} does not answer; listing metrics needs every shard, so no partial list is served`, {
      shard: down[0],
      shards: down,
    });
  }

  /** Finalizes every day that can no longer change, then drops every expired partition on every shard. */
  async flush(): Promise<void> {
    this.ensureOpen();
    await this.serialized(async () => {
      while (await this.finalizer.step(this.finalizableEnd(this.cfg.clock.now())));
      await this.sweep();
    });
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => {});
    return run;
  }

  private async sweep(): Promise<void> {
    const nowMs = this.cfg.clock.now();
    const rules = sweepRules(nowMs, this.cfg.retention, this.finalizer.finalizedThroughMs);
    await onEveryShard(this.shards.shards, (shard) => sweepShard(shard, this.cfg.database, rules, this.cfg.logger));
    this.lastSweepMs = nowMs;
  }

  /** One background turn: ping when due, finalize one day when due, sweep when due; never two turns at once. */
  private maintain(): void {
    if (this.maintaining || this.closed) return;
    this.maintaining = true;
    const nowMs = this.cfg.clock.now();
    void this.serialized(async () => {
      if (nowMs - this.lastPingMs >= CLICKHOUSE_PING_INTERVAL_MS) {
        this.lastPingMs = nowMs;
        await this.shardHealth.probe(this.shards.shards, nowMs);
      }
      const finalized = await this.finalizer.step(this.finalizableEnd(nowMs));
      if (finalized || nowMs - this.lastSweepMs >= CLICKHOUSE_SWEEP_INTERVAL_MS) await this.sweep();
    })
      .catch((error: unknown) => {
        this.shardHealth.noteFailure(error, nowMs);
        this.cfg.logger.error({ err: error }, 'ClickHouse maintenance failed');
      })
      .finally(() => {
        this.maintaining = false;
      });
  }

  stats(): StoreStats {
    this.ensureOpen();
    const nowMs = this.cfg.clock.now();
    const closedEnd = closedDaysEnd(nowMs, this.cfg.retention);
    const due = this.finalizer.due(closedEnd);
    return {
      pointsAccepted: this.accepted,
      pointsRejected: this.rejected,
      headPoints: 0,
      rollupQueueDepth: due ? Math.ceil((closedEnd - this.finalizer.finalizedThroughMs) / RAW_PARTITION_WIDTH_MS) : 0,
      rollupLagMs: due ? nowMs - this.cfg.retention.FULL - this.finalizer.finalizedThroughMs : 0,
      rolledUpSources: 0,
      damagedPartitions: 0,
      durable: this.shardHealth.health().status === 'ok',
      walCorruptSpans: 0,
      walCorruptBytes: 0,
      walDamagedCopies: 0,
    };
  }

  health(): StoreHealth {
    this.ensureOpen();
    return this.shardHealth.health();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.chain;
    await this.shards.close();
  }
}

/** The smallest of the first `length` values (Infinity when none). */
function minOf(values: Float64Array, length: number): number {
  let min = Infinity;
  for (let i = 0; i < length; i++) if ((values[i] as number) < min) min = values[i] as number;
  return min;
}
