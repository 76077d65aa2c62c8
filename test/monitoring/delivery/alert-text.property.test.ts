// Property tests of the alert text: lines stay single, cut text stays within its limit, any event yields a summary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alertBodyLines, alertSubject, alertSummary, shortAlertText, singleLine, truncateText } from '../../../src/monitoring/delivery/alert-text.js';
import type { AlarmEventPayload } from '../../../src/monitoring/delivery/channel-types.js';
import { ALERT_LIST_LINES_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { sampleEvent } from './channel-jobs.js';

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Any JSON value where the event has objects, so the summary must cope with wrong shapes. */
const anything = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }));

const looseEvent: fc.Arbitrary<AlarmEventPayload> = fc
  .record({
    details: fc.oneof(
      anything,
      fc.record({ state: anything, status: anything, timestamp: anything, metrics: fc.dictionary(fc.string(), anything, { maxKeys: 80 }), observations: fc.array(anything, { maxLength: 60 }) }),
    ),
    entity: fc.oneof(anything, fc.record({ id: anything, label: anything })),
    check: fc.oneof(anything, fc.record({ id: anything, label: anything, type: anything })),
    alarm: fc.oneof(anything, fc.record({ id: anything, label: anything })),
  })
  .map((parts) => ({ ...parts, event_id: 'e', log_entry_id: 'l', tenant_id: 't' }));

describe('alert text', () => {
  it('singleLine leaves no control character', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(CONTROL.test(singleLine(s))).toBe(false);
      }),
    );
  });

  it('truncateText keeps at most max code points and keeps text that fits unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 3, max: 300 }), (s, max) => {
        const cut = truncateText(s, max);
        expect(Array.from(cut).length).toBeLessThanOrEqual(max);
        if (Array.from(s).length <= max) expect(cut).toBe(s);
        else expect(cut.endsWith('...')).toBe(true);
      }),
    );
  });

  it('any event yields a one-line subject, a bounded short text and bounded single-line body lines', () => {
    fc.assert(
      fc.property(looseEvent, fc.integer({ min: 3, max: 400 }), (event, max) => {
        const summary = alertSummary(event);
        expect(CONTROL.test(alertSubject(summary))).toBe(false);
        const short = shortAlertText(summary, max);
        expect(CONTROL.test(short)).toBe(false);
        expect(Array.from(short).length).toBeLessThanOrEqual(max);
        const lines = alertBodyLines(summary);
        for (const line of lines) expect(CONTROL.test(line)).toBe(false);
        expect(lines.length).toBeLessThanOrEqual(2 * (ALERT_LIST_LINES_MAX + 1) + 16);
      }),
    );
  });

  it('reads the sample event and counts the metrics left out of a long list', () => {
    const event = sampleEvent();
    const details = event.details as Record<string, unknown>;
    const metrics = Object.fromEntries(Array.from({ length: ALERT_LIST_LINES_MAX + 7 }, (_, i) => [`m${String(i).padStart(3, '0')}`, { type: 'i', data: i, unit: 'count' }]));
    const summary = alertSummary({ ...event, details: { ...details, metrics } });
    expect(summary.previousState).toBe('OK');
    expect(summary.metrics).toHaveLength(ALERT_LIST_LINES_MAX + 7);
    const lines = alertBodyLines(summary);
    expect(lines).toContain('  m000: 0 count (type i)');
    expect(lines).toContain('  ... and 7 more');
    expect(lines).not.toContain(`  m${String(ALERT_LIST_LINES_MAX).padStart(3, '0')}: ${ALERT_LIST_LINES_MAX} count (type i)`);
  });
});
