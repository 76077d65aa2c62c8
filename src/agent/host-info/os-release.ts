// Owns parsing os-release(5): the distribution's `KEY=value` lines, values quoted or not, with the shell escapes the format allows.
import { linesOf } from '../collectors/proc-fields.js';

/** A variable name os-release allows: letters, digits and underscores, not starting with a digit. */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Undoes the escapes os-release allows inside double quotes: `\"`, `\\`, `\$` and `` \` ``; another backslash stays as written. */
function unescapeDouble(text: string): string {
  return text.replace(/\\(["\\$`])/g, '$1');
}

/** The value of one assignment: a double-quoted, single-quoted or bare string; undefined when a quote is not closed. */
function valueOf(raw: string): string | undefined {
  const first = raw[0];
  if (first === '"' || first === "'") {
    if (raw.length < 2 || raw[raw.length - 1] !== first) return undefined;
    const inner = raw.slice(1, -1);
    return first === '"' ? unescapeDouble(inner) : inner;
  }
  return raw.replace(/\\(.)/g, '$1');
}

/**
 * Parses os-release text into its variables. Blank lines and `#` comments are skipped, and so are lines that are not a
 * valid assignment; surrounding blanks are trimmed; a repeated key keeps its last value, as a shell sourcing it would.
 */
export function parseOsRelease(text: string): ReadonlyMap<string, string> {
  const values = new Map<string, string>();
  for (const line of linesOf(text)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) continue;
    const key = trimmed.slice(0, equals);
    if (!KEY.test(key)) continue;
    const value = valueOf(trimmed.slice(equals + 1));
    if (value !== undefined) values.set(key, value);
  }
  return values;
}
