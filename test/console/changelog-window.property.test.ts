// Properties of the changelog's newest-first windows over a fake oldest-first API, and of the timeline rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestFirst, newestWindow, timelineRows, type ChangelogFetcher, type TimedEntry } from '../../src/console/changelog-window.js';

/** A fake changelog API: entries of [from, to) in (timestamp, id) order, the first `limit`, and whether more follow. */
function fakeChangelog(entries: readonly TimedEntry[]): { fetch: ChangelogFetcher<TimedEntry>; windows: { fromMs: number; toMs: number }[] } {
  const windows: { fromMs: number; toMs: number }[] = [];
  const sorted = [...entries].sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const fetch: ChangelogFetcher<TimedEntry> = async (window, limit) => {
    windows.push(window);
    const inside = sorted.filter((entry) => entry.timestamp >= window.fromMs && entry.timestamp < window.toMs);
    return { values: inside.slice(0, limit), nextMarker: inside.length > limit ? (inside[limit] as TimedEntry).id : null };
  };
  return { fetch, windows };
}

const entriesArb = fc.uniqueArray(fc.record({ id: fc.uuid(), timestamp: fc.integer({ min: 0, max: 100_000 }) }), { selector: (entry) => entry.id, maxLength: 150 });

describe('newestWindow', () => {
  it('returns every entry of a window ending at `to`, newest first, unless truncated; the window only narrows; requests are bounded', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, fc.integer({ min: 1, max: 100_001 }), fc.integer({ min: 1, max: 200_000 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 20 }), async (entries, toMs, spanMs, limit, narrowingsMax) => {
        const { fetch, windows } = fakeChangelog(entries);
        const page = await newestWindow(fetch, toMs, spanMs, new AbortController().signal, { limit, narrowingsMax });
        expect(page.toMs).toBe(toMs);
        expect(page.fromMs).toBeGreaterThanOrEqual(toMs - spanMs);
        expect(page.fromMs).toBeLessThan(toMs);
        expect(page.requests).toBe(windows.length);
        expect(windows.length).toBeLessThanOrEqual(narrowingsMax + 1);
        for (const window of windows) expect(window.toMs).toBe(toMs);
        for (let i = 1; i < windows.length; i++) expect((windows[i] as { fromMs: number }).fromMs).toBeGreaterThan((windows[i - 1] as { fromMs: number }).fromMs);
        const inside = entries.filter((entry) => entry.timestamp >= page.fromMs && entry.timestamp < page.toMs);
        expect(page.entries.length).toBeLessThanOrEqual(limit);
        if (!page.truncated) expect(page.entries).toEqual(newestFirst(inside));
        else expect(inside.length).toBeGreaterThan(limit);
        for (let i = 1; i < page.entries.length; i++) expect((page.entries[i] as TimedEntry).timestamp).toBeLessThanOrEqual((page.entries[i - 1] as TimedEntry).timestamp);
      }),
    );
  });

  it('pages back to back cover the changelog without gaps or repeats when no window overflows', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, fc.integer({ min: 1000, max: 40_000 }), async (entries, spanMs) => {
        const { fetch } = fakeChangelog(entries);
        const seen: TimedEntry[] = [];
        let toMs = 100_001;
        while (toMs > 0) {
          const page = await newestWindow(fetch, toMs, Math.min(spanMs, toMs), new AbortController().signal, { limit: 10, narrowingsMax: 30 });
          expect(page.truncated).toBe(false);
          seen.push(...page.entries);
          toMs = page.fromMs;
        }
        expect(seen).toEqual(newestFirst(entries));
      }),
    );
  });
});

describe('timelineRows', () => {
  it('labels alarms (id when unlabelled), maps states, and takes the status only from the matching latest state', () => {
    const rows = timelineRows(
      [
        { id: 'c2', timestamp: 20, alarm_id: 'al1', state: 'CRITICAL', previous_state: 'OK', analyzed_by_monitoring_zone_id: 'mzdfw' },
        { id: 'c1', timestamp: 10, alarm_id: 'al2', state: 'OK', previous_state: null, analyzed_by_monitoring_zone_id: null },
      ],
      new Map([
        ['al1', 'web down'],
        ['al2', null],
      ]),
      [
        { alarm_id: 'al1', timestamp: 20, status: 'HTTP 500', analyzed_by_monitoring_zone_id: 'mzdfw' },
        { alarm_id: 'al2', timestamp: 11, status: 'later', analyzed_by_monitoring_zone_id: null },
      ],
    );
    expect(rows).toEqual([
      { id: 'c2', timestampMs: 20, alarmId: 'al1', alarmLabel: 'web down', zoneId: 'mzdfw', previous: 'OK', state: 'CRITICAL', status: 'HTTP 500' },
      { id: 'c1', timestampMs: 10, alarmId: 'al2', alarmLabel: 'al2', zoneId: null, previous: 'UNKNOWN', state: 'OK', status: null },
    ]);
  });

  it('keeps one row per entry in order, whatever the labels and states', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.uuid(), timestamp: fc.nat(), alarm_id: fc.constantFrom('a', 'b'), state: fc.string(), previous_state: fc.option(fc.string(), { nil: null }), analyzed_by_monitoring_zone_id: fc.option(fc.constantFrom('mz1', 'mz2'), { nil: null }) })),
        (entries) => {
          const rows = timelineRows(entries, new Map([['a', 'A']]), []);
          expect(rows.map((row) => row.id)).toEqual(entries.map((entry) => entry.id));
          for (const row of rows) {
            expect(['UNKNOWN', 'OK', 'WARNING', 'CRITICAL']).toContain(row.state);
            expect(row.alarmLabel).toBe(row.alarmId === 'a' ? 'A' : 'b');
          }
        },
      ),
    );
  });
});
