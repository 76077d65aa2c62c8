// Tests compileSafePattern's refusals and reasons, the pattern weight estimate, and the bounded subject of matchSafe.
import { describe, expect, it } from 'vitest';
import { isStrataError, StrataError } from '../../src/core/errors.js';
import { STATUS_OF_KIND } from '../../src/core/error-status.js';
import {
  PATTERN_LENGTH_MAX,
  PATTERN_MATCH_WORK_MAX,
  PATTERN_SUBJECT_LENGTH_MAX,
  PATTERN_WEIGHT_MAX,
} from '../../src/monitoring/monitoring-limits.js';
import { patternWeight } from '../../src/monitoring/pattern-weight.js';
import { linearEngineFlag } from '../../src/core/linear-regexp.js';
import { boundedSubject, compileSafePattern, execSafe, matchSafe, subjectLengthFor } from '../../src/monitoring/safe-pattern.js';

/** The error compileSafePattern throws for `source` (fails the test when it compiles). */
function refusal(source: string): StrataError {
  try {
    compileSafePattern(source);
  } catch (error) {
    if (isStrataError(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be refused`);
}

describe('compileSafePattern', () => {
  it.each(['error', '^OK$', 'code=2\\d\\d', '[Ee]rror.*timeout', '^HTTP/1\\.[01] 200 OK$', '(?:ab)+c', '\\bfoo\\b', 'a{1,3}', '', '(?<word>\\w+)'])(
    'accepts %j and matches like a plain RegExp',
    (source) => {
      const re = compileSafePattern(source);
      expect(re.source).toBe(new RegExp(source).source);
      for (const text of ['error here', 'OK', 'code=204', 'Error: timeout', 'HTTP/1.1 200 OK', 'ababc', 'a foo b', 'aaa', 'x y']) {
        expect(matchSafe(re, text), `${source} on ${text}`).toBe(new RegExp(source).test(text));
      }
    },
  );

  it.each(['(a+)+', '(a*)*', '(a+)*b', '(?:a|b+)+', '(\\w+\\s?)+$', '(.*a){12}', '(x+x+)+y'])('refuses the nested quantifier %j as unsafe', (source) => {
    const error = refusal(source);
    expect(error.code).toBe('MONITORING_PATTERN_UNSAFE');
    expect(error.details).toEqual({ pattern: source, reason: 'unsafe' });
  });

  it('refuses more repetitions than PATTERN_REPETITIONS_MAX', () => {
    expect(refusal('a*'.repeat(11)).details['reason']).toBe('unsafe');
    expect(compileSafePattern('a*'.repeat(10)).source).toBe('a*'.repeat(10));
  });

  it('refuses a pattern longer than PATTERN_LENGTH_MAX, cutting the pattern in the details', () => {
    const long = 'a'.repeat(PATTERN_LENGTH_MAX + 1);
    const error = refusal(long);
    expect(error.details).toEqual({ pattern: 'a'.repeat(PATTERN_LENGTH_MAX), reason: 'too_long' });
    expect(compileSafePattern('a'.repeat(PATTERN_WEIGHT_MAX)).source).toHaveLength(PATTERN_WEIGHT_MAX);
  });

  it.each(['(', '[a-', 'a{2,1}', '*a', '(?<n>a)(?<n>b)'])('refuses the invalid syntax %j', (source) => {
    const error = refusal(source);
    expect(error.details['reason']).toBe('invalid_syntax');
    expect(error.message).toMatch(/not a valid regular expression/);
  });

  it('refuses a pattern that expands to more than PATTERN_WEIGHT_MAX states', () => {
    const source = '(?:a|aa|aaa|aaaa|aaaaa|aaaaaa|aaaaaaa|aaaaaaaa){0,16}x';
    expect(patternWeight(source)).toBeGreaterThan(PATTERN_WEIGHT_MAX);
    expect(refusal(source).details['reason']).toBe('too_complex');
  });

  it('refuses back-references and lookaround, which cannot run in linear time', () => {
    expect(linearEngineFlag()).toBe('l');
    for (const source of ['(a)\\1', 'a(?=b)', 'a(?!b)']) expect(refusal(source).details['reason']).toBe('not_linear');
    // Lookbehind is refused earlier: safe-regex2 cannot analyse it.
    expect(['unsafe', 'not_linear']).toContain(refusal('(?<=a)b').details['reason']);
  });

  it('compiles for the linear-time engine, so a classic catastrophic shape that passes star height runs quickly', () => {
    const re = compileSafePattern('a*a*a*a*x'); // backtracking takes minutes on 1,000 characters
    expect(re.flags).toContain('l');
    const started = performance.now();
    expect(matchSafe(re, 'a'.repeat(PATTERN_SUBJECT_LENGTH_MAX))).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('is an invalid-kind error that maps to 400', () => {
    const error = refusal('(a+)+');
    expect(error.kind).toBe('invalid');
    expect(STATUS_OF_KIND[error.kind]).toBe(400);
  });
});

describe('patternWeight', () => {
  it.each([
    ['abc', 3],
    ['a|bc', 3],
    ['(?:ab)+', 4],
    ['a{3}', 3],
    ['a{2,5}b', 6],
    ['(?:ab){4}', 8],
    ['[a-z]{0,4}', 4],
    ['\\d\\x41\\u0041\\cA', 4],
    ['(?<name>a|b)*', 4],
    ['a{', 2],
    ['a{2,}b', 5],
    ['.*.*x', 5],
    ['a?b', 2],
  ])('weighs %j as %i', (source, weight) => {
    expect(patternWeight(source)).toBe(weight);
  });
});

describe('bounded subjects', () => {
  it('cuts a subject to PATTERN_SUBJECT_LENGTH_MAX without a pattern, and less for a heavy pattern', () => {
    const text = 'x'.repeat(PATTERN_SUBJECT_LENGTH_MAX + 10);
    expect(boundedSubject(text)).toHaveLength(PATTERN_SUBJECT_LENGTH_MAX);
    const light = compileSafePattern('x');
    expect(subjectLengthFor(light)).toBe(PATTERN_SUBJECT_LENGTH_MAX);
    const heavy = compileSafePattern('[a-z]?'.repeat(10) + 'y'.repeat(100));
    expect(subjectLengthFor(heavy)).toBe(Math.floor(PATTERN_MATCH_WORK_MAX / patternWeight(heavy.source)));
    expect(boundedSubject(text, heavy).length).toBe(subjectLengthFor(heavy));
  });

  it('matchSafe and execSafe see only the bounded subject, and restart a global pattern at 0', () => {
    const re = compileSafePattern('needle');
    expect(matchSafe(re, `${'x'.repeat(PATTERN_SUBJECT_LENGTH_MAX - 6)}needle`)).toBe(true);
    expect(matchSafe(re, `${'x'.repeat(PATTERN_SUBJECT_LENGTH_MAX)}needle`)).toBe(false);
    expect(execSafe(re, 'a needle here')?.[0]).toBe('needle');
    expect(execSafe(re, `${'x'.repeat(PATTERN_SUBJECT_LENGTH_MAX)}needle`)).toBeNull();
    const global = new RegExp('a', 'g');
    expect(matchSafe(global, 'a')).toBe(true);
    expect(matchSafe(global, 'a')).toBe(true);
  });
});
