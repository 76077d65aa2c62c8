// Owns the example tests of the RE2 translation and the matcher compiler: what each RE2 construct matches, and what is refused.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { compileMatchers, compilePattern } from '../../src/protocols/label-matcher.js';
import { translateRe2 } from '../../src/protocols/re2-pattern.js';

/** [pattern, subjects it matches, subjects it does not] (every match is of the whole value). */
const CASES: readonly (readonly [string, readonly string[], readonly string[]])[] = [
  ['a', ['a'], ['', 'ba', 'ab', 'A']],
  ['a|b', ['a', 'b'], ['ab', '']],
  ['api_.*', ['api_', 'api_x'], ['xapi_', 'api_\n']],
  ['.', ['x', '😀', 'é', '\r'], ['\n', '', 'xx']],
  ['(?s).', ['\n', '😀'], ['']],
  ['\\s', [' ', '\t', '\n', '\f', '\r'], ['\v', '\u00a0', 'x']],
  ['\\S+', ['\v', 'ab', '😀'], [' a']],
  ['\\d+', ['0123'], ['٣', 'a']],
  ['\\w+', ['a_Z9'], ['é', '-']],
  ['[[:alpha:]]+', ['abcXYZ'], ['é', '1']],
  ['[[:^digit:]]+', ['ab😀'], ['a1']],
  ['[^[:space:]x]+', ['ab'], ['a b', 'x']],
  ['\\Q.*\\E', ['.*'], ['ab']],
  ['\\Q[a', ['[a'], ['a']],
  ['a{2}', ['aa'], ['a', 'aaa']],
  ['a{2,}', ['aa', 'aaaa'], ['a']],
  ['a{', ['a{'], ['a']],
  ['{x}', ['{x}'], ['x']],
  ['a{,2}', ['a{,2}'], ['aa']],
  ['x}', ['x}'], ['x']],
  ['\\x{1F600}', ['😀'], ['x']],
  ['\\x41\\101\\0', ['AA\0'], ['A']],
  ['\\a\\f\\t\\v', ['\u0007\f\t\v'], ['']],
  ['\\-\\:\\#\\"\\ ', ['-:#" '], ['']],
  ['[a\\-z]+', ['a-z'], ['b']],
  ['[]a]+', [']a'], ['b']],
  ['[^]a]', ['b'], [']', 'a']],
  ['[a-c]+', ['abc'], ['d']],
  ['[^a]', ['😀', '\n'], ['a', '']],
  ['😀+', ['😀😀'], ['😀\uD83D']],
  ['(?i)abc', ['ABC', 'aBc'], ['abd']],
  ['(?i)k', ['k', 'K', '\u212a'], ['x']],
  ['(?i)s+', ['sSſ'], ['x']],
  ['(?i)[a-c]+', ['AbC'], ['d']],
  ['(?i)[^a]', ['b', '😀'], ['a', 'A']],
  ['(?i)[[:upper:]]+', ['aZ'], ['1']],
  ['(?i)\\w+', ['aZ_ſ\u212a'], ['é']],
  ['(?i)\\W', ['é', '-'], ['ſ', 'A']],
  ['(?i)日本', ['日本'], ['日']],
  ['[\\x{d000}-\\x{e000}]', ['\ud000', '\ue000'], ['😀']],
  ['[\\x{e000}-\\x{ffff}]+', ['\ue000\uffff'], ['😀']],
  ['(?is)a.', ['A\n'], ['a']],
  ['(?P<x>a)(?<y>b)', ['ab'], ['a']],
  ['(a)+b', ['aab'], ['b']],
  ['\\Aab\\z', ['ab'], ['ab\n']],
  ['^a$', ['a'], ['a\n']],
  ['a/b', ['a/b'], ['ab']],
  ['', [''], ['a']],
  ['é', ['é'], ['e']],
];

