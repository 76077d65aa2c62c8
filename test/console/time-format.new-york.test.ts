// Tests parseLocalDateTime in a time zone with daylight saving: the zone is set before any Date is used in this file's process.
process.env.TZ = 'America/New_York';

import { describe, expect, it } from 'vitest';
import { formatLocalDateTime, formatTime, parseLocalDateTime } from '../../src/console/time-format.js';

describe('parseLocalDateTime in America/New_York', () => {
  it('runs in the zone it names (winter UTC-5, summer UTC-4)', () => {
    expect(new Date(Date.UTC(2024, 0, 15, 12)).getTimezoneOffset()).toBe(300);
    expect(new Date(Date.UTC(2024, 6, 15, 12)).getTimezoneOffset()).toBe(240);
  });

  it('refuses a time skipped when the clocks go forward', () => {
    for (const gap of ['2024-03-10T02:00', '2024-03-10T02:30', '2024-03-10T02:59:59', '2023-03-12T02:15']) expect(parseLocalDateTime(gap)).toBeUndefined();
  });

  it('accepts the times around the gap as the local times they name', () => {
    expect(parseLocalDateTime('2024-03-10T01:59:59')).toBe(Date.UTC(2024, 2, 10, 6, 59, 59));
    expect(parseLocalDateTime('2024-03-10T03:00')).toBe(Date.UTC(2024, 2, 10, 7, 0, 0));
    expect(formatTime(Date.UTC(2024, 2, 10, 7, 0, 0))).toBe('2024-03-10 03:00:00');
  });

  it('reads a repeated hour (clocks going back) as one of its two instants', () => {
    const parsed = parseLocalDateTime('2024-11-03T01:30');
    expect([Date.UTC(2024, 10, 3, 5, 30), Date.UTC(2024, 10, 3, 6, 30)]).toContain(parsed);
  });

  it('keeps years below 100 as written rather than as 19xx', () => {
    for (const year of [1, 50, 99]) {
      const text = `${String(year).padStart(4, '0')}-06-01T12:00:00`;
      const parsed = parseLocalDateTime(text);
      expect(parsed).toBeDefined();
      expect(new Date(parsed as number).getFullYear()).toBe(year);
      expect(formatLocalDateTime(parsed as number)).toBe(text);
    }
  });
});
