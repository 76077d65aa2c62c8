// Owns the composition of the engine: wires storage, ingest, rollup, query and retention into a Store.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClickHouseStore } from './clickhouse/clickhouse-store.js';
import { resolveClickHouseOptions } from './clickhouse/clickhouse-options.js';
import { configError } from './core/config-error.js';
import { StrataError } from './core/errors.js';
import { HEAD_POINTS_MAX, MAINTENANCE_INTERVAL_MS, METRIC_SEARCH_SCAN_NAMES_MAX, SEAL_STEP_POINTS, SEAL_STEP_SERIES_MAX } from './core/limits.js';
import { compileGlob } from './model/glob.js';
import { LAYOUT, type RollupResolution } from './model/resolution.js';
import { checkColumnsShape, type PointColumns } from './model/point-columns.js';
import type { Point } from './model/sample.js';
import { Head } from './ingest/head.js';
import { nextWindowToSeal } from './ingest/seal-pick.js';
import { SealRunner, type SealPick } from './ingest/seal-runner.js';
import { removeCompactionLeftovers, type CompactionResult } from './ingest/compactor.js';
import type { LiveRecords } from './ingest/sealer.js';
import { batchRefused, checkBatchSize, refusal } from './ingest/batch-rules.js';
import { IngestScratch, validateBatch, validateColumns, type TimeBounds, type ValidatedBatch } from './ingest/validate.js';
import { ChunkCache } from './query/chunk-cache.js';
import { metricsPageLimit, scanMetricNames } from './query/metric-scan.js';
import { planQuery, runnablePlan } from './query/planner.js';
import { readBuckets, readSamples, type ReaderSources } from './query/series-reader.js';
import { valuesFromBuckets, valuesFromSamples } from './query/values.js';
import { expiryCutoffMs, ingestBounds } from './retention/policy.js';
import { sweepExpired } from './retention/sweeper.js';
import { DueIndex } from './rollup/due-index.js';
import { RollupPool } from './rollup/rollup-pool.js';
import { RollupScheduler } from './rollup/scheduler.js';
import { Catalog, type PartitionRow } from './storage/catalog.js';
import { lockDirectory } from './storage/dir-lock.js';
import { PRIVATE_DIR_MODE } from './storage/open-database.js';
import { partitionEndOf } from './storage/partition-damage.js';
import { partitionStartOf } from './storage/partition-set.js';
import { PartitionLedger } from './storage/partition-ledger.js';
import { PartitionSet } from './storage/partition-set.js';
import { SeriesRegistry } from './storage/series-registry.js';
import { WalLog } from './storage/wal-log.js';
import { CompactionRunner } from './store-compaction.js';
import { healthOf, WalDurability } from './store-health.js';
import { headViewOf } from './store-head-view.js';
import { resolveCommonOptions, resolveStoreOptions, type StoreConfig } from './store-options.js';
import type { HealthReason, ListMetricsOptions, MetricPage, QueryPlan, QueryRequest, QueryResult, Store, StoreHealth, StoreOptions, StoreStats, TimestampBounds, WriteOptions, WriteResult } from './store-types.js';

class EngineStore implements Store {
  private readonly cfg: StoreConfig;
  private readonly catalog: Catalog;
  private readonly registry: SeriesRegistry;
  private readonly partitions: PartitionSet;
  /** Which partition files must exist, their counts and their damage (mirrored in the catalog). */
  private readonly ledger: PartitionLedger;
  private readonly wal: WalLog;
  private readonly walDurability: WalDurability;
  private readonly head = new Head();
  private readonly scratch = new IngestScratch();
  private readonly live: LiveRecords = new Map();
  private readonly sealed: Map<number, number>;
  private readonly due: DueIndex;
  private readonly cache: ChunkCache;
  private readonly pool: RollupPool;
  private readonly scheduler: RollupScheduler;
  private readonly seals: SealRunner;
  private readonly compaction: CompactionRunner;
  private readonly reader: ReaderSources;
  private readonly unlock: () => void;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastSeq = 0;
  private accepted = 0;
  private rejected = 0;

