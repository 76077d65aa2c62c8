// Tests reading a previous report for --compare: strict figures (finite, not negative, not huge), this version only, and a bounded file size.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { REPLAY_REPORT_BYTES_MAX } from '../../src/replay/replay-limits.js';
import { parseReport, readReportFile } from '../../src/replay/replay-report-file.js';
import { ROUTE_SUMMARY_NUMBERS } from '../../src/replay/replay-stats.js';
import { report, route } from './report-fixtures.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return isStrataError(error) ? error.code : 'not a StrataError';
  }
  return undefined;
}

/** The report through JSON, with `edit` applied to the parsed copy. */
function edited(edit: (value: any) => void): unknown {
  const value = JSON.parse(JSON.stringify(report()));
  edit(value);
  return value;
}

describe('parseReport', () => {
  it('accepts a report that went through JSON', () => {
    const original = report({ lag: { maxMs: 3, p99Ms: 1, lateFrames: 2 } });
    expect(parseReport(JSON.parse(JSON.stringify(original)), 'r.json')).toEqual(original);
  });

  it('refuses with CONFIG_INVALID anything that is not a replay report of this version', () => {
    for (const value of [null, [], 'text', { kind: 'something-else', version: 2 }, { version: 2, routes: [] }]) {
      expect(codeOf(() => parseReport(value, 'x.json'))).toBe('CONFIG_INVALID');
    }
    // Version 1 reports mixed error latencies and points into the figures: they do not compare.
    expect(codeOf(() => parseReport({ ...report(), version: 1 }, 'x.json'))).toBe('CONFIG_INVALID');
    expect(codeOf(() => parseReport({ ...report(), routes: [{ route: 'ingest' }] }, 'x.json'))).toBe('CONFIG_INVALID');
    expect(codeOf(() => parseReport({ ...report(), totals: undefined }, 'x.json'))).toBe('CONFIG_INVALID');
  });

  it('refuses a negative, non-finite, huge or missing figure in any route field, and malformed counts', () => {
    for (const key of ROUTE_SUMMARY_NUMBERS) {
      for (const bad of [-1, -0.5, 1e300, Number.MAX_SAFE_INTEGER + 2, 'fast', null]) {
        expect(codeOf(() => parseReport(edited((v) => (v.routes[0][key] = bad)), 'x.json')), `${key} = ${String(bad)}`).toBe('CONFIG_INVALID');
      }
      expect(codeOf(() => parseReport(edited((v) => delete v.totals[key]), 'x.json')), `totals without ${key}`).toBe('CONFIG_INVALID');
    }
    // NaN and Infinity do not survive JSON; a parsed object may still hold them.
    expect(codeOf(() => parseReport({ ...report(), totals: { ...route('total', 1, 1, 1, 1), p99Ms: Number.NaN } }, 'x.json'))).toBe('CONFIG_INVALID');
    expect(codeOf(() => parseReport({ ...report(), totals: { ...route('total', 1, 1, 1, 1), okPerSecond: Number.POSITIVE_INFINITY } }, 'x.json'))).toBe('CONFIG_INVALID');
    for (const edit of [
      (v: any) => (v.errors.byStatus['500'] = -3),
      (v: any) => (v.skipped.notRecordedRoute = -1),
      (v: any) => delete v.skipped.refused,
      (v: any) => (v.gaps.dropped = 1e400),
      (v: any) => (v.lag = { maxMs: -1, p99Ms: 0, lateFrames: 0 }),
      (v: any) => (v.seconds = -2),
      (v: any) => (v.complete = 'yes'),
      (v: any) => (v.routes[0].route = 7),
    ]) {
      expect(codeOf(() => parseReport(edited(edit), 'x.json')), String(edit)).toBe('CONFIG_INVALID');
    }
  });

  it('names the file and the problem in the message', () => {
    expect(() => parseReport({ kind: 'x' }, 'old/bench.json')).toThrow(/--compare old\/bench\.json is not a strata replay report/);
    expect(() => parseReport(edited((v) => (v.totals.p50Ms = -1)), 'r.json')).toThrow(/--compare r\.json is a damaged replay report/);
  });
});

describe('readReportFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-report-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a report written as JSON', () => {
    const path = join(dir, 'r.json');
    writeFileSync(path, JSON.stringify(report(), null, 2));
    expect(readReportFile(path)).toEqual(report());
  });

  it('refuses a file over REPLAY_REPORT_BYTES_MAX without reading it, a directory, a missing file and one that is not JSON', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    // Sparse: a file of the size without writing its bytes.
    truncateSync(big, REPLAY_REPORT_BYTES_MAX + 1);
    expect(() => readReportFile(big)).toThrow(/REPLAY_REPORT_BYTES_MAX/);
    expect(codeOf(() => readReportFile(big))).toBe('CONFIG_INVALID');
    expect(codeOf(() => readReportFile(dir))).toBe('CONFIG_INVALID');
    expect(codeOf(() => readReportFile(join(dir, 'missing.json')))).toBe('CONFIG_INVALID');
    const text = join(dir, 'text.json');
    writeFileSync(text, 'not json');
    expect(() => readReportFile(text)).toThrow(/is not JSON/);
  });
});
