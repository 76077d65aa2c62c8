// Properties of suppression activity: one-off windows are [start, end); recurrences cover [start, end) intersected with the union of [occ, occ + duration); memoized answers equal fresh ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompiledRecurrence } from '../../../src/monitoring/suppressions/suppression-recurrence.js';
import {
  MemoizedWindow,
  windowActiveAt,
  windowHasOccurrence,
  windowScheduledAfter,
  type SuppressionWindow,
} from '../../../src/monitoring/suppressions/suppression-window.js';

/** A recurrence over an explicit sorted list of occurrence times (the lookups by linear search). */
function listRecurrence(occurrences: readonly number[], durationMs: number): CompiledRecurrence {
  return {
    durationMs,
    latestAtOrBefore: (t) => [...occurrences].reverse().find((occ) => occ <= t) ?? null,
    earliestAtOrAfter: (t) => occurrences.find((occ) => occ >= t) ?? null,
  };
}

const time = fc.integer({ min: 0, max: 10_000 });
const oneOff = fc.tuple(time, fc.integer({ min: 1, max: 5_000 })).map(([startMs, length]): SuppressionWindow => ({ startMs, endMs: startMs + length, recurrence: null }));
const recurring = fc
  .record({ startMs: time, length: fc.integer({ min: 1, max: 5_000 }), occurrences: fc.uniqueArray(fc.integer({ min: -3_000, max: 18_000 }), { maxLength: 30 }), durationMs: fc.integer({ min: 1, max: 3_000 }) })
  .map(({ startMs, length, occurrences, durationMs }) => ({
    window: { startMs, endMs: startMs + length, recurrence: listRecurrence([...occurrences].sort((a, b) => a - b), durationMs) },
    occurrences,
    durationMs,
  }));
const probes = fc.array(fc.integer({ min: -4_000, max: 20_000 }), { minLength: 1, maxLength: 40 });

describe('suppression windows', () => {
  it('a one-off window is active exactly in [start, end) and scheduled exactly before start', () => {
    fc.assert(
      fc.property(oneOff, probes, (window, ts) => {
        for (const t of [...ts, window.startMs, window.endMs, window.startMs - 1, window.endMs - 1]) {
          expect(windowActiveAt(window, t)).toBe(window.startMs <= t && t < window.endMs);
          expect(windowScheduledAfter(window, t)).toBe(t < window.startMs);
        }
        expect(windowHasOccurrence(window)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a recurrence is active at t exactly when t is in [start, end) and an occurrence covers t, and scheduled when coverage begins after t', () => {
    fc.assert(
      fc.property(recurring, probes, ({ window, occurrences, durationMs }, ts) => {
        const active = (t: number): boolean => window.startMs <= t && t < window.endMs && occurrences.some((occ) => occ <= t && t < occ + durationMs);
        // The intersection of [start, end) with some [occ, occ + duration) is not empty.
        expect(windowHasOccurrence(window)).toBe(occurrences.some((occ) => Math.max(occ, window.startMs) < Math.min(occ + durationMs, window.endMs)));
        const edges = occurrences.flatMap((occ) => [occ - 1, occ, occ + durationMs - 1, occ + durationMs]);
        for (const t of [...ts, ...edges, window.startMs - 1, window.startMs, window.endMs - 1, window.endMs]) {
          expect(windowActiveAt(window, t)).toBe(active(t));
          // At start_time when that is still to come and covered, or at an occurrence starting in [start, end) after t.
          const scheduled = (t < window.startMs && active(window.startMs)) || occurrences.some((occ) => occ > t && window.startMs <= occ && occ < window.endMs);
          expect(windowScheduledAfter(window, t)).toBe(scheduled);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('memoized answers equal fresh ones in any order of asks, repeats included', () => {
    fc.assert(
      fc.property(fc.oneof(oneOff, recurring.map((r) => r.window)), fc.array(fc.integer({ min: -4_000, max: 20_000 }), { maxLength: 60 }), (window, asks) => {
        const memo = new MemoizedWindow(window);
        for (const t of asks.flatMap((t) => [t, t])) {
          expect(memo.activeAt(t)).toBe(windowActiveAt(window, t));
          expect(memo.scheduledAfter(t)).toBe(windowScheduledAfter(window, t));
        }
      }),
    );
  });
});
