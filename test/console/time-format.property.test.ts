// Properties of the console's time formats: the shown form, the datetime-local form and its parser (round trip, refusals).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLocalDateTime, formatTime, parseLocalDateTime } from '../../src/console/time-format.js';

/** Year 1 .. 9999, whole seconds (what a datetime-local value with seconds can name). */
const secondMs = fc.integer({ min: Math.ceil(-62_135_596_800_000 / 1000) + 2 * 86_400, max: Math.floor(253_402_300_799_000 / 1000) - 2 * 86_400 }).map((s) => s * 1000);

describe('formatTime', () => {
  it('writes local YYYY-MM-DD HH:MM:SS, the local year first', () => {
    fc.assert(
      fc.property(secondMs, (ms) => {
        expect(formatTime(ms)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        const date = new Date(ms);
        expect(formatTime(ms).endsWith(`${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}:${String(date.getSeconds()).padStart(2, '0')}`)).toBe(true);
        expect(formatTime(ms).startsWith(String(date.getFullYear()).padStart(4, '0'))).toBe(true);
      }),
    );
  });

  it('writes a dash (or nothing for the input form) for an instant that is not a time', () => {
    expect(formatTime(Number.NaN)).toBe('—');
    expect(formatTime(Number.POSITIVE_INFINITY)).toBe('—');
    expect(formatLocalDateTime(Number.NaN)).toBe('');
  });
});

describe('formatLocalDateTime and parseLocalDateTime', () => {
  it('a formatted second parses back to itself, unless it lies in a daylight-saving change', () => {
    fc.assert(
      fc.property(secondMs, (ms) => {
        const text = formatLocalDateTime(ms);
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
        const back = parseLocalDateTime(text);
        // In the hour a clock goes back, one local time names two instants; either is a fair reading.
        if (back !== ms) expect(back === undefined || Math.abs((back ?? 0) - ms) <= 3_600_000).toBe(true);
      }),
    );
  });

  it('accepts minutes without seconds and keeps years below 100 as written', () => {
    const noSeconds = parseLocalDateTime('2024-05-01T13:30');
    expect(noSeconds).toBe(new Date(2024, 4, 1, 13, 30).getTime());
    const early = parseLocalDateTime('0050-01-01T00:00');
    expect(early).toBeDefined();
    expect(new Date(early as number).getFullYear()).toBe(50);
    expect(formatLocalDateTime(early as number)).toBe('0050-01-01T00:00:00');
  });

  it('refuses text that is not a datetime-local value or names a day that does not exist', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (parseLocalDateTime(text) !== undefined) expect(text.trim()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/);
      }),
    );
    for (const bad of ['2024-02-30T10:00', '2023-02-29T00:00', '2024-13-01T00:00', '2024-01-01T24:00', '2024-01-00T00:00', '2024-01-01T10:60', '2024-01-01T10:00:60', 'yesterday', '']) {
      expect(parseLocalDateTime(bad)).toBeUndefined();
    }
  });
});
