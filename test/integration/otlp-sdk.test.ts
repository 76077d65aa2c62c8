// Owns the end-to-end tests of OTLP metrics ingest: the OpenTelemetry JS SDK with its own JSON and protobuf exporters sending to `strata serve`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSeriesMetricName } from '../../src/wire/series-name.js';
import { ensureBuilt, runCli, startServe, tokenFor, type ServeProcess } from './serve-process.js';
import { searchMetrics, storedPoints } from './strata-reads.js';

const TENANT = 't1';
const STEP_TIMEOUT_MS = 120_000;
/** Long enough that the periodic reader never exports on its own: the test exports with forceFlush. */
const EXPORT_INTERVAL_MS = 3_600_000;
/** A pause between the two flushes, so their cumulative points carry different millisecond timestamps. */
const FLUSH_GAP_MS = 20;
const BOUNDARIES = [1, 10, 100];

/** ExportResultCode.SUCCESS of @opentelemetry/core (not a direct dependency, so not imported). */
const EXPORT_SUCCESS = 0;

type ExporterKind = 'json' | 'proto';
type ExportResult = Parameters<Parameters<PushMetricExporter['export']>[1]>[0];

/**
 * Wraps an SDK exporter and keeps each export's result: the periodic reader hands a failed export
 * to the global error handler (a log line), so forceFlush resolves even when Strata refused the
 * request, and the test must look at the results itself.
 */
