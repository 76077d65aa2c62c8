// Owns the server's Prometheus metrics: one prom-client Registry per server, never the global one.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MonitoringRuntime, RuntimeStats } from '../monitoring/monitoring-runtime.js';
import type { Store } from '../store-types.js';
import type { Admission } from './admission.js';

/** Latency buckets in seconds: sub-millisecond plots up to multi-second batches. */
const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The counters and histograms the routes update, and the registry /metrics renders. */
export interface ServerMetrics {
  readonly registry: Registry;
  readonly pointsIngested: Counter<'format'>;
  readonly pointsRejected: Counter<'format'>;
  /** Points the protocol endpoints skip by design (NaN and infinite values, Prometheus staleness markers, OTLP points with no recorded value). */
  readonly pointsSkipped: Counter<'format'>;
  readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly admissionRejected: Counter<'work'>;
  /** Renders the registry in the text exposition format, reading the store's stats once for all its gauges. */
  scrape(): Promise<string>;
}

/** Creates the server's registry: request latency, ingest counters, queue depth and the store's own gauges. */
export function createServerMetrics(store: Store, admission: Admission, options: { processMetrics: boolean; runtime?: MonitoringRuntime }): ServerMetrics {
  const registry = new Registry();
  // One read of the store per scrape: stats() lists wal/damaged/, and every store gauge needs it.
  let snapshot: ReturnType<Store['stats']> | undefined;
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'strata_' });
  const metrics: ServerMetrics = {
    registry,
    pointsIngested: new Counter({ name: 'strata_points_ingested_total', help: 'Points accepted durably through the ingest, Prometheus remote write and OTLP APIs, by format.', labelNames: ['format'], registers: [registry] }),
    pointsRejected: new Counter({ name: 'strata_points_rejected_total', help: 'Points rejected by the ingest, Prometheus remote write and OTLP APIs, per point, by format.', labelNames: ['format'], registers: [registry] }),
    pointsSkipped: new Counter({
      name: 'strata_points_skipped_total',
      help: 'Points the Prometheus and OTLP endpoints skip by design and do not store: NaN and infinite values (staleness markers), points with no recorded value.',
      labelNames: ['format'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'strata_http_request_duration_seconds',
      help: 'HTTP request latency from arrival to the last byte sent.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS_S,
      registers: [registry],
    }),
    admissionRejected: new Counter({
      name: 'strata_admission_rejected_total',
      help: 'Requests shed: refused with 503 and Retry-After by admission (an in-flight budget or a full queue) before any work started.',
      labelNames: ['work'],
      registers: [registry],
    }),
    scrape: async () => {
      try {
        snapshot = store.stats();
      } catch {
        // A closed store has no stats: the store gauges keep their last values rather than failing the scrape.
        snapshot = undefined;
      }
      return registry.metrics();
    },
  };
  addAdmissionGauges(registry, admission);
  if (options.runtime !== undefined) addRuntimeMetrics(registry, options.runtime);
  const storeGauge = (name: string, help: string, read: (stats: ReturnType<Store['stats']>) => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        if (snapshot !== undefined) this.set(read(snapshot));
      },
    });
  };
  storeGauge('strata_rollup_lag_seconds', 'Age of the oldest rollup work that is due, 0 when none is.', (stats) => stats.rollupLagMs / 1000);
  storeGauge('strata_rollup_queue_depth', 'Rollup tasks waiting for a worker.', (stats) => stats.rollupQueueDepth);
  storeGauge('strata_head_points', 'Points held in the in-memory head, not yet sealed.', (stats) => stats.headPoints);
  storeGauge('strata_store_points_accepted', 'Points the store accepted since it opened (all clients).', (stats) => stats.pointsAccepted);
  storeGauge('strata_store_points_rejected', 'Points the store rejected since it opened (all clients).', (stats) => stats.pointsRejected);
  storeGauge('strata_store_damaged_partitions', 'Partitions found damaged or lost; queries that need them fail until strata check --repair.', (stats) => stats.damagedPartitions ?? 0);
  storeGauge('strata_wal_corrupt_spans', 'Corrupt spans the write-ahead log replay stepped over since the store opened (acknowledged records in them are lost).', (stats) => stats.walCorruptSpans);
  storeGauge('strata_wal_corrupt_bytes', 'Bytes in the corrupt write-ahead log spans replay stepped over since the store opened.', (stats) => stats.walCorruptBytes);
  storeGauge('strata_wal_damaged_copies', 'Copies of damaged write-ahead log segments kept in wal/damaged/ for inspection.', (stats) => stats.walDamagedCopies);
  storeGauge('strata_store_durable', '1 while write-ahead log appends succeed, 0 while they fail (ingest answers 503).', (stats) => (stats.durable === false ? 0 : 1));
  return metrics;
}

