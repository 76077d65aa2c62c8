// Tests that alarm create/update refuse unsafe regex/nregex literals as parse errors placed at the literal.
import { describe, expect, it } from 'vitest';
import { isStrataError, type StrataError } from '../../../src/core/errors.js';
import { AlarmParseError } from '../../../src/monitoring/alarm-language/parse-error.js';
import { checkCriteria } from '../../../src/monitoring/alarm-rules.js';
import { checkCriteriaPatterns } from '../../../src/monitoring/alarms/criteria-patterns.js';

function parseFailure(criteria: string): StrataError {
  try {
    checkCriteria(criteria);
  } catch (error) {
    if (isStrataError(error)) return error;
    throw error;
  }
  throw new Error('expected a parse failure');
}

describe('unsafe patterns in criteria', () => {
  it('accepts safe regex and nregex literals', () => {
    expect(() => checkCriteria("if (metric['code'] regex '^5\\\\d\\\\d$' || metric['body'] nregex 'OK') { return CRITICAL } return OK")).not.toThrow();
  });

  it('refuses a nested quantifier with MONITORING_ALARM_PARSE_FAILED at the literal', () => {
    const criteria = "if (metric['code'] == '200') { return OK }\nif (metric['body'] nregex \"(a+)+\") { return CRITICAL }";
    const error = parseFailure(criteria);
    expect(error.code).toBe('MONITORING_ALARM_PARSE_FAILED');
    expect(error.details).toMatchObject({ input: criteria, error_line: 2, error_column: 27, error_token: '"(a+)+"', error_position: criteria.indexOf('"(a+)+"') });
    expect(String(error.details['message'])).toMatch(/unsafe regular expression \(unsafe\)/);
  });

  it('throws AlarmParseError itself for the rules to convert, and leaves string literals elsewhere alone', () => {
    expect(() => checkCriteriaPatterns("if (metric['x'] regex '(a)\\\\1') { return OK }")).toThrow(AlarmParseError);
    expect(() => checkCriteriaPatterns("if (metric['x'] == '(a+)+') { return OK, '(a+)+' }")).not.toThrow();
  });
});
