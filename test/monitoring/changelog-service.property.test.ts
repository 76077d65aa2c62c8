// Properties of ChangelogService's window: it is the rule of every time series (resolveWindow: `to` defaults to just after now), errors alike, and the default window lists an entry of the request's own millisecond.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { ChangelogService } from '../../src/monitoring/changelog-service.js';
import { CHANGELOG_WINDOW_MS_DEFAULT } from '../../src/monitoring/monitoring-limits.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';
import { resolveWindow } from '../../src/monitoring/time-series.js';

const NOW_MS = 1_790_000_000_000;

/** The outcome of a call: its value, or the code and field of the error it threw. */
function outcome<T>(run: () => T): { value: T } | { code: unknown; key: unknown } {
  try {
    return { value: run() };
  } catch (error) {
    const details = (error as { details?: { key?: unknown } }).details;
    return { code: (error as { code?: unknown }).code, key: details?.key };
  }
}

describe('ChangelogService.window', () => {
  let store: MonitoringStore;
  let clock: ManualClock;
  let changelogs: ChangelogService;

  beforeEach(() => {
    store = new MonitoringStore(undefined);
    clock = new ManualClock(NOW_MS);
    changelogs = new ChangelogService(store, clock);
  });
  afterEach(() => store.close());

  it('is resolveWindow with the 7-day default span, errors included', () => {
    const end = fc.option(fc.integer({ min: NOW_MS - 10 * CHANGELOG_WINDOW_MS_DEFAULT, max: NOW_MS + CHANGELOG_WINDOW_MS_DEFAULT }), { nil: undefined });
    fc.assert(
      fc.property(end, end, fc.integer({ min: 0, max: CHANGELOG_WINDOW_MS_DEFAULT }), (fromMs, toMs, advanceMs) => {
        clock.advance(advanceMs);
        const request = { ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}) };
        const expected = outcome(() => resolveWindow(request, clock.now(), CHANGELOG_WINDOW_MS_DEFAULT));
        expect(outcome(() => changelogs.window(request))).toEqual(expected);
        if ('code' in expected) expect(expected).toEqual({ code: 'MONITORING_FIELD_INVALID', key: 'from' });
      }),
      { numRuns: 500 },
    );
  });

  it('by default ends just after now, so an entry of the current millisecond is listed, and spans 7 days', () => {
    expect(changelogs.window({})).toEqual({ fromMs: NOW_MS + 1 - CHANGELOG_WINDOW_MS_DEFAULT, toMs: NOW_MS + 1 });
    const id = changelogs.append('t1', { timestampMs: NOW_MS, entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', previousState: 'OK', zoneId: null });
    expect(changelogs.list('t1', { limit: 10 }).values.map((row) => row.id)).toEqual([id]);
    // An explicit end stays exclusive.
    expect(changelogs.list('t1', { limit: 10, toMs: NOW_MS }).values).toEqual([]);
    expect(() => changelogs.window({ fromMs: NOW_MS, toMs: NOW_MS })).toThrowError(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
  });
});
