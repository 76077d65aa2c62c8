// Checks the one retention rule for any value and range: integers inside the range pass unchanged, undefined is the default, anything else is CONFIG_INVALID naming the option; the history and the audits use it with their own ranges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../../src/core/time.js';
import { AUDIT_RETENTION, resolveAuditRetention } from '../../src/monitoring/audits/audit-service.js';
import { HISTORY_RETENTION, NotificationHistory } from '../../src/monitoring/history/notification-history.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { resolveRetention, type RetentionRange } from '../../src/monitoring/retention-rule.js';

const ranges: fc.Arbitrary<RetentionRange> = fc
  .tuple(fc.integer({ min: 1, max: 10 * DAY_MS }), fc.integer({ min: 0, max: 10 * DAY_MS }), fc.constantFrom('historyRetentionMs', 'auditRetentionMs', 'xRetentionMs'))
  .chain(([minMs, span, option]) => fc.integer({ min: minMs, max: minMs + span }).map((defaultMs) => ({ option, minMs, maxMs: minMs + span, defaultMs })));

/** The value `run` returns, or the code of the error it throws. */
function outcome(run: () => number): number | string {
  try {
    return run();
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('resolveRetention', () => {
  it('accepts exactly the integers inside the range, takes the default for undefined, and names the option otherwise', () => {
    fc.assert(
      fc.property(ranges, fc.oneof(fc.integer({ min: 0, max: 25 * DAY_MS }), fc.double({ noNaN: false }), fc.constant(undefined)), (range, value) => {
        const inside = value !== undefined && Number.isSafeInteger(value) && value >= range.minMs && value <= range.maxMs;
        if (value === undefined) expect(resolveRetention(value, range)).toBe(range.defaultMs);
        else if (inside) expect(resolveRetention(value, range)).toBe(value);
        else expect(() => resolveRetention(value, range)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', details: expect.objectContaining({ option: range.option }) }));
      }),
      { numRuns: 500 },
    );
  });

  it('states the range in words', () => {
    expect(() => resolveRetention(1, { option: 'historyRetentionMs', defaultMs: DAY_MS, minMs: HOUR_MS, maxMs: 366 * DAY_MS })).toThrow(
      `historyRetentionMs must be an integer number of ms from ${HOUR_MS} (1 hour) to ${366 * DAY_MS} (366 days)`,
    );
  });

  it('is the rule the history and the audits apply, each with its own range and option', () => {
    expect(HISTORY_RETENTION).toMatchObject({ option: 'historyRetentionMs', defaultMs: 30 * DAY_MS, minMs: HOUR_MS, maxMs: 366 * DAY_MS });
    expect(AUDIT_RETENTION).toMatchObject({ option: 'auditRetentionMs', defaultMs: 30 * DAY_MS, minMs: HOUR_MS, maxMs: 366 * DAY_MS });
    const monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(0) });
    try {
      fc.assert(
        fc.property(fc.oneof(fc.integer({ min: 0, max: 400 * DAY_MS }), fc.constant(undefined)), (value) => {
          const history = outcome(() => new NotificationHistory({ store: monitoring.store, clock: new ManualClock(0), ...(value !== undefined ? { retentionMs: value } : {}) }).retentionMs);
          expect(history).toBe(outcome(() => resolveRetention(value, HISTORY_RETENTION)));
          expect(outcome(() => resolveAuditRetention(value))).toBe(outcome(() => resolveRetention(value, AUDIT_RETENTION)));
        }),
        { numRuns: 200 },
      );
    } finally {
      monitoring.close();
    }
  });
});
