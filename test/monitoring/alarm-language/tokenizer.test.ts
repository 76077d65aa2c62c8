// Checks the alarm-language tokenizer: token kinds, string escapes, comments, positions and errors.
import { describe, expect, it } from 'vitest';
import { AlarmParseError } from '../../../src/monitoring/alarm-language/parse-error.js';
import { tokenize } from '../../../src/monitoring/alarm-language/tokenizer.js';

function placeOf(source: string): unknown {
  try {
    tokenize(source);
  } catch (error) {
    if (error instanceof AlarmParseError) return { ...error.place, message: error.message };
    throw error;
  }
  return undefined;
}

describe('tokenize', () => {
  it('splits words, numbers, strings and punctuation, longest punctuation first', () => {
    const tokens = tokenize("if (metric['a b'] >= -1.5e-3 && x != \"y\") { return OK; }");
    expect(tokens.map((t) => [t.kind, t.text])).toEqual([
      ['ident', 'if'], ['punct', '('], ['ident', 'metric'], ['punct', '['], ['string', "'a b'"], ['punct', ']'],
      ['punct', '>='], ['punct', '-'], ['number', '1.5e-3'], ['punct', '&&'], ['ident', 'x'], ['punct', '!='],
      ['string', '"y"'], ['punct', ')'], ['punct', '{'], ['ident', 'return'], ['ident', 'OK'], ['punct', ';'], ['punct', '}'], ['eof', ''],
    ]);
    expect(tokens[8]?.value).toBe(0.0015);
    expect(tokens[4]?.value).toBe('a b');
  });

  it('decodes every documented escape', () => {
    const [token] = tokenize(String.raw`'\" \' \\ \b \f \n \r \t \u00e9 \/'`);
    expect(token?.value).toBe('" \' \\ \b \f \n \r \t é /');
  });

  it('skips # line comments and /* */ block comments, counting lines inside them', () => {
    const tokens = tokenize('# first\n/* a\n b */ return # tail\n  OK');
    expect(tokens.map((t) => [t.text, t.line, t.column])).toEqual([
      ['return', 3, 7],
      ['OK', 4, 3],
      ['', 4, 5],
    ]);
  });

  it('reports where it fails: unexpected characters (// is not a comment), unterminated strings and comments, bad escapes', () => {
    expect(placeOf('return OK // no')).toMatchObject({ position: 10, line: 1, column: 11, token: '/' });
    expect(placeOf("x\n  'abc")).toMatchObject({ line: 2, column: 3, token: "'abc", message: 'unterminated string' });
    expect(placeOf("'a\nb'")).toMatchObject({ line: 1, column: 1, message: 'unterminated string' });
    expect(placeOf('ok /* never closed')).toMatchObject({ column: 4, token: '/*', message: 'unterminated comment' });
    expect(placeOf("'\\x'")).toMatchObject({ column: 2, token: '\\x', message: 'invalid escape in string' });
    expect(placeOf("'\\u12'")).toMatchObject({ token: '\\u' });
    expect(placeOf('a @ b')).toMatchObject({ column: 3, token: '@' });
  });
});
