// Checks filling alarm example templates: placeholder contexts, value checks naming values.<field>, escaping, and refusals once a value is placed.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../../src/core/assert.js';
import { isStrataError } from '../../../src/core/errors.js';
import { tokenize } from '../../../src/monitoring/alarm-language/tokenizer.js';
import { assertWellMade, escapeLiteral, escapePattern, fillExample, placeholdersOf, type AlarmExample } from '../../../src/monitoring/control/alarm-example-fill.js';
import { alarmExample } from '../../../src/monitoring/control/alarm-examples.js';
import { ALARM_EXAMPLE_INTEGER_DIGITS_MAX, ALARM_EXAMPLE_TEXT_LENGTH_MAX } from '../../../src/monitoring/monitoring-limits.js';

/** A test example with these fields and criteria. */
function example(criteria: string, fields: AlarmExample['fields']): AlarmExample {
  return { id: 'remote.http_test', label: 'Test', description: 'A test example.', check_type: 'remote.http', criteria, fields };
}

const THRESHOLDS = example("if (metric['duration'] > ${limit}) { return new AlarmStatus(CRITICAL, 'over ${limit} ms'); } return new AlarmStatus(OK);", [
  { name: 'limit', description: 'Limit in ms.', type: 'integer' },
]);
const TEXT = example(
  "if (metric['body_match'] regex 'x${word}y') { return new AlarmStatus(CRITICAL, 'found'); } if (metric['code'] == \"${word}\") { return new AlarmStatus(WARNING); } return new AlarmStatus(OK);",
  [{ name: 'word', description: 'A word.', type: 'string' }],
);

/** The key and problem of the MONITORING_FIELD_INVALID `run` throws. */
function refusal(run: () => unknown): { key: string; problem: string } {
  try {
    run();
  } catch (error) {
    if (isStrataError(error) && error.code === 'MONITORING_FIELD_INVALID') return { key: String(error.details['key']), problem: String(error.details['problem']) };
    throw error;
  }
  throw new Error('expected a field error');
}

describe('placeholdersOf', () => {
  it('finds each placeholder with its span and context: outside literals, inside one, inside a regex pattern', () => {
    const template = "if (metric['m_${a}'] regex \"^${b}\" && metric['n'] nregex '${c}' && metric['x'] > ${d}) { return new AlarmStatus(OK, 'at ${d}'); }";
    const found = placeholdersOf(template);
    expect(found.map((p) => [p.name, p.context])).toEqual([
      ['a', 'text'],
      ['b', 'pattern'],
      ['c', 'pattern'],
      ['d', 'number'],
      ['d', 'text'],
    ]);
    for (const p of found) expect(template.slice(p.start, p.end)).toBe(`\${${p.name}}`);
  });

  it('reads escaped quotes inside literals as the alarm language does', () => {
    expect(placeholdersOf("return new AlarmStatus(OK, 'it\\'s ${a}') ${b}").map((p) => [p.name, p.context])).toEqual([
      ['a', 'text'],
      ['b', 'number'],
    ]);
    expect(placeholdersOf("'${dotted.name}' $ {x} ${}")).toEqual([{ name: 'dotted.name', start: 1, end: 15, context: 'text' }]);
  });
});

describe('assertWellMade', () => {
  it('refuses a placeholder without a field, a field never used, and a string field outside a literal', () => {
    expect(() => assertWellMade(example("return new AlarmStatus(OK, '${a}');", []))).toThrow(AssertionFailure);
    expect(() => assertWellMade(example('return new AlarmStatus(OK);', [{ name: 'a', description: 'A.', type: 'integer' }]))).toThrow(AssertionFailure);
    expect(() => assertWellMade(example("if (metric['x'] > ${a}) { return new AlarmStatus(OK); }", [{ name: 'a', description: 'A.', type: 'string' }]))).toThrow(AssertionFailure);
    expect(() => assertWellMade(THRESHOLDS)).not.toThrow();
    expect(() => assertWellMade(TEXT)).not.toThrow();
  });
});

