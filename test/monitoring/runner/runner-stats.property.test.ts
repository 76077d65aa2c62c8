// Properties of the runner's counters: lag percentiles cover exactly the most recent runs, the due FIFO reports the oldest waiting run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECK_LAG_WINDOW_RUNS } from '../../../src/monitoring/monitoring-limits.js';
import { DueFifo, RunnerStats } from '../../../src/monitoring/runner/runner-stats.js';

function nearestRank(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

describe('RunnerStats', () => {
  it('summarises the last CHECK_LAG_WINDOW_RUNS lags (negative lags as 0) by nearest rank', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 100_000 }), { maxLength: CHECK_LAG_WINDOW_RUNS + 500 }), (lags) => {
        const stats = new RunnerStats();
        for (const lag of lags) stats.recordLag(lag);
        const recent = lags.slice(-CHECK_LAG_WINDOW_RUNS).map((lag) => Math.max(0, lag)).sort((a, b) => a - b);
        expect(stats.lagSummary()).toEqual({ runs: recent.length, p50Ms: nearestRank(recent, 0.5), p99Ms: nearestRank(recent, 0.99), maxMs: nearestRank(recent, 1) });
      }),
      { numRuns: 50 },
    );
  });

  it('counts runs by type and outcome and skips by reason', () => {
    const stats = new RunnerStats();
    stats.recordRun('remote.http', 'available');
    stats.recordRun('remote.http', 'available');
    stats.recordRun('remote.tcp', 'error');
    stats.recordSkip('behind', 3);
    stats.recordSkip('queue_full');
    expect(stats.snapshot()).toEqual({
      runs: [
        { type: 'remote.http', outcome: 'available', count: 2 },
        { type: 'remote.tcp', outcome: 'error', count: 1 },
      ],
      skipped: { queue_full: 1, overlap: 0, behind: 3 },
      lag: { runs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 },
    });
  });
});

describe('DueFifo', () => {
  it('always reports the oldest time still waiting, like a plain array queue', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(), { nil: undefined }), { maxLength: 5_000 }), (ops) => {
        const fifo = new DueFifo();
        const model: number[] = [];
        for (const op of ops) {
          if (op === undefined) {
            fifo.shift();
            model.shift();
          } else {
            fifo.push(op);
            model.push(op);
          }
          expect(fifo.oldest()).toBe(model[0]);
        }
      }),
      { numRuns: 30 },
    );
  });
});
