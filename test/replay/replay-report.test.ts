// Tests the replay report: the printed table (2xx figures, error latencies, skipped and clamped counts) and the comparison of two reports.
import { describe, expect, it } from 'vitest';
import { compareReports, renderComparison, renderTable } from '../../src/replay/replay-report.js';
import { report, route } from './report-fixtures.js';

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
    expect(text).toContain('latencies, ok/s and points count 2xx answers only');
    expect(rows[0]).toContain('ok/s');
    expect(text).toContain('errors by status: 400 x2');
    expect(text).toContain('errors by code: ECONNRESET x2');
    expect(text).toContain('lag: n/a (--max)');
    expect(text).not.toContain('warning');
    expect(text).toContain('(--max, concurrency 2, time shift 1 d)');
    expect(renderTable(report({ options: { ...report().options, mode: 'speed', speed: 4, timeShiftsMs: [0, 5000] } }))).toContain('(--speed 4, concurrency 2, time shift none, 5000 ms)');
  });

  it('warns about the requests the recording missed, and says what was skipped, the lag and an early stop', () => {
    const text = renderTable(report({ gaps: { frames: 2, dropped: 37 }, skipped: { refused: 5, notRecordedRoute: 3 }, lag: { maxMs: 12, p99Ms: 3, lateFrames: 4 }, complete: false }));
    expect(text).toContain('warning: the recording missed 37 request(s) (2 gap frame(s))');
    expect(text).toContain('skipped 5 request(s) the recording server refused');
    expect(text).toContain('skipped: not a recorded route: 3 request(s)');
    expect(text).toContain('lag behind schedule: max 12 ms, p99 3 ms, 4 frame(s) late');
    expect(text).toContain('stopped early');
  });

  it('prints the latencies of error answers, the points of failed requests and the clamped latencies apart from the table', () => {
    const ingest = { ...route('ingest', 3, 30, 10, 10_000), errorAnswers: 4, errorP50Ms: 0.5, errorP99Ms: 1.25, errorMaxMs: 2 };
    const text = renderTable(report({ routes: [ingest], totals: { ...route('total', 3, 30, 10, 10_000), pointsRejected: 400, latencyClamped: 2 } }));
    expect(text).toContain('latency of error answers (ms): ingest x4 p50 0.50 p99 1.25 max 2.00');
    expect(text).toContain('points of requests not answered 2xx (left out of points and points/s): 400');
    expect(text).toMatch(/2 latency value\(s\) above 120 s were recorded as 120 s/);
    const quiet = renderTable(report());
    expect(quiet).not.toContain('latency of error answers');
    expect(quiet).not.toContain('not answered 2xx');
    expect(quiet).not.toContain('clamped');
    expect(quiet).not.toContain('not a recorded route');
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
      okPerSecond: { before: 10, after: 20, ratio: 2 },
      pointsPerSecond: { before: 10_000, after: 20_000, ratio: 2 },
    });
    expect(rows[1]?.p50Ms).toEqual({ before: null, after: 1, ratio: null });
    expect(rows[2]?.p99Ms).toEqual({ before: 10, after: null, ratio: null });
    expect(rows[3]?.okPerSecond).toEqual({ before: 20, after: 40, ratio: 2 });
    // A rate of 0 before has no ratio rather than an infinite one.
    expect(rows[2]?.pointsPerSecond.ratio).toBeNull();
    const text = renderComparison(rows);
    expect(text).toMatch(/ingest\s+3\.00\s+6\.00\s+x2\.00\s+30\.00\s+15\.00\s+x0\.50/);
    expect(text).toMatch(/search\s+-\s+1\.00\s+-/);
  });
});