describe('fillExample', () => {
  it('places integers as digits, from JSON numbers or zero-padded digit strings', () => {
    const expected = "if (metric['duration'] > 250) { return new AlarmStatus(CRITICAL, 'over 250 ms'); } return new AlarmStatus(OK);";
    expect(fillExample(THRESHOLDS, { limit: 250 })).toBe(expected);
    expect(fillExample(THRESHOLDS, { limit: '000250' })).toBe(expected);
    expect(fillExample(THRESHOLDS, { limit: 0 })).toContain('> 0)');
  });

  it('escapes strings for their literal, and for the pattern inside regex', () => {
    const filled = fillExample(TEXT, { word: `a.b'"\\c` });
    expect(filled).toContain(String.raw`regex 'xa\\.b\'\"\\\\cy'`);
    expect(filled).toContain(String.raw`== "a.b\'\"\\c"`);
    expect(escapePattern('1.2*(x)[y]{z}|^$?+/\\')).toBe(String.raw`1\.2\*\(x\)\[y\]\{z\}\|\^\$\?\+\/\\`);
    expect(escapeLiteral(`'"\\`)).toBe(String.raw`\'\"\\`);
  });

  it('refuses missing, unknown and mistyped values naming values.<field>', () => {
    expect(refusal(() => fillExample(THRESHOLDS, {}))).toEqual({ key: 'values.limit', problem: 'is required' });
    expect(refusal(() => fillExample(THRESHOLDS, { limit: 1, other: 2 })).key).toBe('values.other');
    for (const bad of [-1, 1.5, '1.5', '-3', ' 12', '', 'ten', true, null, [], {}, 2 ** 53, '9'.repeat(ALARM_EXAMPLE_INTEGER_DIGITS_MAX + 1)]) {
      expect(refusal(() => fillExample(THRESHOLDS, { limit: bad })).key, JSON.stringify(bad)).toBe('values.limit');
    }
    for (const bad of ['', 'x'.repeat(ALARM_EXAMPLE_TEXT_LENGTH_MAX + 1), 'line\nbreak', 'tab\there', 'nul\u0000', 'del\u007f', 42, null, ['a']]) {
      expect(refusal(() => fillExample(TEXT, { word: bad })).key, JSON.stringify(bad)).toBe('values.word');
    }
    expect(refusal(() => fillExample(TEXT, { word: 'two\nlines' })).problem).toMatch(/control characters/);
    expect(fillExample(TEXT, { word: 'x'.repeat(ALARM_EXAMPLE_TEXT_LENGTH_MAX - 2) })).toContain('regex');
  });

  it('refuses a value that breaks a language limit once placed, naming its field', () => {
    // 78 dots grow to 156 characters once escaped: longer than a string literal may be.
    const refused = refusal(() => fillExample(TEXT, { word: '.'.repeat(ALARM_EXAMPLE_TEXT_LENGTH_MAX - 2) }));
    expect(refused.key).toBe('values.word');
    expect(refused.problem).toMatch(/^makes the criteria invalid once placed: string longer than 80 characters/);
    const named = alarmExample('remote.dns_address_match');
    expect(named).toBeDefined();
    expect(refusal(() => fillExample(named!, { address: 'a'.repeat(ALARM_EXAMPLE_TEXT_LENGTH_MAX) })).key).toBe('values.address');
  });

  it('cannot break out of a literal: the filled criteria have the tokens of a harmless fill, the attack inside one string', () => {
    const found = alarmExample('remote.http_body_match_found');
    expect(found).toBeDefined();
    const attack = "') { return new AlarmStatus(OK); } if (metric['x'] == '";
    const tokens = tokenize(fillExample(found!, { string: attack }));
    const harmless = tokenize(fillExample(found!, { string: 'x' }));
    expect(tokens.map((t) => t.kind)).toEqual(harmless.map((t) => t.kind));
    expect(tokens.find((t) => t.kind === 'string' && t.value !== 'body_match')?.value).toBe(escapePattern(attack));
  });
});
