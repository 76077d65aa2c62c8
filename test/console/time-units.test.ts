// Tests the console's lengths of time against each other and against what Date counts.
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS, WEEK_MS } from '../../src/console/time-units.js';

describe('time units', () => {
  it('each unit is the previous one times its count', () => {
    expect(SECOND_MS).toBe(1000);
    expect(MINUTE_MS).toBe(60 * SECOND_MS);
    expect(HOUR_MS).toBe(60 * MINUTE_MS);
    expect(DAY_MS).toBe(24 * HOUR_MS);
    expect(WEEK_MS).toBe(7 * DAY_MS);
  });

  it('a day is what Date.UTC counts between two dates', () => {
    expect(Date.UTC(2024, 0, 2) - Date.UTC(2024, 0, 1)).toBe(DAY_MS);
    expect(Date.UTC(2024, 0, 8) - Date.UTC(2024, 0, 1)).toBe(WEEK_MS);
  });
});