/** Patterns RE2 or Strata refuses, with a word of the reason. */
const REFUSED: readonly (readonly [string, RegExp])[] = [
  ['(a+)+', /nests repetitions/],
  ['(a*)*b', /nests repetitions/],
  ['a\\1', /back-references/],
  ['(?P=x)', /back-references/],
  ['(?=a)', /lookahead/],
  ['(?<!a)b', /lookahead/],
  ['(?m)a', /flag m/],
  ['(?U)a', /flag U/],
  ['a(?i)b', /only at the start/],
  ['(?i:a)', /only at the start/],
  ['[a', /not closed/],
  ['a(', /does not compile/],
  ['a)', /does not compile/],
  ['*a', /does not compile/],
  ['a**', /does not compile/],
  ['a{1001}', /above 1000/],
  ['\\C', /any byte/],
  ['\\y', /not an RE2 escape/],
  ['a\\', /ends with a backslash/],
  ['\\x{110000}', /scalar value/],
  ['\\p{Nope}', /does not compile/],
  ['[z-a]', /ends before it starts/],
  ['[a-\\d]', /ends in a class/],
  ['[[:^alpha:]x]', /stand alone/],
  ['[[:nope:]]', /not an ASCII class/],
  ['(?P<1-2>a)', /group name/],
  ['(?P<x>a)(?P<x>b)', /used twice/],
  ['\\pL', /Unicode class \\p\{L\}/],
  ['\\p{Greek}', /Unicode class/],
  ['[\\S]', /inside brackets/],
  ['[x\\D]', /inside brackets/],
  ['[😀]', /above U\+FFFF/],
  ['(?i)é', /outside ASCII/],
  ['(?i)[à-ÿ]', /outside ASCII/],
  ['a{2,30}', /counted repetition/],
  [Array.from({ length: 26 }, () => 'a?').join(''), /more than 25/],
];

describe('compilePattern', () => {
  it.each(CASES)('%j matches what RE2 matches, anchored at both ends', (pattern, yes, no) => {
    const test = compilePattern(pattern);
    for (const s of yes) expect(test(s), `${pattern} should match ${JSON.stringify(s)}`).toBe(true);
    for (const s of no) expect(test(s), `${pattern} should not match ${JSON.stringify(s)}`).toBe(false);
  });

  it.each(REFUSED)('refuses %j with PROMETHEUS_MATCHER_INVALID', (pattern, reason) => {
    let thrown: unknown;
    try {
      compilePattern(pattern);
    } catch (error) {
      thrown = error;
    }
    expect(isStrataError(thrown) && thrown.code).toBe('PROMETHEUS_MATCHER_INVALID');
    expect((thrown as Error).message).toMatch(reason);
  });

  it.each(['.*.*.*.*.*.*.*.*x', '(?i)(a|a)*x', '(?i).*a.*a.*a.*a.*x', '(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)x'])(
    'runs %j on the linear-time engine (a backtracking engine would take hours on 250 characters)',
    (pattern) => {
      const test = compilePattern(pattern);
      expect(translateRe2(pattern).codeUnits).toBeDefined();
      expect(test('a'.repeat(250))).toBe(false);
      expect(test(`${'a'.repeat(22)}x`)).toBe(true);
    },
  );
});

describe('compileMatchers', () => {
  const series = { name: 'http_requests_total', labels: [{ name: 'code', value: '200' }, { name: 'job', value: 'api' }] };

  it('selects with each matcher type, a missing label being empty', () => {
    expect(compileMatchers([{ type: 'EQ', name: '__name__', value: 'http_requests_total' }])(series)).toBe(true);
    expect(compileMatchers([{ type: 'EQ', name: 'job', value: 'ap' }])(series)).toBe(false);
    expect(compileMatchers([{ type: 'NEQ', name: 'job', value: 'web' }])(series)).toBe(true);
    expect(compileMatchers([{ type: 'RE', name: 'code', value: '2..' }])(series)).toBe(true);
    expect(compileMatchers([{ type: 'RE', name: 'code', value: '2' }])(series)).toBe(false);
    expect(compileMatchers([{ type: 'NRE', name: 'code', value: '5..' }])(series)).toBe(true);
    expect(compileMatchers([{ type: 'EQ', name: 'instance', value: '' }])(series)).toBe(true);
    expect(compileMatchers([{ type: 'RE', name: 'instance', value: '.+' }])(series)).toBe(false);
    expect(compileMatchers([{ type: 'NEQ', name: 'instance', value: '' }])(series)).toBe(false);
    expect(compileMatchers([])(series)).toBe(true);
  });

  it('names the label of a refused pattern, and refuses an unknown type', () => {
    expect(() => compileMatchers([{ type: 'RE', name: 'job', value: '(a+)+' }])).toThrow(/label "job"/);
    expect(() => compileMatchers([{ type: 'XX' as 'EQ', name: 'job', value: 'a' }])).toThrow(/unknown type/);
  });
});
