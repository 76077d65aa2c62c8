// Tests testAlarm: each result judged on its own (consecutiveCount 1), previous() from the same zone earlier in the list.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { testAlarm } from '../../../src/monitoring/alarms/test-alarm.js';
import { result } from './results.js';

describe('testAlarm', () => {
  it('judges each result alone even when the criteria ask for consecutive agreement', () => {
    const source = ":set consecutiveCount=5\nif (metric['code'] != '200') { return CRITICAL, 'code #{code}' } return OK";
    const results = [result({ code: '500' }, { timestampMs: 1 }), result({ code: '200' }, { timestampMs: 2 })];
    expect(testAlarm(source, results)).toEqual([
      { timestamp: 1, state: 'CRITICAL', status: 'code 500' },
      { timestamp: 2, state: 'OK', status: 'Matched default return statement' },
    ]);
  });

  it('gives previous() the prior result of the same zone in the list', () => {
    const source = "if (rate(metric['n']) > 1) { return WARNING, 'fast' } if (previous(metric['n']) >= 0) { return OK, 'steady' } return OK, 'first'";
    const results = [
      result({ n: 0 }, { zone: 'mzA', timestampMs: 0 }),
      result({ n: 0 }, { zone: 'mzB', timestampMs: 500 }),
      result({ n: 10 }, { zone: 'mzA', timestampMs: 1_000 }),
      result({ n: 0 }, { zone: 'mzB', timestampMs: 1_000 }),
    ];
    expect(testAlarm(source, results).map((r) => r.status)).toEqual(['first', 'first', 'fast', 'steady']);
  });

  it('applies the availability rule without criteria', () => {
    expect(testAlarm(null, [result({}), result({}, { available: false, status: 'timed out' })])).toEqual([
      { timestamp: 1_000_000, state: 'OK', status: 'Check is available' },
      { timestamp: 1_000_000, state: 'CRITICAL', status: 'timed out' },
    ]);
  });

  it('returns nothing for no results, and refuses criteria that do not parse', () => {
    expect(testAlarm('return OK', [])).toEqual([]);
    expect(() => testAlarm('return MAYBE', [])).toThrow(expect.objectContaining({ code: 'MONITORING_ALARM_PARSE_FAILED' }));
    try {
      testAlarm('return MAYBE', []);
    } catch (error) {
      expect(isStrataError(error) && error.details['error_token']).toBe('MAYBE');
    }
  });
});
