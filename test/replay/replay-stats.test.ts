// Tests replay's measurements: per-route HDR percentiles in ms of 2xx answers, error latencies apart, errors by status and code, points, bytes and rates.
import { describe, expect, it } from 'vitest';
import { REPLAY_LATENCY_US_MAX } from '../../src/replay/replay-limits.js';
import { ROUTE_SUMMARY_NUMBERS, createReplayStats, type SentRequest } from '../../src/replay/replay-stats.js';

const ingest: SentRequest = { route: 'ingest', points: 100, bytes: 2000, recordedStatus: 200 };
const view: SentRequest = { route: 'views (GET)', points: 0, bytes: 0, recordedStatus: 200 };

describe('createReplayStats', () => {
  it('gives per-route percentiles in ms from microsecond latencies', () => {
    const stats = createReplayStats();
    // 1..1000 ms: p50 = 500 ms, p90 = 900 ms, p99 = 990 ms, max = 1000 ms (HDR with 3 digits: within 0.1%).
    for (let ms = 1; ms <= 1000; ms++) stats.record(ingest, { kind: 'response', status: 200, latencyUs: ms * 1000 });
    const { routes, totals } = stats.summarize(10);
    expect(routes.map((r) => r.route)).toEqual(['ingest']);
    const r = routes[0];
    expect(r?.requests).toBe(1000);
    expect(r?.ok).toBe(1000);
    expect(r?.errors).toBe(0);
    for (const [actual, exact] of [
      [r?.p50Ms, 500],
      [r?.p90Ms, 900],
      [r?.p99Ms, 990],
      [r?.p999Ms, 999],
      [r?.maxMs, 1000],
      [r?.meanMs, 500.5],
    ] as const) {
      expect(Math.abs((actual ?? 0) - exact)).toBeLessThanOrEqual(exact * 0.001 + 0.001);
    }
    expect(r?.points).toBe(100_000);
    expect(r?.bytesSent).toBe(2_000_000);
    expect(r?.requestsPerSecond).toBe(100);
    expect(r?.okPerSecond).toBe(100);
    expect(r?.pointsPerSecond).toBe(10_000);
    expect(r?.pointsRejected).toBe(0);
    expect(r?.errorAnswers).toBe(0);
    expect(totals).toEqual({ ...r, route: 'total' });
    // Every figure of a summary is listed for the report's reader, and nothing else is.
    expect(Object.keys(totals).filter((key) => key !== 'route').sort()).toEqual([...ROUTE_SUMMARY_NUMBERS].sort());
  });

  it('keeps fast refusals out of the latency percentiles and their points out of the throughput', () => {
    const stats = createReplayStats();
    // 10 writes stored in 100 ms each; 90 refused in 1 ms each (a target that says 400 quickly).
    for (let i = 0; i < 10; i++) stats.record(ingest, { kind: 'response', status: 200, latencyUs: 100_000 });
    for (let i = 0; i < 90; i++) stats.record(ingest, { kind: 'response', status: 400, latencyUs: 1000 });
    stats.record(ingest, { kind: 'failure', code: 'ECONNRESET' });
    const r = stats.summarize(10).routes[0];
    expect(r?.requests).toBe(101);
    expect(r?.ok).toBe(10);
    expect(r?.errors).toBe(91);
    expect(r?.p50Ms).toBe(100);
    expect(r?.p99Ms).toBe(100);
    expect(r?.meanMs).toBe(100);
    expect(r?.points).toBe(10 * 100);
    expect(r?.pointsRejected).toBe(91 * 100);
    expect(r?.pointsPerSecond).toBe(100);
    expect(r?.okPerSecond).toBe(1);
    expect(r?.requestsPerSecond).toBe(10.1);
    expect(r?.errorAnswers).toBe(90);
    expect(r?.errorP50Ms).toBe(1);
    expect(r?.errorP99Ms).toBe(1);
    expect(r?.errorMaxMs).toBe(1);
  });

  it('counts errors by status and by failure code, and responses that differ from the recording', () => {
    const stats = createReplayStats();
    stats.record(ingest, { kind: 'response', status: 200, latencyUs: 500 });
    stats.record(ingest, { kind: 'response', status: 207, latencyUs: 500 });
    stats.record(ingest, { kind: 'response', status: 400, latencyUs: 500 });
    stats.record(view, { kind: 'response', status: 503, latencyUs: 500 });
    stats.record(view, { kind: 'failure', code: 'ECONNRESET' });
    stats.record(view, { kind: 'failure', code: 'ECONNRESET' });
    stats.record({ ...view, route: 'search' }, { kind: 'failure', code: 'TIMEOUT' });
    const { routes, totals, errors } = stats.summarize(1);
    expect(routes.map((r) => [r.route, r.requests, r.ok, r.errors])).toEqual([
      ['ingest', 3, 2, 1],
      ['views (GET)', 3, 0, 3],
      ['search', 1, 0, 1],
    ]);
    expect(errors).toEqual({ byStatus: { '400': 1, '503': 1 }, byCode: { ECONNRESET: 2, TIMEOUT: 1 } });
    expect(totals.requests).toBe(7);
    expect(totals.errors).toBe(5);
    // 207 and 400 and 503 differ from the recorded 200; failures have no status to compare.
    expect(totals.statusChanged).toBe(3);
    expect(stats.progress()).toEqual({ requests: 7, errors: 5 });
  });

  it('lists routes in the report order whatever order they came in, and leaves out routes without requests', () => {
    const stats = createReplayStats();
    for (const route of ['search', 'views (POST)', 'ingest/multi'] as const) stats.record({ ...view, route }, { kind: 'response', status: 200, latencyUs: 1 });
    expect(stats.summarize(1).routes.map((r) => r.route)).toEqual(['ingest/multi', 'views (POST)', 'search']);
  });

  it('clamps a latency past the histogram to its ceiling and counts the clamped values', () => {
    const stats = createReplayStats();
    stats.record(view, { kind: 'response', status: 200, latencyUs: REPLAY_LATENCY_US_MAX * 10 });
    stats.record(view, { kind: 'response', status: 500, latencyUs: REPLAY_LATENCY_US_MAX + 1 });
    stats.record(view, { kind: 'response', status: 200, latencyUs: REPLAY_LATENCY_US_MAX });
    const { totals } = stats.summarize(1);
    expect(totals.requests).toBe(3);
    expect(totals.latencyClamped).toBe(2);
    expect(totals.maxMs).toBeGreaterThanOrEqual(REPLAY_LATENCY_US_MAX / 1000);
    expect(totals.maxMs).toBeLessThanOrEqual((REPLAY_LATENCY_US_MAX / 1000) * 1.001);
  });

  it('reports zeros, not NaN, for an empty run or a zero-second one', () => {
    const empty = createReplayStats().summarize(0);
    expect(empty.routes).toEqual([]);
    expect(Object.values(empty.totals).filter((v) => typeof v === 'number' && !Number.isFinite(v))).toEqual([]);
    const stats = createReplayStats();
    stats.record(ingest, { kind: 'response', status: 200, latencyUs: 10 });
    expect(stats.summarize(0).totals.pointsPerSecond).toBe(0);
  });
});
