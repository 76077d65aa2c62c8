// Property tests of filling alarm examples: any value is either refused naming its field or lands whole inside its own literal, and the criteria parse with the template's structure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { tokenize, type Token } from '../../../src/monitoring/alarm-language/tokenizer.js';
import { compileCriteria } from '../../../src/monitoring/alarms/criteria-eval.js';
import { escapeLiteral, escapePattern, fillExample, type AlarmExample } from '../../../src/monitoring/control/alarm-example-fill.js';
import { ALARM_EXAMPLES } from '../../../src/monitoring/control/alarm-examples.js';
import { ALARM_EXAMPLE_INTEGER_DIGITS_MAX, ALARM_EXAMPLE_TEXT_LENGTH_MAX } from '../../../src/monitoring/monitoring-limits.js';

/** Characters that break naive templating: quotes, escapes, regex syntax, placeholders of both kinds, controls, astral and lone surrogates. */
const tricky = fc.constantFrom("'", '"', '\\', '\n', '\r', '\t', '\u0000', '\u007f', '.', '*', '(', ')', '[', ']', '{', '}', '|', '^', '$', '?', '+', '/', '${', '#{', '}', ' ', 'é', '😀', '\ud800', '\u2028');
const textValue = fc.string({ unit: fc.oneof(tricky, fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), minLength: 0, maxLength: 60 });
// Mostly valid values, so that most runs of a two-threshold example get past the checks.
const integerValue = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 10 ** ALARM_EXAMPLE_INTEGER_DIGITS_MAX - 1 }), weight: 6 },
  { arbitrary: fc.stringMatching(new RegExp(`^[0-9]{1,${ALARM_EXAMPLE_INTEGER_DIGITS_MAX}}$`)), weight: 6 },
  fc.integer({ max: -1 }),
  fc.double(),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(true, null, '', '1e3', ' 1', '0x10', 10 ** ALARM_EXAMPLE_INTEGER_DIGITS_MAX),
);

const CONTROL = /[\u0000-\u001f\u007f]/;
/** What fillExample promises to take for an integer field. */
const validInteger = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && String(v).length <= ALARM_EXAMPLE_INTEGER_DIGITS_MAX) ||
  (typeof v === 'string' && new RegExp(`^[0-9]{1,${ALARM_EXAMPLE_INTEGER_DIGITS_MAX}}$`).test(v));
/** What fillExample checks of a string before placing it. */
const validText = (v: unknown): boolean => typeof v === 'string' && v.length >= 1 && v.length <= ALARM_EXAMPLE_TEXT_LENGTH_MAX && !CONTROL.test(v);
/** Short enough that even doubled by escaping it fits every literal of the catalogue. */
const SURELY_FITS_LENGTH = 30;

/** Values that name each field unmistakably in the criteria, to locate what a real fill must put there. */
function markers(example: AlarmExample): Record<string, string | number> {
  return Object.fromEntries(example.fields.map((field, i) => [field.name, field.type === 'integer' ? 987_654_321 + i : `MARKER${i}X`]));
}

/** Asserts `tokens` are the marker fill's tokens with each marker replaced by its value, escaped for patterns. */
function expectSameStructure(example: AlarmExample, values: Record<string, unknown>, tokens: readonly Token[]): void {
  const marked = markers(example);
  const reference = tokenize(fillExample(example, marked));
  expect(tokens.map((t) => t.kind)).toEqual(reference.map((t) => t.kind));
  reference.forEach((expected, i) => {
    const actual = tokens[i] as Token;
    if (expected.kind === 'ident' || expected.kind === 'punct') expect(actual.text).toBe(expected.text);
    if (expected.kind === 'number') {
      const field = example.fields.find((f) => marked[f.name] === expected.value);
      // == as JSON reads numbers: -0 is 0.
      expect(actual.value === (field === undefined ? expected.value : Number(values[field.name]))).toBe(true);
    }
    if (expected.kind === 'string') {
      const inPattern = ['regex', 'nregex'].includes(reference[i - 1]?.text ?? '');
      let text = String(expected.value);
      for (const field of example.fields) {
        const value = field.type === 'integer' ? String(Number(values[field.name])) : String(values[field.name]);
        text = text.split(String(marked[field.name])).join(inPattern && field.type === 'string' ? escapePattern(value) : value);
      }
      expect(actual.value).toBe(text);
    }
  });
}

const WITH_FIELDS = ALARM_EXAMPLES.filter((example) => example.fields.length > 0);

describe('fillExample (properties)', () => {
  it.each(WITH_FIELDS.map((example) => [example.id, example] as const))('%s: any values are refused naming a field, or placed whole inside their literals', (_id, example) => {
    const arbitraryValues = fc.record(Object.fromEntries(example.fields.map((field) => [field.name, field.type === 'integer' ? integerValue : textValue])));
    fc.assert(
      fc.property(arbitraryValues, (values: Record<string, unknown>) => {
        const valid = example.fields.every((field) => (field.type === 'integer' ? validInteger(values[field.name]) : validText(values[field.name])));
        const surelyFits = example.fields.every((field) => field.type === 'integer' || String(values[field.name]).length <= SURELY_FITS_LENGTH);
        let bound: string;
        try {
          bound = fillExample(example, values);
        } catch (error) {
          if (!isStrataError(error) || error.code !== 'MONITORING_FIELD_INVALID') throw error;
          expect(example.fields.map((field) => `values.${field.name}`)).toContain(error.details['key']);
          expect(valid && surelyFits, `refused ${JSON.stringify(values)}: ${String(error.details['problem'])}`).toBe(false);
          return;
        }
        expect(valid).toBe(true);
        // What the API answers is criteria an alarm accepts, and the evaluator compiles.
        expect(() => compileCriteria(bound)).not.toThrow();
        expectSameStructure(example, values, tokenize(bound));
      }),
      { numRuns: 150 },
    );
  });

  it('an escaped literal reads back as the same text, in either quote', () => {
    fc.assert(
      fc.property(textValue.filter((s) => !s.includes('\n')), (text) => {
        for (const quote of ["'", '"']) {
          const tokens = tokenize(`${quote}${escapeLiteral(text)}${quote}`);
          expect(tokens.map((t) => t.kind)).toEqual(['string', 'eof']);
          expect(tokens[0]?.value).toBe(text);
        }
      }),
    );
  });

  it('an escaped pattern matches its text literally and nothing else whole, not even the text with one character changed', () => {
    const changed = fc
      .tuple(textValue.filter((s) => s.length > 0), fc.nat(), fc.constantFrom('x', 'a', '\n', '.', '\\', ' '))
      .map(([text, at, c]) => [text, `${text.slice(0, at % text.length)}${c}${text.slice((at % text.length) + 1)}`] as const);
    fc.assert(
      fc.property(fc.oneof(fc.tuple(textValue, textValue), changed), ([text, other]) => {
        const whole = new RegExp(`^(?:${escapePattern(text)})$`);
        expect(whole.test(text)).toBe(true);
        expect(whole.test(other)).toBe(other === text);
      }),
      { numRuns: 300 },
    );
  });
});
