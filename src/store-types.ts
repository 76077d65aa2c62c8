// Owns the public shapes of the embeddable store: options, requests, results and the Store interface.
import type { Clock } from './core/clock.js';
import type { PointColumns } from './model/point-columns.js';
import type { Point } from './model/sample.js';
import type { Resolution, RetentionTable } from './model/resolution.js';

/** A statistic a query may select; numPoints is always present. */
export type SelectStat = 'average' | 'variance' | 'min' | 'max';

/**
 * The ClickHouse backend: a cluster of shards that Strata drives over HTTP. Strata creates and
 * migrates its schema on every shard itself (no ZooKeeper, no ON CLUSTER).
 */
export interface ClickHouseBackendOptions {
  readonly kind: 'clickhouse';
  /** The HTTP URL of every shard, in the cluster's shard order; the first also takes the Distributed reads and writes. */
  readonly urls: readonly string[];
  /** The cluster name in the servers' remote_servers configuration (its shards must be `urls`, in order). */
  readonly cluster: string;
  /** The database Strata owns on every shard (default 'strata'); created when missing. */
  readonly database?: string;
  readonly username?: string;
  readonly password?: string;
  /** How long one statement may take before its shard counts as unavailable (default CLICKHOUSE_REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
}

/** Which storage backend a store runs on: the embedded SQLite partitions (default) or a ClickHouse cluster. */
export type StoreBackend = 'sqlite' | ClickHouseBackendOptions;

/** Options of openStore. Everything has a default but `dir`, which the SQLite backend needs. */
export interface StoreOptions {
  /** Directory holding every data file; created when missing. Required by the SQLite backend; the ClickHouse backend keeps no files. */
  readonly dir?: string;
  /** The storage backend (default 'sqlite'). */
  readonly backend?: StoreBackend;
  /** Clock for validation, sealing, rollups and retention (default: the system clock). */
  readonly clock?: Clock;
  /** Retention per resolution in ms; partial tables override the defaults. */
  readonly retention?: Partial<RetentionTable>;
  /** Wait after a window closes before it is sealed and rolled up (default 5 minutes). */
  readonly graceMs?: number;
  /** Rollup worker threads (default: 1 on a 2-core machine, cores - 1 otherwise). 0 runs rollups inline. */
  readonly workers?: number;
  /** Run sealing, rollups and the sweeper on a timer (default true). Tests turn it off and call flush(). */
  readonly background?: boolean;
  /** 'normal' survives a process crash (kill -9); 'full' also survives power loss, at a cost (default 'normal'). */
  readonly durability?: 'normal' | 'full';
  /** A pino-compatible logger; silent by default. */
  readonly logger?: StoreLogger;
}

/** The subset of a pino logger the store uses. */
export interface StoreLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Why one point of a batch was rejected. */
export interface PointRejection {
  /** Index of the point in the batch. */
  readonly index: number;
  readonly code: string;
  readonly message: string;
  /** Which field was wrong: tenant, metric, timestamp, value or unit. */
  readonly field: string;
}

/** What a write did: how many points are durable and which were rejected and why. */
export interface WriteResult {
  readonly accepted: number;
  readonly rejected: readonly PointRejection[];
}

/** Options of a write. */
export interface WriteOptions {
  /** When true (default false), a batch with any bad point is rejected whole. */
  readonly atomic?: boolean;
}

/** A query of one series over [from, to). */
export interface QueryRequest {
  readonly tenant: string;
  readonly metric: string;
  /** Range start, integer ms, inclusive. */
  readonly from: number;
  /** Range end, integer ms, exclusive. */
  readonly to: number;
  /** Desired number of points; the planner picks a resolution. */
  readonly points?: number;
  /** Resolution to use as given. */
  readonly resolution?: Resolution | string;
  /** Statistics to return besides numPoints (default: average). */
  readonly select?: readonly (SelectStat | string)[];
}

/** The planner's decision for a request, made without reading data. */
export interface QueryPlan {
  readonly resolution: Resolution;
  readonly from: number;
  readonly to: number;
  /** Start of the part of the range that is served: data older than the retention is never returned. */
  readonly servedFrom: number;
  /**
   * Start of what is read: servedFrom for FULL; for a rollup the first bucket start that is in the
   * range and not expired (a bucket is served only when its start is within the retention).
   */
  readonly readFrom: number;
  /** Points the resolution yields over the range (FULL counts one per 30 s). */
  readonly expectedPoints: number;
  /** True when expectedPoints exceeds QUERY_POINTS_MAX: the query would fail. */
  readonly overLimit: boolean;
  /** The statistics to return besides numPoints, validated (default ['average']). */
  readonly select: readonly SelectStat[];
  /** Plain-language account of the decision. */
  readonly reason: string;
}

/** One value of a query result: a raw point (numPoints 1) or a rollup bucket. */
export interface QueryValue {
  /** Bucket start (or the raw point's time), integer ms. */
  readonly timestamp: number;
  readonly numPoints: number;
  /** Mean of the numeric values; null when the bucket holds only string values. */
  readonly average?: number | null;
  readonly variance?: number | null;
  readonly min?: number | null;
  readonly max?: number | null;
  /** A raw string value (FULL only). */
  readonly value?: string;
}

/** A query result. */
export interface QueryResult {
  readonly resolution: Resolution;
  readonly unit: string | null;
  readonly values: readonly QueryValue[];
}

/** One entry of listMetrics. */
export interface MetricInfo {
  readonly name: string;
  readonly unit: string | null;
}

/** Options of listMetrics: a glob (`*` and `?`), a page size and a marker to start after. */
export interface ListMetricsOptions {
  /** Names must match it: `*` any run of characters (empty too), `?` one UTF-16 code unit, anything else itself. */
  readonly glob?: string;
  /** Most names in the page, 1 to METRICS_PAGE_MAX (default METRICS_PAGE_DEFAULT). */
  readonly limit?: number;
  /** Name after which the page starts (exclusive). */
  readonly after?: string;
}

/**
 * A page of metrics. One call tests at most METRIC_SEARCH_SCAN_NAMES_MAX names against the glob,
 * so a page may be short, even empty, while more matches follow: only `nextAfter === null` means
 * the listing is complete. Following `nextAfter` until it is null yields every matching name
 * exactly once, in order (names registered meanwhile appear when they sort after the marker).
 */
export interface MetricPage {
  readonly metrics: readonly MetricInfo[];
  /**
   * Name to pass as `after` for the next page; null on the last page. The page's last name when
   * the page is full, the last name tested when the scan budget ran out first.
   */
  readonly nextAfter: string | null;
}

/** Counters a server exposes on /metrics. */
export interface StoreStats {
  readonly pointsAccepted: number;
  readonly pointsRejected: number;
  readonly headPoints: number;
  readonly rollupQueueDepth: number;
  /** Age in ms of the oldest due rollup work, 0 when none is due. */
  readonly rollupLagMs: number;
  /** Source points (FULL) and source buckets (coarser levels) rolled up since the store opened. */
  readonly rolledUpSources: number;
  /** Partitions known to be damaged or lost (queries that need them fail with STORE_PARTITION_DAMAGED). */
  readonly damagedPartitions: number;
  /** False while write-ahead log appends fail (ingest answers STORE_NOT_DURABLE). */
  readonly durable: boolean;
  /** Corrupt spans the write-ahead log's replay stepped over since the store opened (records in them are lost). */
  readonly walCorruptSpans: number;
  /** Bytes in those spans. */
  readonly walCorruptBytes: number;
  /** Copies of damaged segments kept under wal/damaged/ for inspection (never deleted automatically). */
  readonly walDamagedCopies: number;
}

/** One reason a store is not fully healthy, shaped like an error: a stable code, a sentence, details. */
export interface HealthReason {
  /** The error code of the condition (STORE_PARTITION_DAMAGED, STORE_NOT_DURABLE, ...). */
  readonly code: string;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * What the store can promise now. ok: nothing is wrong. degraded: some data cannot be served (a
 * damaged or lost partition; damage found in the write-ahead log) but every write it accepts is
 * durable. unavailable: writes cannot be made durable (the write-ahead log cannot be written), so
 * ingest fails until it can.
 */
export interface StoreHealth {
  readonly status: 'ok' | 'degraded' | 'unavailable';
  /** Empty when ok; otherwise every reason, the ones that make it unavailable first. */
  readonly reasons: readonly HealthReason[];
}

/** The embeddable store. */
/** The timestamps a write accepts now, both ends inclusive: older is INGEST_TIMESTAMP_TOO_OLD, newer INGEST_TIMESTAMP_IN_FUTURE. */
export interface TimestampBounds {
  readonly oldestMs: number;
  readonly newestMs: number;
}

export interface Store {
  /** Validates and durably appends a batch; resolves once every accepted point is on disk. */
  write(points: readonly Point[], options?: WriteOptions): Promise<WriteResult>;
  /**
   * The same as write for a batch in columns (see PointColumnsBuilder): no object per point, the
   * fast path. Rejection indexes are column positions. The columns may be reused once it returns.
   */
  writeColumns(columns: PointColumns, options?: WriteOptions): Promise<WriteResult>;
  /** Plans and runs a query. */
  query(request: QueryRequest): Promise<QueryResult>;
  /** The planner's decision, without reading data. */
  plan(request: QueryRequest): QueryPlan;
  /** Metric names of a tenant, sorted, paged; a page may be short before the end (see MetricPage). Errors reject the promise. */
  listMetrics(tenant: string, options?: ListMetricsOptions): Promise<MetricPage>;
  /** Seals every window and runs every rollup due (ignoring the grace), then sweeps. */
  flush(): Promise<void>;
  /** Current counters. */
  stats(): StoreStats;
  /** The timestamps a write accepts now (the FULL retention back, INGEST_FUTURE_SKEW_MS ahead): the one owner of that rule. */
  timestampBounds(): TimestampBounds;
  /**
   * What the store can promise now, with the reasons (throws STORE_CLOSED once closed). Optional so
   * wrappers and other backends may leave it out: they are taken as healthy while stats() answers.
   */
  health?(): StoreHealth;
  /** Makes everything durable, stops workers and closes files. */
  close(): Promise<void>;
}