  constructor(cfg: StoreConfig, unlock: () => void) {
    this.cfg = cfg;
    this.unlock = unlock;
    this.catalog = new Catalog(join(cfg.dir, 'catalog.sqlite'), cfg.durability);
    this.registry = new SeriesRegistry(this.catalog);
    this.ledger = new PartitionLedger({
      dataDir: cfg.dir,
      catalog: this.catalog,
      clock: cfg.clock,
      logger: cfg.logger,
      // Chunks read before the damage was found must not keep answering for it. (During the open
      // check below the cache does not exist yet, and nothing is cached.)
      onDamaged: (d) => (this.cache as ChunkCache | undefined)?.invalidateRange(d.res, d.startMs, partitionEndOf(d.res, d.startMs)),
    });
    // A compaction the last process did not finish left its new file; the partition itself is intact.
    removeCompactionLeftovers(cfg.dir);
    // Cheap for listed files (header and size); files the catalog does not list are verified once and adopted.
    this.ledger.open();
    this.partitions = new PartitionSet(cfg.dir, cfg.durability, this.ledger);
    // Listed files that are missing stay known, so the sweeper still drops their rows once they expire.
    for (const { res, startMs } of this.ledger.known()) this.partitions.noteCreated(res, startMs);
    this.sealed = this.catalog.loadSealed();
    this.due = new DueIndex(this.catalog.loadDue(), cfg.clock.now());
    this.cache = new ChunkCache(this.partitions);
    this.wal = new WalLog(join(cfg.dir, 'wal'), cfg.durability);
    this.walDurability = new WalDurability(cfg.dir, 'wal');
    this.replay();
    this.pool = new RollupPool(cfg.workers);
    this.scheduler = new RollupScheduler({
      pool: this.pool,
      catalog: this.catalog,
      due: this.due,
      dataDir: cfg.dir,
      durability: cfg.durability,
      clock: cfg.clock,
      logger: cfg.logger,
      onTargetWritten: (res: RollupResolution, start, ids) => {
        this.partitions.noteCreated(res, start);
        this.cache.invalidate(res, start, ids);
      },
      partitions: this.ledger,
    });
    const sealer = {
      head: this.head,
      partitions: this.partitions,
      catalog: this.catalog,
      wal: this.wal,
      sealed: this.sealed,
      markDue: (start: number, ids: readonly number[]) => this.due.add('FULL', start, ids, cfg.clock.now()),
      onChunksWritten: (start: number, ids: readonly number[]) => this.cache.invalidate('FULL', start, ids),
      lastSeq: () => this.lastSeq,
      partitionDamaged: (start: number) => this.ledger.damageOf('FULL', start) !== undefined,
      onPartitionRecorded: (row: PartitionRow) => this.ledger.learn([row]),
    };
    this.seals = new SealRunner({ sealer, live: this.live, logger: cfg.logger, stepPoints: SEAL_STEP_POINTS, stepSeries: SEAL_STEP_SERIES_MAX });
    this.compaction = new CompactionRunner(
      {
        dataDir: cfg.dir,
        durability: cfg.durability,
        partitions: this.partitions,
        lowerCount: (start, chunks) => this.ledger.lowered('FULL', start, chunks),
      },
      {
        unavailable: (start) => this.compactionUnavailable(start),
        readByWorkers: (start) => this.scheduler.isReading('FULL', start),
        settleWorkers: () => this.scheduler.settle(),
        onReplaced: (start) => this.cache.invalidateRange('FULL', start, partitionEndOf('FULL', start)),
        closed: () => this.closed,
        nowMs: () => cfg.clock.now(),
        logger: cfg.logger,
      },
    );
    this.reader = {
      cache: this.cache,
      due: this.due,
      head: headViewOf(this.head, () => this.seals.current?.window),
    };
    if (cfg.background) {
      this.timer = setInterval(() => this.maintain(), MAINTENANCE_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Replays the WAL into the head, skipping points of windows already sealed. */
  private replay(): void {
    const now = this.cfg.clock.now();
    const isSealed = (w: number, seq: number): boolean => (this.sealed.get(w) ?? 0) >= seq;
    const fullySealed: number[] = [];
    const report = this.wal.replay(({ seq, batch }) => {
      this.lastSeq = Math.max(this.lastSeq, seq);
      const { windows } = this.head.apply(batch, seq, now, isSealed);
      if (windows > 0) this.live.set(seq, windows);
      else fullySealed.push(seq);
    });
    for (const seq of fullySealed) this.wal.release(seq);
    if (this.head.points > 0) this.cfg.logger.info({ points: this.head.points }, 'replayed the write-ahead log');
    // A torn tail is a write a crash cut short: it was never acknowledged, so it is only noted.
    if (report.tornTailBytes > 0) this.cfg.logger.info({ bytes: report.tornTailBytes }, 'cut a torn record from the end of the write-ahead log');
    if (report.corruptSpans > 0) {
      const { damage, corruptSpans, corruptBytes, quarantined, recordsReplayed } = report;
      this.cfg.logger.error(
        { corruptSpans, corruptBytes, recordsReplayed, damage, copies: quarantined },
        'the write-ahead log held corrupt spans: every intact record around them was replayed, acknowledged records inside them are lost; the damaged segments are kept in wal/damaged/',
      );
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StrataError('STORE_CLOSED', 'the store is closed');
  }

  async write(points: readonly Point[], options: WriteOptions = {}): Promise<WriteResult> {
    this.ensureOpen();
    if (!Array.isArray(points)) throw new StrataError('INGEST_POINT_MALFORMED', 'write takes an array of points');
    return this.ingest(points.length, options, (bounds) => validateBatch(points, this.registry, bounds, this.scratch));
  }

  async writeColumns(columns: PointColumns, options: WriteOptions = {}): Promise<WriteResult> {
    this.ensureOpen();
    checkColumnsShape(columns);
    return this.ingest(columns.length, options, (bounds) => validateColumns(columns, this.registry, bounds, this.scratch));
  }

  /** The timestamps a write accepts now: the FULL retention back, INGEST_FUTURE_SKEW_MS ahead. */
  timestampBounds(): TimestampBounds {
    return this.boundsAt(this.cfg.clock.now());
  }

  private boundsAt(nowMs: number): TimestampBounds {
    return ingestBounds(nowMs, this.cfg.retention);
  }

  /** The write path after the shape checks: validate, persist new series, append to the WAL, apply to the head. */
  private ingest(size: number, options: WriteOptions, validate: (bounds: TimeBounds) => ValidatedBatch): WriteResult {
    checkBatchSize(size);
    if (size === 0) return { accepted: 0, rejected: [] };
    // No seal is forced here: one bounded turn of a seal starts if none is going (a small window
    // frees its room at once); otherwise the writer gets a 503 and retries while the seal goes on.
    if (this.head.points + size > HEAD_POINTS_MAX) this.seals.start(this.nextToSeal);
    if (this.head.points + size > HEAD_POINTS_MAX) {
      throw new StrataError('INGEST_HEAD_FULL', 'the head is full and sealing has not caught up; retry later', { headPoints: this.head.points });
    }
    const now = this.cfg.clock.now();
    const { columns, rejected } = validate(this.boundsAt(now));
    if (batchRefused(rejected.length, columns.length, options.atomic)) {
      this.registry.discardPending();
      this.rejected += rejected.length;
      return refusal(rejected, size, options.atomic);
    }
    try {
      this.registry.persist();
    } catch (error) {
      this.registry.discardPending();
      throw error;
    }
    let seq: number;
    try {
      seq = this.wal.append(columns);
    } catch (error) {
      // Nothing reaches the head unless the log has it: the series rows persisted above are
      // harmless (a name with no points), the points are refused whole with a 503.
      throw this.walDurability.appendFailed(error, now) ?? error;
    }
    this.walDurability.appendSucceeded();
    this.lastSeq = seq;
    const { windows } = this.head.apply(columns, seq, now);
    this.live.set(seq, windows);
    this.accepted += columns.length;
    this.rejected += rejected.length;
    return { accepted: columns.length, rejected };
  }

  plan(request: QueryRequest): QueryPlan {
    return planQuery(request, this.cfg.clock.now(), this.cfg.retention);
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    this.ensureOpen();
    // The planner is the one owner of every query rule (fields, select, the 1440 cap, retention).
    const plan = runnablePlan(request, this.cfg.clock.now(), this.cfg.retention);
    const id = this.registry.lookup(request.tenant, request.metric);
    if (id === undefined) return { resolution: plan.resolution, unit: null, values: [] };
    const unit = this.registry.row(id)?.unit ?? null;
    if (plan.resolution === 'FULL') {
      return { resolution: 'FULL', unit, values: valuesFromSamples(readSamples(this.reader, id, plan.readFrom, plan.to), plan.select) };
    }
    return { resolution: plan.resolution, unit, values: valuesFromBuckets(readBuckets(this.reader, plan.resolution, id, plan.readFrom, plan.to), plan.select) };
  }

  async listMetrics(tenant: string, options: ListMetricsOptions = {}): Promise<MetricPage> {
    this.ensureOpen();
    const limit = metricsPageLimit(options.limit);
    // Scans the registry's sorted names from the marker, at most METRIC_SEARCH_SCAN_NAMES_MAX of
    // them, so one call stays short whatever the tenant's size and the glob.
    const page = scanMetricNames(this.registry.namesOf(tenant), {
      matcher: options.glob === undefined ? undefined : compileGlob(options.glob),
      after: options.after,
      limit,
      scanNamesMax: METRIC_SEARCH_SCAN_NAMES_MAX,
    });
    const metrics = page.names.map((name) => ({ name, unit: this.registry.unitOf(tenant, name) }));
    return { metrics, nextAfter: page.nextAfter };
  }

  /** The next window to seal (see nextWindowToSeal); none once the store is closed. */
  private readonly nextToSeal: SealPick = () => {
    if (this.closed) return undefined;
    return nextWindowToSeal(this.head, { nowMs: this.cfg.clock.now(), graceMs: this.cfg.graceMs, fullDamaged: (start) => this.fullDamaged(start) });
  };

  /** True when compaction must leave a FULL partition alone now (see CompactionGuards.unavailable). */
  private compactionUnavailable(partitionStartMs: number): boolean {
    const endMs = partitionEndOf('FULL', partitionStartMs);
    if (this.ledger.damageOf('FULL', partitionStartMs) !== undefined) return true;
    if (this.seals.current?.partitionStartMs === partitionStartMs) return true;
    if (endMs <= expiryCutoffMs(this.cfg.clock.now(), this.cfg.retention, 'FULL')) return true;
    for (const w of this.head.windows.keys()) if (w >= partitionStartMs && w < endMs) return true;
    return false;
  }

  private fullDamaged(windowStartMs: number): boolean {
    return this.ledger.damageOf('FULL', partitionStartOf('FULL', windowStartMs)) !== undefined;
  }

  private sweep(): void {
    sweepExpired({
      nowMs: this.cfg.clock.now(),
      retention: this.cfg.retention,
      partitions: this.partitions,
      // The partition a seal is writing into stays until the seal is done.
      isReading: (res, start) =>
        this.scheduler.isReading(res, start) || (res === 'FULL' && (this.seals.current?.partitionStartMs === start || this.compaction.current === start)),
      onDropped: (res, start, endMs) => {
        this.ledger.forget(res, start);
        this.cache.invalidateBefore(res, endMs);
        this.cfg.logger.info({ resolution: res, partitionStartMs: start }, 'dropped an expired partition');
      },
      forget: (fullBeforeMs, dueBefore) => {
        // A sealed marker stays while a WAL record it covers is still on disk: forgetting it would
        // let a replay re-apply that record's old points and reseal a window whose file has expired
        // (with only the records still on disk, overwriting its rollups with partial data).
        const seqBelow = this.wal.oldestSeqOnDisk();
        this.catalog.forgetBefore(fullBeforeMs, seqBelow, dueBefore);
        for (const [res, before] of dueBefore) this.due.forgetBefore(res, before);
        for (const [w, seq] of [...this.sealed]) if (w < fullBeforeMs && seq < seqBelow) this.sealed.delete(w);
      },
    });
  }

  private maintain(): void {
    const probed = this.walDurability.probe(this.cfg.clock.now());
    if (probed === 'failed') this.cfg.logger.error({ reason: this.walDurability.reason() }, 'the write-ahead log directory cannot be written');
    if (probed === 'recovered') this.cfg.logger.info({}, 'the write-ahead log directory takes writes again');
    try {
      this.seals.start(this.nextToSeal);
      this.scheduler.pump();
      this.sweep();
      if (this.seals.current === undefined) this.compaction.startNext();
    } catch (error) {
      this.cfg.logger.error({ err: error }, 'maintenance failed');
    }
  }

  async flush(): Promise<void> {
    this.ensureOpen();
    // Seals what the head holds now, in turns like any seal, after a seal already going.
    const left = new Set(this.head.starts());
    const pick: SealPick = () => {
      for (const start of left) {
        left.delete(start);
        if (this.head.windows.has(start) && !this.fullDamaged(start)) return start;
      }
      return undefined;
    };
    while (!this.seals.start(pick)) await this.seals.settled();
    await this.seals.settled();
    await this.scheduler.drain();
    this.sweep();
  }

  /** Compacts every quiet FULL partition now (see compactStore). */
  compactNow(): Promise<CompactionResult[]> {
    this.ensureOpen();
    return this.compaction.compactAll();
  }

  /** Waits for the seal going on, if any, starting none (see sealsSettled). */
  settleSeals(): Promise<void> {
    return this.seals.settled();
  }

  /** Turns the seal runner has run (see sealTurns). */
  sealTurns(): number {
    return this.seals.turns;
  }

  /** Waits for the rollup tasks already started, starting none (see rollupsSettled). */
  settleRollups(): Promise<void> {
    return this.scheduler.settle();
  }

  stats(): StoreStats {
    // A closed store has no current figures; /healthz reads this to answer 503.
    this.ensureOpen();
    const oldest = this.due.oldestAddedMs();
    const walDamage = this.wal.damageFound();
    return {
      pointsAccepted: this.accepted,
      pointsRejected: this.rejected,
      headPoints: this.head.points,
      rollupQueueDepth: this.scheduler.active,
      rollupLagMs: oldest === undefined ? 0 : Math.max(0, this.cfg.clock.now() - oldest),
      rolledUpSources: this.scheduler.sourcePointsRolled,
      damagedPartitions: this.ledger.damagedCount,
      durable: !this.walDurability.failing,
      walCorruptSpans: walDamage.corruptSpans,
      walCorruptBytes: walDamage.corruptBytes,
      walDamagedCopies: this.wal.damagedCopies(),
    };
  }

  health(): StoreHealth {
    this.ensureOpen();
    return healthOf({ wal: this.walDurability.reason(), walFindings: this.walFindings(), damages: this.ledger.damages() });
  }

  /**
   * Damage the write-ahead log's replay found: one reason while copies of damaged segments stay in
   * wal/damaged/, so the store reads 'degraded' until an operator has looked at them and moved them
   * away (acknowledged records in the corrupt spans are lost; nothing can bring them back).
   */
  private walFindings(): HealthReason[] {
    const copies = this.wal.damagedCopies();
    if (copies === 0) return [];
    const { corruptSpans, corruptBytes } = this.wal.damageFound();
    return [
      {
        code: 'STORE_WAL_DAMAGED',
        message: `The write-ahead log held corrupt records; ${copies} damaged segment copies are kept in wal/damaged/ for inspection (strata check lists the spans). Move them away once inspected.`,
        details: { damagedCopies: copies, corruptSpansSinceOpen: corruptSpans, corruptBytesSinceOpen: corruptBytes },
      },
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    // A seal going on finishes (its pick starts no other once closed); its files must stay open.
    await this.seals.settled();
    // A compaction going on abandons at its next step (closed is set) and deletes its new file.
    await this.compaction.settled();
    await this.scheduler.settle();
    await this.pool.close();
    this.wal.close();
    this.partitions.checkpoint();
    this.partitions.close();
    this.catalog.close();
    this.unlock();
  }
}

/**
 * Opens a store on its backend: by default the embedded SQLite partitions in `options.dir`
 * (created when needed; its write-ahead log replayed), or a ClickHouse cluster when
 * `options.backend` says so (its schema created or migrated on every shard).
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const backend = options?.backend ?? 'sqlite';
  if (backend !== 'sqlite') {
    if (typeof backend !== 'object' || backend === null || backend.kind !== 'clickhouse') {
      throw configError('backend', "'sqlite' or { kind: 'clickhouse', urls, cluster }", backend, 'STORE_OPTIONS_INVALID');
    }
    return ClickHouseStore.open(resolveClickHouseOptions(backend, resolveCommonOptions(options)));
  }
  const cfg = resolveStoreOptions(options);
  // Private like every file in it; a directory that exists keeps the mode its owner gave it.
  mkdirSync(cfg.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const unlock = lockDirectory(cfg.dir);
  try {
    return new EngineStore(cfg, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * Resolves once every rollup task `store` has started has finished, without starting any. Not part
 * of Store: tests drive the background loop with fake timers and the injected clock, and wait on
 * this for the worker threads instead of sleeping.
 */
export async function rollupsSettled(store: Store): Promise<void> {
  if (!(store instanceof EngineStore)) throw new TypeError('rollupsSettled takes a store opened by openStore');
  await store.settleRollups();
}

/**
 * Resolves once the seal `store` is running, if any, has finished (or been abandoned), without
 * starting one. Not part of Store: tests wait on this for a seal that takes several turns.
 */
export async function sealsSettled(store: Store): Promise<void> {
  if (!(store instanceof EngineStore)) throw new TypeError('sealsSettled takes a store opened by openStore');
  await store.settleSeals();
}

/**
 * Compacts every FULL partition that is quiet now (no head window in it, not being sealed into,
 * not damaged, not expired) and not already compacted, one after another, and resolves with what
 * each compaction did. The store also compacts in the background; this is for embedders that
 * want it done now (before measuring disk use, or before a backup), for tests and benchmarks.
 */
export async function compactStore(store: Store): Promise<CompactionResult[]> {
  if (!(store instanceof EngineStore)) throw new TypeError('compactStore takes a store opened by openStore');
  return store.compactNow();
}

/** Turns the seal runner of `store` has run since it opened (for tests and benchmarks). */
export function sealTurns(store: Store): number {
  if (!(store instanceof EngineStore)) throw new TypeError('sealTurns takes a store opened by openStore');
  return store.sealTurns();
}
