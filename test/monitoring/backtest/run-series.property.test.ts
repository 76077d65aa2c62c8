// Properties of the run point's value: what runValue writes, parseRunValue reads back (availability, the status a verdict needs, an agent check's zone); foreign values are refused; run names are told apart from metric names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STRING_VALUE_LENGTH_MAX } from '../../../src/core/limits.js';
import { STATUS_MESSAGE_LENGTH_MAX } from '../../../src/monitoring/alarm-language/language-limits.js';
import { parseRunValue, RUN_STATUS_LENGTH_MAX, runSeries, runValue, zoneText } from '../../../src/monitoring/backtest/run-series.js';
import { isRunMetricName } from '../../../src/monitoring/check-metrics.js';

const text = fc.string({ unit: fc.oneof(fc.constantFrom(':', '@', '%', 'u', 'p', 'd', '\ud83d\ude00', '\ud800'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 });
const longText = fc.string({ unit: fc.constantFrom('x', ':', '\ud83d\ude00'), minLength: 0, maxLength: 3_000 });
const zone = fc.oneof(fc.stringMatching(/^mz[A-Za-z0-9]{1,30}$/), text);

describe('run point values', () => {
  it('parse back to the availability, the status (when unavailable) and the zone of an agent check', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.oneof(text, longText), zone, fc.boolean(), (available, status, zoneId, withZone) => {
        const value = runValue({ available, status, monitoringZoneId: zoneId }, withZone);
        expect(value.length).toBeLessThanOrEqual(STRING_VALUE_LENGTH_MAX);
        const facts = parseRunValue(value);
        expect(facts?.available).toBe(available);
        if (available) expect(facts?.status).toBe('');
        else {
          // The kept status is a prefix of the status, as long as a verdict ever reads of it.
          expect(status.startsWith(facts?.status ?? '\u0000')).toBe(true);
          expect(facts?.status.length).toBeGreaterThanOrEqual(Math.min(status.length, STATUS_MESSAGE_LENGTH_MAX, RUN_STATUS_LENGTH_MAX - 1));
        }
        const carried = withZone && zoneText(zoneId) !== '';
        expect(facts?.zoneId).toBe(carried ? zoneId : undefined);
      }),
      { numRuns: 500 },
    );
  });

  it('an agent check carries its zone when it is short, well-formed text', () => {
    expect(zoneText('mzdfw')).toBe('mzdfw');
    expect(zoneText('a:b@c')).toBe('a%3Ab%40c');
    expect(zoneText('\ud800')).toBe('');
    expect(zoneText('z'.repeat(65))).toBe('');
  });

  it('remote values are exactly up and down:<status>', () => {
    expect(runValue({ available: true, status: 'code=200', monitoringZoneId: 'mzdfw' }, false)).toBe('up');
    expect(runValue({ available: false, status: 'refused: x', monitoringZoneId: 'mzdfw' }, false)).toBe('down:refused: x');
    expect(runValue({ available: false, status: 'refused', monitoringZoneId: 'mzord' }, true)).toBe('down@mzord:refused');
    expect(parseRunValue('down:')).toEqual({ available: false, status: '' });
  });

  it('refuses values it did not write', () => {
    for (const value of ['', 'UP', 'upx', 'up:status', 'down', 'downx', 'down@mz', 'maybe', 'up@%E0%A4%A', '200']) expect(parseRunValue(value)).toBeNull();
  });

  it('names the run series <entity>.<check>.<zone>.@run and <entity>.<check>.@run; only those names are run names', () => {
    expect(runSeries('enA1', 'chB2', 'mzdfw')).toBe('enA1.chB2.mzdfw.@run');
    expect(runSeries('enA1', 'chB2', null)).toBe('enA1.chB2.@run');
    expect(isRunMetricName('@run')).toBe(true);
    expect(isRunMetricName('mzdfw.@run')).toBe(true);
    for (const name of ['run', '@runs', 'mzdfw.@run.x', 'cpu0.@run', 'mz.@run', 'mzdfw.code', 'x@run']) expect(isRunMetricName(name)).toBe(false);
    fc.assert(
      fc.property(text, (name) => {
        if (!name.endsWith('@run')) expect(isRunMetricName(name)).toBe(false);
      }),
    );
  });
});
