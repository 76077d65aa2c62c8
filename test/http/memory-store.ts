// Owns a small in-memory Store for HTTP tests that must control timing (gates) or run without the engine.
import { StrataError } from '../../src/core/errors.js';
import type { Point } from '../../src/model/sample.js';
import type {
  ListMetricsOptions,
  MetricPage,
  PointRejection,
  QueryPlan,
  QueryRequest,
  QueryResult,
  Store,
  StoreStats,
  WriteResult,
} from '../../src/store-types.js';

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** An in-memory Store: FULL points only, good enough to exercise the HTTP layer. */
export class MemoryStore implements Store {
  readonly series = new Map<string, { unit: string | null; points: Map<number, number | string> }>();
  /** When set, write() waits for it before storing: tests hold requests in flight with it. */
  gate: Promise<void> | undefined;
  writes = 0;
  closed = false;

  async write(points: readonly Point[]): Promise<WriteResult> {
    if (this.closed) throw new StrataError('STORE_CLOSED', 'closed');
    if (points.length === 0) throw new StrataError('INGEST_BATCH_EMPTY', 'empty');
    if (this.gate) await this.gate;
    this.writes += 1;
    const rejected: PointRejection[] = [];
    let accepted = 0;
    points.forEach((point, index) => {
      if (point.metric === '') return rejected.push({ index, code: 'INGEST_METRIC_NAME_EMPTY', message: 'metric name is empty', field: 'metric' });
      if (!Number.isSafeInteger(point.timestamp)) return rejected.push({ index, code: 'INGEST_TIMESTAMP_INVALID', message: 'bad timestamp', field: 'timestamp' });
      if (typeof point.value === 'number' && !Number.isFinite(point.value)) {
        return rejected.push({ index, code: 'INGEST_VALUE_NOT_FINITE', message: 'not finite', field: 'value' });
      }
      const key = `${point.tenant}\u0000${point.metric}`;
      const series = this.series.get(key) ?? { unit: point.unit ?? null, points: new Map() };
      series.points.set(point.timestamp, point.value);
      this.series.set(key, series);
      accepted += 1;
      return undefined;
    });
    return { accepted, rejected };
  }

  plan(request: QueryRequest): QueryPlan {
    if (request.points === undefined && request.resolution === undefined) {
      throw new StrataError('QUERY_POINTS_OR_RESOLUTION_REQUIRED', 'points or resolution');
    }
    const expectedPoints = Math.ceil((request.to - request.from) / 30_000);
    if (request.resolution === 'FULL' && expectedPoints > 1440) {
      throw new StrataError('QUERY_POINTS_OVER_LIMIT', 'too many points', { expectedPoints });
    }
    return { resolution: 'FULL', from: request.from, to: request.to, servedFrom: request.from, expectedPoints, overLimit: false, reason: 'memory' };
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    this.plan(request);
    if (this.gate) await this.gate;
    const series = this.series.get(`${request.tenant}\u0000${request.metric}`);
    const values = [...(series?.points ?? new Map<number, number | string>())]
      .filter(([t]) => t >= request.from && t < request.to)
      .sort(([a], [b]) => a - b)
      .map(([timestamp, value]) => (typeof value === 'number' ? { timestamp, numPoints: 1, average: value } : { timestamp, numPoints: 1, value }));
    return { resolution: 'FULL', unit: series?.unit ?? null, values };
  }

  listMetrics(tenant: string, options: ListMetricsOptions = {}): MetricPage {
    const limit = options.limit ?? 100;
    const pattern = globToRegExp(options.glob ?? '*');
    const names = [...this.series.entries()]
      .filter(([key]) => key.startsWith(`${tenant}\u0000`))
      .map(([key, s]) => ({ name: key.slice(tenant.length + 1), unit: s.unit }))
      .filter((m) => pattern.test(m.name) && (options.after === undefined || m.name > options.after))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const page = names.slice(0, limit);
    return { metrics: page, nextAfter: names.length > limit ? (page[page.length - 1]?.name ?? null) : null };
  }

  async flush(): Promise<void> {}

  stats(): StoreStats {
    if (this.closed) throw new StrataError('STORE_CLOSED', 'closed');
    return { pointsAccepted: 0, pointsRejected: 0, headPoints: 0, rollupQueueDepth: 0, rollupLagMs: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