/** The admission gauges: in-flight requests and body bytes per kind, which budget refused how often, queue depths. */
function addAdmissionGauges(registry: Registry, admission: Admission): void {
  new Gauge({
    name: 'strata_admission_in_flight_requests',
    help: 'Requests admitted and not yet answered, per kind of work.',
    labelNames: ['work'],
    registers: [registry],
    collect() {
      for (const [work, inFlight] of admission.inFlight()) this.set({ work }, inFlight.requests);
    },
  });
  new Gauge({
    name: 'strata_admission_in_flight_body_bytes',
    help: 'Body bytes (declared, or the body limit for a chunked body) of requests admitted and not yet answered, per kind of work.',
    labelNames: ['work'],
    registers: [registry],
    collect() {
      for (const [work, inFlight] of admission.inFlight()) this.set({ work }, inFlight.bodyBytes);
    },
  });
  new Counter({
    name: 'strata_admission_budget_refusals_total',
    help: 'Requests refused at arrival, per kind of work and the budget that refused them (scope server or tenant, limit requests or bodyBytes).',
    labelNames: ['work', 'scope', 'limit'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { kind, scope, limit, count } of admission.refusals()) this.inc({ work: kind, scope, limit }, count);
    },
  });
  new Gauge({
    name: 'strata_admission_queue_depth',
    help: 'Requests running or waiting in each admission queue.',
    labelNames: ['work', 'state'],
    registers: [registry],
    collect() {
      for (const [work, depth] of admission.depths()) {
        this.set({ work, state: 'running' }, depth.running);
        this.set({ work, state: 'waiting' }, depth.waiting);
      }
    },
  });
}

/**
 * The monitoring runtime's metrics: check start lag, runs by type and outcome, skipped runs, the
 * run queue, the result sink and the notification outbox. One stats() read per scrape feeds them all.
 */
function addRuntimeMetrics(registry: Registry, runtime: MonitoringRuntime): void {
  let stats: RuntimeStats | undefined;
  // The first collector of a scrape reads the stats; the others reuse them (collect runs in registration order).
  const read = (): RuntimeStats => (stats = runtime.stats());
  const last = (): RuntimeStats => stats ?? read();
  new Gauge({
    name: 'strata_check_lag_seconds',
    help: 'Check start lag (start time minus due time) over the most recent runs, by quantile (0.5, 0.99); quantile 1 is the largest of them or the age of the most overdue run still waiting, whichever is more.',
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      const { runs, scheduler } = read();
      this.set({ quantile: '0.5' }, runs.lag.p50Ms / 1000);
      this.set({ quantile: '0.99' }, runs.lag.p99Ms / 1000);
      this.set({ quantile: '1' }, Math.max(runs.lag.maxMs, scheduler.oldestWaitingMs) / 1000);
    },
  });
  new Counter({
    name: 'strata_check_runs_total',
    help: 'Check runs (one check from one zone) since start, by check type and outcome (available, unavailable, error: the probe failed).',
    labelNames: ['type', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { type, outcome, count } of last().runs.runs) this.inc({ type, outcome }, count);
    },
  });
  new Counter({
    name: 'strata_check_runs_skipped_total',
    help: 'Check runs that were due and did not run, by reason: queue_full (the run queue was full), overlap (the previous run of the same check and zone was still going), behind (the scheduler fell a period or more behind).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(last().runs.skipped)) this.inc({ reason }, count);
    },
  });
  new Gauge({
    name: 'strata_check_queue_depth',
    help: 'Check runs in flight (running) and due runs waiting for a run slot (waiting).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { scheduler } = last();
      this.set({ state: 'running' }, scheduler.running);
      this.set({ state: 'waiting' }, scheduler.waiting);
    },
  });
  new Gauge({
    name: 'strata_check_slots',
    help: 'Scheduled (check, zone) pairs this process runs.',
    registers: [registry],
    collect() {
      this.set(last().scheduler.slots);
    },
  });
  new Counter({
    name: 'strata_check_points_total',
    help: 'Check metric points by fate: written to the engine, rejected by it, or dropped (a failed write, or the sink over its bound).',
    labelNames: ['fate'],
    registers: [registry],
    collect() {
      const { sink } = last();
      this.reset();
      this.inc({ fate: 'written' }, sink.pointsWritten);
      this.inc({ fate: 'rejected' }, sink.pointsRejected);
      this.inc({ fate: 'dropped' }, sink.pointsDropped);
    },
  });
  new Gauge({
    name: 'strata_delivery_pending',
    help: 'Notification deliveries in the outbox waiting for an attempt or a retry.',
    registers: [registry],
    collect() {
      const { delivery } = last();
      if (delivery !== undefined) this.set(delivery.pending);
    },
  });
  new Gauge({
    name: 'strata_delivery_dead',
    help: 'Notification deliveries that exhausted their attempts (dead letters, listed by the outbox API).',
    registers: [registry],
    collect() {
      const { delivery } = last();
      if (delivery !== undefined) this.set(delivery.dead);
    },
  });
}
