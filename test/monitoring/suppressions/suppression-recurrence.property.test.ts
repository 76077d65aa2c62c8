// Properties of recurring suppressions against a brute-force minute scan: occurrence lookups, activity (the window intersected with the occurrences) and "scheduled" over a few days, in zones with and without DST.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRecurrence, knownTimeZone } from '../../../src/monitoring/suppressions/suppression-recurrence.js';
import { windowActiveAt, windowHasOccurrence, windowScheduledAfter } from '../../../src/monitoring/suppressions/suppression-window.js';
import { cronSpecArb, cronText, fixedTime, scanOccurrences, type CronSpec } from './cron-oracle.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Zones without daylight saving time (whole, half and quarter hour offsets). */
const STEADY_ZONES = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Asia/Tokyo', 'America/Phoenix'];
/** Zones with daylight saving time (Lord Howe shifts by 30 minutes). */
const DST_ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
/** Days around DST changes of those zones in 2025, so windows cross a gap or a repeated hour. */
const DST_DAYS = ['2025-03-09', '2025-03-30', '2025-04-06', '2025-10-05', '2025-10-26', '2025-11-02'].map((d) => Date.parse(`${d}T00:00:00Z`));

interface Case {
  readonly spec: CronSpec;
  readonly zone: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
  readonly probes: readonly number[];
}

/** A window of up to three days starting anywhere in 2024–2026 (or next to a DST change), a duration, and times to ask about. */
function caseArb(zones: readonly string[], specs: fc.Arbitrary<CronSpec>, bases: fc.Arbitrary<number>): fc.Arbitrary<Case> {
  return fc
    .record({
      spec: specs,
      zone: fc.constantFrom(...zones),
      startMs: bases,
      lengthMs: fc.integer({ min: 1, max: 3 * DAY_MS }),
      durationMs: fc.oneof(fc.integer({ min: MINUTE_MS, max: 3 * HOUR_MS }), fc.integer({ min: MINUTE_MS, max: DAY_MS })),
      offsets: fc.array(fc.double({ min: -0.2, max: 1.2, noNaN: true }), { minLength: 5, maxLength: 25 }),
    })
    .map(({ spec, zone, startMs, lengthMs, durationMs, offsets }) => {
      const endMs = startMs + lengthMs;
      const span = lengthMs + durationMs;
      const probes = offsets.map((f) => Math.round(startMs + f * span));
      return { spec, zone, startMs, endMs, durationMs, probes: [...probes, startMs, startMs - 1, endMs - 1, endMs, endMs + durationMs] };
    });
}

const anyTime = fc.integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') });
const nearDst = fc.tuple(fc.constantFrom(...DST_DAYS), fc.integer({ min: -2 * DAY_MS, max: DAY_MS })).map(([day, shift]) => day + shift);

/**
 * Checks every answer of the compiled recurrence and the window against a scan of the occurrences
 * that can touch [start, end): those in (start - duration, end). The suppression covers the
 * intersection of [start, end) with the union of [occ, occ + duration).
 */
function checkCase(c: Case): void {
  const schedule = cronText(c.spec);
  const recurrence = compileRecurrence({ schedule, time_zone: c.zone, duration: c.durationMs });
  const window = { startMs: c.startMs, endMs: c.endMs, recurrence };
  const scanFrom = c.startMs - c.durationMs + 1;
  const occurrences = scanOccurrences(c.spec, c.zone, scanFrom, c.endMs);
  const label = `${schedule} ${c.zone} [${new Date(c.startMs).toISOString()}, ${new Date(c.endMs).toISOString()})`;
  const active = (t: number): boolean => c.startMs <= t && t < c.endMs && occurrences.some((occ) => occ <= t && t < occ + c.durationMs);
  // Some occurrence overlaps the window.
  const coversSome = occurrences.some((occ) => Math.max(occ, c.startMs) < Math.min(occ + c.durationMs, c.endMs));
  expect(windowHasOccurrence(window), label).toBe(coversSome);
  // Random times, the window's edges, and the edges of the first occurrences: just before, at, at the last ms, at the end.
  const edges = occurrences.slice(0, 10).flatMap((occ) => [occ - 1, occ, occ + c.durationMs - 1, occ + c.durationMs]);
  for (const t of [...c.probes, ...edges]) {
    // Coverage starts after t: at start_time when that is still to come and covered, or at an occurrence starting in the window after t.
    const scheduled = (t < c.startMs && active(c.startMs)) || occurrences.some((occ) => occ > t && occ >= c.startMs);
    expect(windowActiveAt(window, t), `${label} active at ${new Date(t).toISOString()}`).toBe(active(t));
    expect(windowScheduledAfter(window, t), `${label} scheduled after ${new Date(t).toISOString()}`).toBe(scheduled);
    // Inside the scanned range the lookups name exactly the scan's neighbours.
    if (t < c.endMs) {
      const before = occurrences.filter((occ) => occ <= t);
      if (before.length > 0) expect(recurrence.latestAtOrBefore(t), `${label} latest at or before ${new Date(t).toISOString()}`).toBe(before[before.length - 1]);
    }
    if (t >= scanFrom) {
      const after = occurrences.filter((occ) => occ >= t);
      if (after.length > 0) expect(recurrence.earliestAtOrAfter(t), `${label} earliest at or after ${new Date(t).toISOString()}`).toBe(after[0]);
    }
  }
}

