// Tests every rule of evaluating alarm criteria against one result: returns, comparisons, functions, messages and availability.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { STATUS_MESSAGE_LENGTH_MAX } from '../../../src/monitoring/alarm-language/language-limits.js';
import { compileCriteria, evaluateCriteria, type Verdict } from '../../../src/monitoring/alarms/criteria-eval.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import { result } from './results.js';

const verdict = (source: string | null, current: CheckResult, previous: CheckResult | null = null): Verdict =>
  evaluateCriteria(compileCriteria(source), current, previous);
/** The state `if (<condition>) { return CRITICAL } return OK` gives: CRITICAL when the condition holds. */
const holds = (condition: string, current: CheckResult, previous: CheckResult | null = null): boolean =>
  verdict(`if (${condition}) { return CRITICAL } return OK`, current, previous).state === 'CRITICAL';

describe('no criteria', () => {
  it('is OK when the check is available', () => {
    expect(verdict(null, result({}))).toEqual({ state: 'OK', status: 'Check is available' });
  });
  it("is CRITICAL with the check's status when it is unavailable", () => {
    expect(verdict(null, result({}, { available: false, status: 'connection refused' }))).toEqual({ state: 'CRITICAL', status: 'connection refused' });
    expect(verdict(null, result({}, { available: false, status: '' }))).toEqual({ state: 'CRITICAL', status: 'Check is unavailable' });
  });
});

describe('statements and returns', () => {
  const source = `
    if (metric['code'] regex '^5') { return new AlarmStatus(CRITICAL, 'server error #{code}'); }
    if (metric['duration'] > 500) {
      if (metric['duration'] > 1000) { return WARNING, 'very slow' }
    }
    if (metric['duration'] > 500) {
      return WARNING
    }
    return new AlarmStatus(OK, 'fine');`;

  it('runs statements in order and the first return reached wins', () => {
    expect(verdict(source, result({ code: '503', duration: 2000 }))).toEqual({ state: 'CRITICAL', status: 'server error 503' });
    expect(verdict(source, result({ code: '200', duration: 2000 }))).toEqual({ state: 'WARNING', status: 'very slow' });
  });
  it('falls through an if whose body returns nothing', () => {
    expect(verdict(source, result({ code: '200', duration: 700 }))).toEqual({ state: 'WARNING', status: 'Matched return statement on line 7' });
  });
  it('reaches the trailing return when no branch matched', () => {
    expect(verdict(source, result({ code: '200', duration: 10 }))).toEqual({ state: 'OK', status: 'fine' });
  });
  it("a message-less return outside any if says 'Matched default return statement'", () => {
    expect(verdict("if (metric['x'] > 1) { return CRITICAL } return WARNING", result({ x: 0 }))).toEqual({ state: 'WARNING', status: 'Matched default return statement' });
  });
  it("no return reached at all is OK 'Matched default return statement'", () => {
    expect(verdict("if (metric['x'] > 1) { return CRITICAL }", result({ x: 0 }))).toEqual({ state: 'OK', status: 'Matched default return statement' });
    expect(verdict(':set consecutiveCount=2', result({}))).toEqual({ state: 'OK', status: 'Matched default return statement' });
  });
});

describe('comparisons', () => {
  it('compare two numbers numerically', () => {
    const r = result({ n: 10 });
    expect([holds("metric['n'] > 9", r), holds("metric['n'] >= 10", r), holds("metric['n'] < 10", r), holds("metric['n'] <= 10", r)]).toEqual([true, true, false, true]);
    expect([holds("metric['n'] == 10", r), holds("metric['n'] != 10", r), holds("metric['n'] == 10.0", r), holds("metric['n'] > -1e3", r)]).toEqual([true, false, true, true]);
  });
  it('compare strings with == and != as text', () => {
    const r = result({ s: 'abc' });
    expect([holds("metric['s'] == 'abc'", r), holds("metric['s'] != 'abc'", r), holds("metric['s'] == 'ABC'", r), holds("metric['s'] != 'abd'", r)]).toEqual([true, false, false, true]);
  });
  it("compare a number metric with a string literal through the number's decimal text", () => {
    const r = result({ n: 200, f: 0.5 });
    expect([holds("metric['n'] == '200'", r), holds("metric['n'] != '200'", r), holds("metric['n'] == '200.0'", r), holds("metric['f'] == '0.5'", r)]).toEqual([true, false, false, true]);
  });
  it('compare a string holding a number with a number: == as text, ordering numerically', () => {
    const r = result({ code: '404' });
    expect([holds("metric['code'] == 404", r), holds("metric['code'] >= 400", r), holds("metric['code'] < 400", r)]).toEqual([true, true, false]);
    expect(holds("metric['code'] > 1", result({ code: 'n/a' }))).toBe(false);
  });
  it('compare two metrics', () => {
    const r = result({ a: 5, b: 7, s: 'x', t: 'x' });
    expect([holds("metric['a'] < metric['b']", r), holds("metric['s'] == metric['t']", r), holds("metric['a'] == metric['b']", r)]).toEqual([true, true, false]);
  });
  it('regex and nregex match the text of the value', () => {
    const r = result({ body: 'Service is DOWN', code: 503 });
    expect([holds("metric['body'] regex 'DOWN'", r), holds("metric['body'] nregex 'DOWN'", r), holds("metric['body'] regex '^down'", r)]).toEqual([true, false, false]);
    expect([holds("metric['code'] regex '^5\\\\d\\\\d$'", r), holds("metric['code'] nregex '^2'", r)]).toEqual([true, true]);
  });
  it('a comparison with a missing operand is false, whatever the operator', () => {
    const r = result({ a: 1 });
    for (const op of ['==', '!=', '>', '<', '>=', '<=']) expect(holds(`metric['missing'] ${op} 1`, r), op).toBe(false);
    expect(holds("metric['missing'] regex 'x'", r)).toBe(false);
    expect(holds("metric['missing'] nregex 'x'", r)).toBe(false);
    expect(holds("1 == metric['missing']", r)).toBe(false);
  });
  it('&& and || combine, with || below &&', () => {
    const r = result({ a: 1, b: 2 });
    expect(holds("metric['a'] == 1 && metric['b'] == 3 || metric['b'] == 2", r)).toBe(true);
    expect(holds("metric['a'] == 1 && (metric['b'] == 3 || metric['b'] == 4)", r)).toBe(false);
  });
});

