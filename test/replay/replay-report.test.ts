// Tests the replay report: the printed table, the comparison of two reports, and refusing files that are not reports.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { REPLAY_REPORT_KIND, REPLAY_REPORT_VERSION, compareReports, parseReport, renderComparison, renderTable, type ReplayReport } from '../../src/replay/replay-report.js';
import type { RouteSummary } from '../../src/replay/replay-stats.js';

function route(name: string, p50Ms: number, p99Ms: number, requestsPerSecond: number, pointsPerSecond: number): RouteSummary {
  return { route: name, requests: 100, ok: 98, errors: 2, statusChanged: 1, p50Ms, p90Ms: p99Ms * 0.9, p99Ms, p999Ms: p99Ms * 1.5, maxMs: p99Ms * 2, meanMs: p50Ms * 1.1, points: pointsPerSecond * 10, bytesSent: 123_456, requestsPerSecond, pointsPerSecond };
}

function report(overrides: Partial<ReplayReport> = {}): ReplayReport {
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
    skipped: { refused: 0 },
    gaps: { frames: 0, dropped: 0 },
    lag: null,
    complete: true,
    ...overrides,
  };
}

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return isStrataError(error) ? error.code : 'not a StrataError';
  }
  return undefined;
}

describe('renderTable', () => {
  it('prints one aligned row per route and the total', () => {
    const text = renderTable(report());
    const lines = text.split('\n');
    const header = lines.findIndex((line) => line.startsWith('route'));
    const rows = lines.slice(header, header + 4);
    expect(rows.map((row) => row.split(/\s{2,}/)[0])).toEqual(['route', 'ingest', 'views (GET)', 'total']);
    // Right-aligned columns: every row ends at the same column.
    expect(new Set(rows.map((row) => row.length)).size).toBe(1);
    expect(rows[1]).toMatch(/ingest\s+100\s+2\s+3\.00\s+27\.00\s+30\.00\s+45\.00\s+60\.00\s+3\.30\s+10\.0\s+100000\s+10000\s+123456$/);
    expect(text).toContain('errors by status: 400 x2');
    expect(text).toContain('errors by code: ECONNRESET x2');
    expect(text).toContain('lag: n/a (--max)');
    expect(text).not.toContain('warning');
    expect(text).toContain('(--max, concurrency 2, time shift 1 d)');
    expect(renderTable(report({ options: { ...report().options, mode: 'speed', speed: 4, timeShiftsMs: [0, 5000] } }))).toContain('(--speed 4, concurrency 2, time shift none, 5000 ms)');
  });

  it('warns about the requests the recording missed, and says what was skipped, the lag and an early stop', () => {
    const text = renderTable(report({ gaps: { frames: 2, dropped: 37 }, skipped: { refused: 5 }, lag: { maxMs: 12, p99Ms: 3, lateFrames: 4 }, complete: false }));
    expect(text).toContain('warning: the recording missed 37 request(s) (2 gap frame(s))');
    expect(text).toContain('skipped 5 request(s) the recording server refused');
    expect(text).toContain('lag behind schedule: max 12 ms, p99 3 ms, 4 frame(s) late');
    expect(text).toContain('stopped early');
  });
});

describe('compareReports', () => {
  it('gives before, after and after / before per route and for the total', () => {
    const before = report();
    const after = report({
      totals: route('total', 4, 10, 40, 20_000),
      routes: [route('ingest', 6, 15, 20, 20_000), route('search', 1, 1, 5, 0)],
    });
    const rows = compareReports(before, after);
    expect(rows.map((r) => r.route)).toEqual(['ingest', 'search', 'views (GET)', 'total']);
    expect(rows[0]).toEqual({
      route: 'ingest',
      p50Ms: { before: 3, after: 6, ratio: 2 },
      p99Ms: { before: 30, after: 15, ratio: 0.5 },
      requestsPerSecond: { before: 10, after: 20, ratio: 2 },
      pointsPerSecond: { before: 10_000, after: 20_000, ratio: 2 },
    });
    expect(rows[1]?.p50Ms).toEqual({ before: null, after: 1, ratio: null });
    expect(rows[2]?.p99Ms).toEqual({ before: 10, after: null, ratio: null });
    expect(rows[3]?.requestsPerSecond).toEqual({ before: 20, after: 40, ratio: 2 });
    // A rate of 0 before has no ratio rather than an infinite one.
    expect(rows[2]?.pointsPerSecond.ratio).toBeNull();
    const text = renderComparison(rows);
    expect(text).toMatch(/ingest\s+3\.00\s+6\.00\s+x2\.00\s+30\.00\s+15\.00\s+x0\.50/);
    expect(text).toMatch(/search\s+-\s+1\.00\s+-/);
  });
});

describe('parseReport', () => {
  it('accepts a report that went through JSON', () => {
    const original = report();
    expect(parseReport(JSON.parse(JSON.stringify(original)), 'r.json')).toEqual(original);
  });

  it('refuses with CONFIG_INVALID anything that is not a replay report of this version', () => {
    for (const value of [null, [], 'text', { kind: 'something-else', version: 1 }, { version: 1, routes: [] }]) {
      expect(codeOf(() => parseReport(value, 'x.json'))).toBe('CONFIG_INVALID');
    }
    expect(codeOf(() => parseReport({ ...report(), version: 99 }, 'x.json'))).toBe('CONFIG_INVALID');
    expect(codeOf(() => parseReport({ ...report(), routes: [{ route: 'ingest' }] }, 'x.json'))).toBe('CONFIG_INVALID');
    expect(codeOf(() => parseReport({ ...report(), totals: undefined }, 'x.json'))).toBe('CONFIG_INVALID');
  });

  it('names the file and the problem in the message', () => {
    expect(() => parseReport({ kind: 'x' }, 'old/bench.json')).toThrow(/--compare old\/bench\.json is not a strata replay report/);
  });
});
