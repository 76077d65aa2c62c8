// Owns how values and names are spelled inside ClickHouse SQL text: quoted string literals and checked, backquoted identifiers.
import { StrataError, valueText } from '../core/errors.js';
import { CLICKHOUSE_IDENTIFIER_LENGTH_MAX } from '../core/limits.js';

/**
 * ClickHouse 18.16 takes no query parameters over HTTP (`param_x` is an unknown setting), so every
 * value is spelled into the SQL text. Backslash and quote are escaped because they end or bend the
 * literal; NUL, newline, CR and tab by their short escapes and every other ASCII control character
 * as \xHH, so a literal is one printable line whatever it holds. Everything else is sent as its
 * UTF-8 bytes, which the server keeps as they are.
 */
const ESCAPED = /[\u0000-\u001f\u007f'\\]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "\\'", '\0': '\\0', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A quoted ClickHouse string literal equal to `s` as UTF-8: `SELECT <literal>` answers `s` for every
 * well-formed string. A lone UTF-16 surrogate becomes U+FFFD, exactly as RowBinary's string() stores it.
 */
export function sqlString(s: string): string {
  return `'${s.replace(ESCAPED, escapeChar)}'`;
}

function escapeChar(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * A database or table name, backquoted. It must match [A-Za-z_][A-Za-z0-9_]* and be at most
 * CLICKHOUSE_IDENTIFIER_LENGTH_MAX characters (names become directories on every shard), or
 * STORE_OPTIONS_INVALID is thrown.
 */
export function sqlIdentifier(name: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || name.length > CLICKHOUSE_IDENTIFIER_LENGTH_MAX) {
    throw new StrataError(
      'STORE_OPTIONS_INVALID',
      `${valueText(name)} is not a valid ClickHouse name: use letters, digits and underscores, not starting with a digit, at most ${CLICKHOUSE_IDENTIFIER_LENGTH_MAX} characters.`,
      { name, pattern: IDENTIFIER.source, lengthMax: CLICKHOUSE_IDENTIFIER_LENGTH_MAX },
    );
  }
  return `\`${name}\``;
}