describe('functions', () => {
  const before = result({ count: 100, code: '200', used: 1 }, { timestampMs: 60_000 });
  const now = result({ count: 160, code: '500', used: 25, total: 50, zero: 0 }, { timestampMs: 90_000 });

  it("previous(m) is the same zone's prior value; missing previous makes the comparison false", () => {
    expect(holds("previous(metric['code']) == '200'", now, before)).toBe(true);
    expect(holds("previous(metric['code']) != metric['code']", now, before)).toBe(true);
    expect(holds("previous(metric['code']) == '200'", now, null)).toBe(false);
    expect(holds("previous(metric['total']) > 0", now, before)).toBe(false);
  });
  it('rate(m) is the change per second between the previous and the current result', () => {
    expect(holds("rate(metric['count']) == 2", now, before)).toBe(true); // (160 - 100) / 30 s
    expect(holds("rate(metric['count']) >= 0", now, null)).toBe(false);
    expect(holds("rate(metric['count']) >= 0", now, result({ count: 1 }, { timestampMs: 90_000 }))).toBe(false); // t1 = t0
    expect(holds("rate(metric['count']) >= 0", before, now)).toBe(false); // t1 < t0
    expect(holds("rate(metric['code']) >= 0", result({ code: 'x' }, { timestampMs: 2 }), result({ code: 'y' }, { timestampMs: 1 }))).toBe(false);
  });
  it('percentage(a, b) is a / b × 100, missing when b is 0 or either is missing', () => {
    expect(holds("percentage(metric['used'], metric['total']) == 50", now)).toBe(true);
    expect(holds("percentage(metric['used'], metric['zero']) >= 0", now)).toBe(false);
    expect(holds("percentage(metric['used'], metric['nothing']) >= 0", now)).toBe(false);
    expect(holds("percentage(metric['used'], 200) == 12.5", now)).toBe(true);
  });
});

describe('messages', () => {
  it('#{name} is replaced by the current value; an unknown metric stays as written', () => {
    const r = result({ code: '503', duration: 1234.5 });
    expect(verdict("return CRITICAL, 'got #{code} in #{duration} ms, #{nope}'", r).status).toBe('got 503 in 1234.5 ms, #{nope}');
  });
  it('the status is cut to STATUS_MESSAGE_LENGTH_MAX', () => {
    const long = 'x'.repeat(200);
    const status = verdict("return CRITICAL, 'v=#{v}'", result({ v: long })).status;
    expect(status).toHaveLength(STATUS_MESSAGE_LENGTH_MAX);
    expect(status.startsWith('v=xxx')).toBe(true);
  });
});

describe('an unavailable result', () => {
  const down = result({}, { available: false, status: 'connect ECONNREFUSED' });
  it("is CRITICAL 'Check failed: <status>' when no if branch returns", () => {
    expect(verdict("if (metric['code'] == '500') { return WARNING } return OK", down)).toEqual({ state: 'CRITICAL', status: 'Check failed: connect ECONNREFUSED' });
    expect(verdict("if (metric['code'] == '500') { return WARNING }", down).state).toBe('CRITICAL');
  });
  it('takes the return of an if branch the criteria reach (the criteria say otherwise)', () => {
    const partial = result({ tt_connect: 3 }, { available: false, status: 'timeout' });
    expect(verdict("if (metric['tt_connect'] > 0) { return WARNING, 'slow #{tt_connect}' } return OK", partial)).toEqual({ state: 'WARNING', status: 'slow 3' });
  });
  it('cuts a long failure status to STATUS_MESSAGE_LENGTH_MAX', () => {
    expect(verdict('return OK', result({}, { available: false, status: 'e'.repeat(300) })).status).toHaveLength(STATUS_MESSAGE_LENGTH_MAX);
  });
});

describe('compileCriteria', () => {
  it('reads :set values', () => {
    expect(compileCriteria(':set consecutiveCount=3 :set consistencyLevel=ALL return OK').settings).toEqual({ consecutiveCount: 3, consistencyLevel: 'ALL' });
    expect(compileCriteria(null).settings).toEqual({});
  });
  it('throws MONITORING_ALARM_PARSE_FAILED for criteria that do not parse or hold an unsafe pattern', () => {
    for (const source of ['if (', "if (metric['a'] regex '(a+)+') { return OK }"]) {
      try {
        compileCriteria(source);
        expect.unreachable(source);
      } catch (error) {
        expect(isStrataError(error) && error.code).toBe('MONITORING_ALARM_PARSE_FAILED');
      }
    }
  });
});
