// Owns splitting alarm criteria into tokens, with line and column, skipping `#` and `/* */` comments.
import { AlarmParseError } from './parse-error.js';

/** A kind of token. */
export type TokenKind = 'ident' | 'number' | 'string' | 'punct' | 'eof';

/** One token: its source text, decoded value (strings, numbers) and where it starts. */
export interface Token {
  readonly kind: TokenKind;
  /** The token exactly as written ('' at the end of input). */
  readonly text: string;
  /** Decoded string value, or the number. */
  readonly value: string | number | null;
  /** 0-based offset into the source. */
  readonly position: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

/** Punctuation, longest first so `==` wins over `=`. */
const PUNCTUATION = ['==', '!=', '>=', '<=', '&&', '||', '(', ')', '{', '}', '[', ']', ',', ';', ':', '=', '>', '<', '-'];
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', "'": "'", '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER_PATTERN = /\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const IDENT_PATTERN = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Tokenizes `source`; throws AlarmParseError at the first character that starts no token. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const at = (position: number, kind: TokenKind, text: string, value: string | number | null): Token => ({
    kind,
    text,
    value,
    position,
    line,
    column: position - lineStart + 1,
  });
  const fail = (position: number, token: string, message: string): never => {
    throw new AlarmParseError(message, { position, line, column: position - lineStart + 1, token });
  };
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) fail(i, '/*', 'unterminated comment');
      for (let j = i; j < end; j++) {
        if (source[j] !== '\n') continue;
        line++;
        lineStart = j + 1;
      }
      i = end + 2;
    } else if (c === '"' || c === "'") {
      const [token, next] = readString(source, i, c, (p, t, m) => fail(p, t, m), at);
      tokens.push(token);
      i = next;
    } else if (/\d/.test(c)) {
      NUMBER_PATTERN.lastIndex = i;
      const text = (NUMBER_PATTERN.exec(source) as RegExpExecArray)[0];
      tokens.push(at(i, 'number', text, Number(text)));
      i += text.length;
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT_PATTERN.lastIndex = i;
      const text = (IDENT_PATTERN.exec(source) as RegExpExecArray)[0];
      tokens.push(at(i, 'ident', text, null));
      i += text.length;
    } else {
      const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
      if (punct === undefined) fail(i, c, `unexpected character ${JSON.stringify(c)}`);
      tokens.push(at(i, 'punct', punct as string, null));
      i += (punct as string).length;
    }
  }
  tokens.push(at(source.length, 'eof', '', null));
  return tokens;
}

type Fail = (position: number, token: string, message: string) => never;
type Make = (position: number, kind: TokenKind, text: string, value: string | number | null) => Token;

/** Reads a quoted string starting at `start`; returns the token and the index after the closing quote. */
function readString(source: string, start: number, quote: string, fail: Fail, make: Make): [Token, number] {
  let value = '';
  let i = start + 1;
  for (;;) {
    const c = source[i];
    if (c === undefined || c === '\n') return fail(start, source.slice(start, i), 'unterminated string');
    if (c === quote) break;
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = source[i + 1] ?? '';
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (SIMPLE_ESCAPES[e] !== undefined) {
      value += SIMPLE_ESCAPES[e];
      i += 2;
    } else {
      return fail(i, `\\${e}`, 'invalid escape in string');
    }
  }
  return [make(start, 'string', source.slice(start, i + 1), value), i + 1];
}
