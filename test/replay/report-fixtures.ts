// Owns made-up replay reports for the report tests: a route summary and a whole report with overridable parts.
import { REPLAY_REPORT_KIND, REPLAY_REPORT_VERSION, type ReplayReport } from '../../src/replay/replay-report.js';
import type { RouteSummary } from '../../src/replay/replay-stats.js';

/** A route's summary; `okPerSecond` the throughput of 2xx answers. */
export function route(name: string, p50Ms: number, p99Ms: number, okPerSecond: number, pointsPerSecond: number): RouteSummary {
  return {
    route: name,
    requests: 100,
    ok: 98,
    errors: 2,
    statusChanged: 1,
    p50Ms,
    p90Ms: p99Ms * 0.9,
    p99Ms,
    p999Ms: p99Ms * 1.5,
    maxMs: p99Ms * 2,
    meanMs: p50Ms * 1.1,
    errorAnswers: 0,
    errorP50Ms: 0,
    errorP99Ms: 0,
    errorMaxMs: 0,
    latencyClamped: 0,
    points: pointsPerSecond * 10,
    pointsRejected: 0,
    bytesSent: 123_456,
    requestsPerSecond: okPerSecond + 0.2,
    okPerSecond,
    pointsPerSecond,
  };
}

/** A whole report with made-up figures. */
export function report(overrides: Partial<ReplayReport> = {}): ReplayReport {
  return {
    kind: REPLAY_REPORT_KIND,
    version: REPLAY_REPORT_VERSION,
    target: 'http://127.0.0.1:19000/',
    recordings: [{ path: 'rec.bin', sizeBytes: 1000, producer: 'strata 0.1.0 serve', sequence: 0, startedAt: '2026-01-01T00:00:00.000Z' }],
    startedAt: '2026-01-02T00:00:00.000Z',
    seconds: 10,
    options: { mode: 'max', speed: null, concurrency: 2, timeShift: 'auto', timeShiftsMs: [86_400_000], tenantMap: {}, fallbackTenant: '100000', includeRefused: false },
    totals: route('total', 2, 20, 20, 10_000),
    routes: [route('ingest', 3, 30, 10, 10_000), route('views (GET)', 1, 10, 10, 0)],
    errors: { byStatus: { '400': 2 }, byCode: { ECONNRESET: 2 } },
    skipped: { refused: 0, notRecordedRoute: 0 },
    gaps: { frames: 0, dropped: 0 },
    lag: null,
    complete: true,
    ...overrides,
  };
}
