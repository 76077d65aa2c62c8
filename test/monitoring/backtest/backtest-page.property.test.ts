// Properties of backtest paging and windows: walking next markers yields every change once in order; malformed markers are refused; the replayed and unreplayed parts tile the window; the range limit holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markerOrdinal, pageOfChanges } from '../../../src/monitoring/backtest/backtest-page.js';
import { backtestWindow, BEYOND_FULL_RETENTION, replayedPart } from '../../../src/monitoring/backtest/backtest-window.js';
import { BACKTEST_DEFAULT_SPAN_MS, BACKTEST_RANGE_MS_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { resolveWindow } from '../../../src/monitoring/time-series.js';

describe('backtest pages', () => {
  it('walking next_marker from the first page yields every change exactly once, in order, each page at most limit long', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 200 }), fc.integer({ min: 1, max: 50 }), (changes, limit) => {
        const seen: number[] = [];
        let marker: string | undefined;
        for (let pages = 0; pages <= changes.length + 1; pages++) {
          const page = pageOfChanges(changes, marker === undefined ? { limit } : { limit, marker });
          expect(page.values.length).toBeLessThanOrEqual(limit);
          seen.push(...page.values);
          if (page.nextMarker === null) break;
          expect(page.values).toHaveLength(limit);
          marker = page.nextMarker;
        }
        expect(seen).toEqual(changes);
      }),
    );
  });

  it('a marker past the end is an empty last page; anything but a decimal ordinal is MONITORING_FIELD_INVALID naming marker', () => {
    expect(pageOfChanges([1, 2, 3], { limit: 2, marker: '7' })).toEqual({ values: [], nextMarker: null });
    expect(markerOrdinal(undefined)).toBe(0);
    expect(markerOrdinal('42')).toBe(42);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (marker) => {
        if (/^(?:0|[1-9][0-9]{0,8})$/.test(marker)) expect(markerOrdinal(marker)).toBe(Number(marker));
        else expect(() => markerOrdinal(marker)).toThrow(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID', details: expect.objectContaining({ key: 'marker' }) }));
      }),
    );
    for (const marker of ['-1', '01', '1.5', ' 1', '1e3', '1234567890']) expect(() => markerOrdinal(marker)).toThrow();
  });
});

describe('backtest windows', () => {
  const now = 1_790_000_000_000;

  it('defaults to the day before now (the time-series window rule), refuses a reversed window and a range past BACKTEST_RANGE_MS_MAX', () => {
    const defaulted = backtestWindow({}, now);
    expect(defaulted).toEqual(resolveWindow({}, now, BACKTEST_DEFAULT_SPAN_MS));
    expect(defaulted.toMs - defaulted.fromMs).toBe(BACKTEST_DEFAULT_SPAN_MS);
    expect(defaulted.toMs).toBeGreaterThanOrEqual(now);
    expect(backtestWindow({ toMs: now - 5 }, now)).toEqual({ fromMs: now - 5 - BACKTEST_DEFAULT_SPAN_MS, toMs: now - 5 });
    expect(backtestWindow({ fromMs: now - BACKTEST_RANGE_MS_MAX, toMs: now }, now)).toEqual({ fromMs: now - BACKTEST_RANGE_MS_MAX, toMs: now });
    expect(() => backtestWindow({ fromMs: now, toMs: now }, now)).toThrow(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
    expect(() => backtestWindow({ fromMs: now - BACKTEST_RANGE_MS_MAX - 1, toMs: now }, now)).toThrow(
      expect.objectContaining({ code: 'MONITORING_BACKTEST_TOO_LARGE', details: { bound: 'range', limit: BACKTEST_RANGE_MS_MAX } }),
    );
  });

  it('the unreplayed part before the retention cut and the replayed part tile the window exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: -1e6, max: 3e6 }), (fromMs, span, cutMs) => {
        const window = { fromMs, toMs: fromMs + span };
        const { replayed, unreplayed } = replayedPart(window, cutMs);
        expect(replayed.toMs).toBe(window.toMs);
        expect(replayed.fromMs).toBe(Math.min(window.toMs, Math.max(window.fromMs, cutMs)));
        const parts = [...unreplayed.map((part) => [part.fromMs, part.toMs]), [replayed.fromMs, replayed.toMs]].filter(([a, b]) => (a as number) < (b as number));
        let at = window.fromMs;
        for (const [a, b] of parts) {
          expect(a).toBe(at);
          at = b as number;
        }
        expect(at).toBe(window.toMs);
        for (const part of unreplayed) expect(part.reason).toBe(BEYOND_FULL_RETENTION);
      }),
    );
  });
});