function recording(inner: PushMetricExporter): { exporter: PushMetricExporter; results: ExportResult[] } {
  const results: ExportResult[] = [];
  const exporter: PushMetricExporter = {
    export: (metrics, done) => inner.export(metrics, (result) => (results.push(result), done(result))),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
  if (inner.selectAggregationTemporality) exporter.selectAggregationTemporality = inner.selectAggregationTemporality.bind(inner);
  if (inner.selectAggregation) exporter.selectAggregation = inner.selectAggregation.bind(inner);
  return { exporter, results };
}

/** 'ok', or the refusal as the exporter saw it: HTTP status, message and response body. */
function describeResult(result: ExportResult): string {
  if (result.code === EXPORT_SUCCESS) return 'ok';
  const error = result.error as (Error & { code?: number; data?: string }) | undefined;
  return `${error?.code ?? ''} ${error?.message ?? ''} ${error?.data ?? ''}`;
}

function exporterOf(kind: ExporterKind, url: string, token: string): { exporter: PushMetricExporter; results: ExportResult[] } {
  const options = { url: `${url}/otlp/${TENANT}/v1/metrics`, headers: { 'X-Auth-Token': token } };
  return recording(kind === 'json' ? new JsonMetricExporter(options) : new ProtoMetricExporter(options));
}

/** The series a test expects, named with the job and instance its resource maps to. */
function expectedSeries(job: string, instance: string): Map<string, number[]> {
  const base = `instance="${instance}",job="${job}"`;
  return new Map([
    [`e2e_otlp_heap_used{area="young",${base}}`, [42.5, 43.5]],
    [`e2e_otlp_requests_total{${base},route="a"}`, [7, 12]],
    [`e2e_otlp_latency_count{${base},route="a"}`, [4, 5]],
    [`e2e_otlp_latency_sum{${base},route="a"}`, [555.5, 560.5]],
  ]);
}

/** Cumulative bucket counts after the first and the second flush, by upper bound. */
const EXPECTED_BUCKETS = new Map<number, number[]>([
  [1, [1, 1]],
  [10, [2, 3]],
  [100, [3, 4]],
  [Infinity, [4, 5]],
]);

describe('OTLP metrics from the OpenTelemetry JS SDK', () => {
  let dir: string;
  let strata: ServeProcess;
  let token: string;
  let startMs: number;
  const providers: MeterProvider[] = [];

  beforeAll(async () => {
    ensureBuilt();
    startMs = Date.now();
    dir = mkdtempSync(join(tmpdir(), 'strata-otlp-e2e-'));
    runCli(['user', 'create', '--data', dir, '--username', 'sdk', '--tenant', TENANT, '--api-key', 'sdk-api-key-0123456789']);
    strata = await startServe(dir);
    token = await tokenFor(strata.url, 'sdk', 'sdk-api-key-0123456789');
  }, STEP_TIMEOUT_MS);

  afterAll(async () => {
    for (const provider of providers) await provider.shutdown().catch(() => undefined);
    if (strata) {
      strata.child.kill('SIGTERM');
      await strata.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, STEP_TIMEOUT_MS);

  /** Records a gauge, a counter and a histogram, exporting twice; returns the job and instance of its resource. */
  async function sendWith(kind: ExporterKind): Promise<{ job: string; instance: string }> {
    const job = `e2e-${kind}`;
    const instance = `host-${kind}`;
    const { exporter, results } = exporterOf(kind, strata.url, token);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: EXPORT_INTERVAL_MS });
    const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': job, 'service.instance.id': instance }), readers: [reader] });
    providers.push(provider);
    const meter = provider.getMeter('e2e');
    let heapUsed = 42.5;
    meter.createObservableGauge('e2e.otlp.heap-used').addCallback((result) => result.observe(heapUsed, { area: 'young' }));
    const counter = meter.createCounter('e2e.otlp.requests');
    const histogram = meter.createHistogram('e2e.otlp.latency', { advice: { explicitBucketBoundaries: BOUNDARIES } });
    counter.add(3, { route: 'a' });
    counter.add(4, { route: 'a' });
    for (const value of [0.5, 5, 50, 500]) histogram.record(value, { route: 'a' });
    await provider.forceFlush();
    await new Promise((resolve) => setTimeout(resolve, FLUSH_GAP_MS));
    heapUsed = 43.5;
    counter.add(5, { route: 'a' });
    histogram.record(5, { route: 'a' });
    await provider.forceFlush();
    // Two exports, both accepted; a refusal shows Strata's answer (the exporter's error carries status and body).
    expect(results.map(describeResult)).toEqual(['ok', 'ok']);
    return { job, instance };
  }

  async function valuesOf(name: string): Promise<number[]> {
    const points = await storedPoints(strata.url, TENANT, token, name, startMs - 60_000, Date.now() + 60_000);
    for (let i = 1; i < points.length; i++) expect((points[i] ?? [0])[0]).toBeGreaterThan((points[i - 1] ?? [0])[0]);
    return points.map(([, value]) => value);
  }

  for (const kind of ['json', 'proto'] as const) {
    it(`stores the gauge, the counter as _total and the histogram as _count, _sum and _bucket (${kind} exporter)`, async () => {
      const { job, instance } = await sendWith(kind);
      const mine = (await searchMetrics(strata.url, TENANT, token, 'e2e_otlp_*')).filter((name) =>
        parseSeriesMetricName(name).labels.some((label) => label.name === 'job' && label.value === job),
      );
      const expected = expectedSeries(job, instance);
      for (const [name, values] of expected) expect(await valuesOf(name), name).toEqual(values);

      const buckets = mine.filter((name) => name.startsWith('e2e_otlp_latency_bucket{'));
      const seen = new Map<number, number[]>();
      for (const name of buckets) {
        const labels = new Map(parseSeriesMetricName(name).labels.map((label) => [label.name, label.value]));
        expect([...labels.keys()], name).toEqual(['instance', 'job', 'le', 'route']);
        expect(labels.get('instance')).toBe(instance);
        expect(labels.get('route')).toBe('a');
        const le = labels.get('le') as string;
        seen.set(le === '+Inf' ? Infinity : Number(le), await valuesOf(name));
      }
      expect(seen).toEqual(EXPECTED_BUCKETS);
      // Nothing else was derived: the gauge, the counter and the histogram's series, each once.
      expect(mine.sort()).toEqual([...expected.keys(), ...buckets].sort());
    }, STEP_TIMEOUT_MS);
  }
});