describe('recurring suppression windows against a minute scan', () => {
  it('agree in zones without DST, for any schedule of the generated kinds', () => {
    fc.assert(fc.property(caseArb(STEADY_ZONES, cronSpecArb, anyTime), checkCase), { numRuns: 120 });
  });

  it('agree in DST zones across gaps and repeated hours, for interval schedules (a wildcard, step, range or list in minute or hour)', () => {
    const interval = cronSpecArb.filter((spec) => !fixedTime(spec));
    fc.assert(fc.property(caseArb(DST_ZONES, interval, fc.oneof(nearDst, anyTime)), checkCase), { numRuns: 80 });
  });

  it('a fixed-time schedule in a DST gap runs once right after the gap; in a repeated hour once, at the first pass', () => {
    const gap = compileRecurrence({ schedule: '30 2 * * *', time_zone: 'Europe/Berlin', duration: HOUR_MS });
    // 2025-03-30 02:30 does not exist in Berlin: the run is at 03:00 CEST (01:00 UTC).
    expect(gap.earliestAtOrAfter(Date.parse('2025-03-29T12:00:00Z'))).toBe(Date.parse('2025-03-30T01:00:00Z'));
    // 2025-10-26 02:30 happens twice: the run is at the first (CEST, 00:30 UTC) only.
    const first = Date.parse('2025-10-26T00:30:00Z');
    expect(gap.earliestAtOrAfter(Date.parse('2025-10-25T12:00:00Z'))).toBe(first);
    expect(gap.earliestAtOrAfter(first + 1)).toBe(Date.parse('2025-10-27T01:30:00Z'));
    expect(gap.latestAtOrBefore(Date.parse('2025-10-26T01:45:00Z'))).toBe(first);
  });

  it('reads day of month and day of week with OR when both are restricted, AND when one is *', () => {
    const either = compileRecurrence({ schedule: '0 12 13 * 5', time_zone: 'UTC', duration: HOUR_MS });
    // 2025-06-06 is a Friday (not the 13th): it matches through the weekday.
    expect(either.earliestAtOrAfter(Date.parse('2025-06-01T00:00:00Z'))).toBe(Date.parse('2025-06-06T12:00:00Z'));
    const fridays = compileRecurrence({ schedule: '0 12 * * FRI', time_zone: 'UTC', duration: HOUR_MS });
    expect(fridays.earliestAtOrAfter(Date.parse('2025-06-07T00:00:00Z'))).toBe(Date.parse('2025-06-13T12:00:00Z'));
  });

  it('an occurrence running at start_time covers from start_time on; nothing is covered at or after end_time', () => {
    const daily = compileRecurrence({ schedule: '0 2 * * *', time_zone: 'UTC', duration: 4 * HOUR_MS });
    const window = { startMs: Date.parse('2025-01-01T03:00:00Z'), endMs: Date.parse('2025-01-02T03:00:00Z'), recurrence: daily };
    // The 01-01 02:00 occurrence started before start_time: it covers 03:00–06:00, not before.
    expect(windowActiveAt(window, Date.parse('2025-01-01T02:59:59.999Z'))).toBe(false);
    expect(windowActiveAt(window, Date.parse('2025-01-01T03:00:00Z'))).toBe(true);
    expect(windowActiveAt(window, Date.parse('2025-01-01T05:59:59.999Z'))).toBe(true);
    expect(windowActiveAt(window, Date.parse('2025-01-01T06:00:00Z'))).toBe(false);
    // The 01-02 02:00 occurrence is cut at end_time (03:00), not run to 06:00.
    expect(windowActiveAt(window, Date.parse('2025-01-02T01:59:59.999Z'))).toBe(false);
    expect(windowActiveAt(window, Date.parse('2025-01-02T02:00:00Z'))).toBe(true);
    expect(windowActiveAt(window, Date.parse('2025-01-02T02:59:59.999Z'))).toBe(true);
    expect(windowActiveAt(window, Date.parse('2025-01-02T03:00:00Z'))).toBe(false);
    expect(windowActiveAt(window, Date.parse('2025-01-02T05:00:00Z'))).toBe(false);
    expect(windowActiveAt(window, Date.parse('2025-01-03T02:00:00Z'))).toBe(false);
    // Scheduled: before start_time (coverage begins at 03:00), then while the 01-02 occurrence is to come.
    expect(windowScheduledAfter(window, Date.parse('2025-01-01T02:30:00Z'))).toBe(true);
    expect(windowScheduledAfter(window, Date.parse('2025-01-01T03:30:00Z'))).toBe(true);
    expect(windowScheduledAfter(window, Date.parse('2025-01-02T01:59:59.999Z'))).toBe(true);
    expect(windowScheduledAfter(window, Date.parse('2025-01-02T02:00:00Z'))).toBe(false);
    // A window holding only the tail of an occurrence covers something; one between occurrences covers nothing.
    expect(windowHasOccurrence({ startMs: Date.parse('2025-01-01T05:59:59.999Z'), endMs: Date.parse('2025-01-01T07:00:00Z'), recurrence: daily })).toBe(true);
    expect(windowHasOccurrence({ startMs: Date.parse('2025-01-01T06:00:00Z'), endMs: Date.parse('2025-01-02T02:00:00Z'), recurrence: daily })).toBe(false);
    expect(windowHasOccurrence({ startMs: Date.parse('2025-01-01T06:00:00Z'), endMs: Date.parse('2025-01-02T02:00:00.001Z'), recurrence: daily })).toBe(true);
  });

  it('stays bounded far from any occurrence: a leap-day Monday looks back and ahead decades and answers', () => {
    const rare = compileRecurrence({ schedule: '0 0 29 2 +MON', time_zone: 'UTC', duration: HOUR_MS });
    expect(rare.latestAtOrBefore(Date.parse('2040-01-01T00:00:00Z'))).toBe(Date.parse('2016-02-29T00:00:00Z'));
    expect(rare.earliestAtOrAfter(Date.parse('2017-01-01T00:00:00Z'))).toBe(Date.parse('2044-02-29T00:00:00Z'));
    const never = compileRecurrence({ schedule: '0 0 30 2 *', time_zone: 'UTC', duration: HOUR_MS });
    expect(never.earliestAtOrAfter(Date.parse('2025-01-01T00:00:00Z'))).toBeNull();
    expect(never.latestAtOrBefore(Date.parse('2025-01-01T00:00:00Z'))).toBeNull();
  });

  it('refuses unknown zones and schedules croner cannot read, naming recurrence', () => {
    expect(knownTimeZone('Europe/Berlin')).toBe(true);
    expect(knownTimeZone('Mars/Olympus')).toBe(false);
    for (const [schedule, zone] of [
      ['0 2 * * *', 'Mars/Olympus'],
      ['61 2 * * *', 'UTC'],
      ['0 24 * * *', 'UTC'],
      ['0 2 32 * *', 'UTC'],
      ['0 2 * 13 *', 'UTC'],
      ['0 2 * * 8', 'UTC'],
      ['0 2 * * * *', 'UTC'],
      ['x 2 * * *', 'UTC'],
      ['5/5 2 * * *', 'UTC'],
    ] as const) {
      expect(() => compileRecurrence({ schedule, time_zone: zone, duration: HOUR_MS }), `${schedule} ${zone}`).toThrow(
        expect.objectContaining({ code: 'MONITORING_FIELD_INVALID', details: expect.objectContaining({ key: 'recurrence' }) }),
      );
    }
  });
});
