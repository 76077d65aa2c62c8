// Properties of the kept backtest reports: both bounds always hold, a report is found under its key until it expires or newer ones push it out, and too large a report is never kept.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BacktestReportCache } from '../../../src/monitoring/backtest/backtest-report-cache.js';
import { BACKTEST_KEPT_CHANGES_MAX, BACKTEST_REPORT_TTL_MS, BACKTEST_REPORTS_KEPT_MAX } from '../../../src/monitoring/monitoring-limits.js';
import type { BacktestChange, BacktestReport } from '../../../src/monitoring/backtest/backtest-service.js';

const CHANGE: BacktestChange = { timestampMs: 0, state: 'OK', previousState: null, status: '', zoneId: null, notificationStatus: 'silent', notifications: [], suppressedBy: [] };

function report(changes: number): BacktestReport {
  return {
    window: { fromMs: 0, toMs: 1 },
    replayed: { fromMs: 0, toMs: 1 },
    unreplayed: [],
    changes: Array.from({ length: changes }, () => CHANGE),
    totals: { OK: changes, WARNING: 0, CRITICAL: 0, observations: changes },
  };
}

type Op = { readonly kind: 'put'; readonly key: string; readonly changes: number; readonly advanceMs: number } | { readonly kind: 'get'; readonly key: string; readonly advanceMs: number };

const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: keyArb, changes: fc.integer({ min: 0, max: 12 }), advanceMs: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant('get' as const), key: keyArb, advanceMs: fc.integer({ min: 0, max: 40 }) }),
);

/** A model of the cache: kept reports in the order they were kept, with when. */
interface ModelEntry {
  readonly key: string;
  readonly report: BacktestReport;
  readonly atMs: number;
}

describe('BacktestReportCache', () => {
  it('agrees with a model: bounds hold, a kept report is found until it expires or is pushed out, an oversized one is never kept', () => {
    const [ttlMs, reportsMax, changesMax] = [100, 3, 20];
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const cache = new BacktestReportCache(ttlMs, reportsMax, changesMax);
        let model: ModelEntry[] = [];
        let nowMs = 1_000;
        for (const op of ops) {
          nowMs += op.advanceMs;
          if (op.kind === 'put') {
            const kept = report(op.changes);
            cache.put(op.key, kept, nowMs);
            model = model.filter((entry) => entry.key !== op.key);
            if (op.changes <= changesMax) model.push({ key: op.key, report: kept, atMs: nowMs });
            const total = (): number => model.reduce((sum, entry) => sum + entry.report.changes.length, 0);
            while (model.length > reportsMax || total() > changesMax) model.shift();
          } else {
            const found = model.find((entry) => entry.key === op.key);
            const live = found !== undefined && nowMs - found.atMs < ttlMs;
            if (found !== undefined && !live) model = model.filter((entry) => entry !== found);
            expect(cache.get(op.key, nowMs)).toBe(live ? found.report : undefined);
          }
          expect(cache.size).toBe(model.length);
          expect(cache.size).toBeLessThanOrEqual(reportsMax);
          expect(cache.keptChanges).toBe(model.reduce((sum, entry) => sum + entry.report.changes.length, 0));
          expect(cache.keptChanges).toBeLessThanOrEqual(changesMax);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a report the default time, within the default bounds', () => {
    const cache = new BacktestReportCache();
    const kept = report(2);
    cache.put('k', kept, 10);
    expect(cache.get('k', 10 + BACKTEST_REPORT_TTL_MS - 1)).toBe(kept);
    expect(cache.get('k', 10 + BACKTEST_REPORT_TTL_MS)).toBeUndefined();
    expect(cache.size).toBe(0);
    // A clock that went back does not make a report live longer.
    cache.put('k', kept, 10);
    expect(cache.get('k', 9)).toBeUndefined();
    for (let i = 0; i <= BACKTEST_REPORTS_KEPT_MAX; i++) cache.put(`r${i}`, report(1), 20);
    expect(cache.size).toBe(BACKTEST_REPORTS_KEPT_MAX);
    expect(cache.get('r0', 20)).toBeUndefined();
    cache.put('huge', report(BACKTEST_KEPT_CHANGES_MAX + 1), 20);
    expect(cache.get('huge', 20)).toBeUndefined();
    expect(cache.size).toBe(BACKTEST_REPORTS_KEPT_MAX);
  });
});
