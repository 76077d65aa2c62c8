// The one public barrel of Strata: openStore, the store's types, the error type and its codes.
export { compactStore, openStore } from './store.js';
export type { CompactionResult } from './ingest/compactor.js';
export type {
  ListMetricsOptions,
  MetricInfo,
  MetricPage,
  PointRejection,
  QueryPlan,
  QueryRequest,
  QueryResult,
  QueryValue,
  SelectStat,
  HealthReason,
  Store,
  StoreHealth,
  StoreLogger,
  StoreOptions,
  StoreStats,
  WriteOptions,
  WriteResult,
} from './store-types.js';
export { collectMetrics, type CollectMetricsOptions } from './store-metric-pages.js';
export type { Point } from './model/sample.js';
export { PointColumnsBuilder, type PointColumns } from './model/point-columns.js';
export { RESOLUTIONS, DEFAULT_RETENTION_MS, type Resolution, type RetentionTable } from './model/resolution.js';
export { ERROR_CODES, StrataError, isStrataError, type ErrorCode, type ErrorKind } from './core/errors.js';
export { ManualClock, systemClock, type Clock } from './core/clock.js';
export { QUERY_POINTS_MAX, INGEST_BATCH_POINTS_MAX } from './core/limits.js';
