// Owns alarm example templates: where their ${field} placeholders sit, and filling them with checked, escaped values into criteria that parse.
import { assert } from '../../core/assert.js';
import { isStrataError } from '../../core/errors.js';
import { STRING_LITERAL_LENGTH_MAX } from '../alarm-language/language-limits.js';
import { checkCriteria } from '../alarm-rules.js';
import { fieldError } from '../monitoring-errors.js';
import { ALARM_EXAMPLE_INTEGER_DIGITS_MAX, ALARM_EXAMPLE_TEXT_LENGTH_MAX } from '../monitoring-limits.js';

assert(ALARM_EXAMPLE_TEXT_LENGTH_MAX <= STRING_LITERAL_LENGTH_MAX, 'a string value fits a string literal of the alarm language');

/** The types of an example's fields: text placed inside a quoted literal, or a whole number of digits. */
export const EXAMPLE_FIELD_TYPES = ['string', 'integer'] as const;
/** The type of an example's field. */
export type ExampleFieldType = (typeof EXAMPLE_FIELD_TYPES)[number];

/** One parameter of an alarm example, as /alarm_examples lists it. */
export interface AlarmExampleField {
  readonly name: string;
  readonly description: string;
  readonly type: ExampleFieldType;
}

/** An alarm example: criteria with ${field} placeholders for the check type it watches. */
export interface AlarmExample {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly check_type: string;
  readonly criteria: string;
  readonly fields: readonly AlarmExampleField[];
}

/**
 * Where a placeholder sits in the criteria: outside any literal (`number`), inside a string
 * literal (`text`: a metric name or a message), or inside the regular expression of a regex or
 * nregex comparison (`pattern`: its value is matched literally, so metacharacters are escaped).
 */
export type PlaceholderContext = 'number' | 'text' | 'pattern';

/** One `${name}` of a template: its field, its span in the template and its context. */
export interface Placeholder {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly context: PlaceholderContext;
}

const PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/;
const PATTERN_OPERATOR = /\b(?:regex|nregex)\s*$/;

/**
 * The placeholders of a template in order. Literals are read as the alarm language reads them
 * (single or double quotes, backslash escapes); a literal right after `regex` or `nregex` is a
 * pattern. Templates hold no comments.
 */
export function placeholdersOf(template: string): Placeholder[] {
  const found: Placeholder[] = [];
  let quote: string | null = null;
  let context: PlaceholderContext = 'number';
  for (let i = 0; i < template.length; i++) {
    const c = template[i] as string;
    const match = c === '$' ? PLACEHOLDER.exec(template.slice(i)) : null;
    if (match !== null) {
      found.push({ name: match[1] as string, start: i, end: i + match[0].length, context });
      i += match[0].length - 1;
    } else if (quote === null && (c === "'" || c === '"')) {
      quote = c;
      context = PATTERN_OPERATOR.test(template.slice(0, i)) ? 'pattern' : 'text';
    } else if (quote !== null && c === '\\') {
      i++;
    } else if (c === quote) {
      quote = null;
      context = 'number';
    }
  }
  return found;
}

/**
 * Asserts an example is well made (a programmer error otherwise): every placeholder names one of
 * its fields, every field is used, and string fields sit only inside literals. Called on each
 * example of the catalogue when it loads.
 */
export function assertWellMade(example: AlarmExample): void {
  const byName = new Map(example.fields.map((field) => [field.name, field] as const));
  assert(byName.size === example.fields.length, `${example.id}: field names are unique`);
  const placeholders = placeholdersOf(example.criteria);
  for (const placeholder of placeholders) {
    const field = byName.get(placeholder.name);
    assert(field !== undefined, `${example.id}: placeholder \${${placeholder.name}} names a field`);
    assert(field.type === 'integer' || placeholder.context !== 'number', `${example.id}: string field ${field.name} sits inside a literal`);
  }
  for (const field of example.fields) assert(placeholders.some((p) => p.name === field.name), `${example.id}: field ${field.name} is used`);
}

// Control characters (newlines, tabs...) have no business in a literal an example compares with.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const DIGITS = new RegExp(`^[0-9]{1,${ALARM_EXAMPLE_INTEGER_DIGITS_MAX}}$`);

/** The value of an integer field: a whole number from 0, given as a JSON number or as digits (zero padding allowed). */
function integerValue(key: string, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && String(value).length <= ALARM_EXAMPLE_INTEGER_DIGITS_MAX) return value;
  if (typeof value === 'string' && DIGITS.test(value)) return Number(value);
  throw fieldError(key, `must be a whole number from 0, at most ${ALARM_EXAMPLE_INTEGER_DIGITS_MAX} digits (a JSON number or a string of digits)`);
}

/** The value of a string field: 1 to ALARM_EXAMPLE_TEXT_LENGTH_MAX characters without control characters. */
function stringValue(key: string, value: unknown): string {
  if (typeof value !== 'string') throw fieldError(key, 'must be a string');
  if (value.length === 0 || value.length > ALARM_EXAMPLE_TEXT_LENGTH_MAX) throw fieldError(key, `must be 1 to ${ALARM_EXAMPLE_TEXT_LENGTH_MAX} characters`);
  if (CONTROL_CHARACTER.test(value)) throw fieldError(key, 'must not hold control characters (newlines, tabs...)');
  return value;
}

/** The checked value of every field, by name; unknown names and missing fields are refused naming `values.<name>`. */
function checkedValues(example: AlarmExample, values: Readonly<Record<string, unknown>>): Map<string, string | number> {
  const fields = new Map(example.fields.map((field) => [field.name, field] as const));
  for (const name of Object.keys(values)) if (!fields.has(name)) throw fieldError(`values.${name}`, `is not a field of ${example.id}`);
  const checked = new Map<string, string | number>();
  for (const field of example.fields) {
    const key = `values.${field.name}`;
    if (!Object.hasOwn(values, field.name)) throw fieldError(key, 'is required');
    const value = values[field.name];
    checked.set(field.name, field.type === 'integer' ? integerValue(key, value) : stringValue(key, value));
  }
  return checked;
}

/** `text` with the regular expression syntax characters escaped, so a pattern matches it literally. */
export function escapePattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** `text` as the inside of a quoted literal of either quote: backslashes and both quotes escaped. */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\'"]/g, '\\$&');
}

function rendered(value: string | number, context: PlaceholderContext): string {
  const text = String(value);
  if (context === 'number') return text;
  return escapeLiteral(context === 'pattern' ? escapePattern(text) : text);
}

/** The placeholder whose filled span the failing token [start, end) overlaps, else the last one before it. */
function culprit(spans: readonly { name: string; start: number; end: number }[], start: number, end: number): string | undefined {
  const overlapping = spans.find((span) => span.start < Math.max(end, start + 1) && start < span.end);
  return (overlapping ?? [...spans].reverse().find((span) => span.start <= start))?.name;
}

/**
 * The criteria of `example` with every placeholder replaced by its field's value: integers as
 * decimal digits, strings escaped for their literal (and for the pattern inside regex/nregex).
 * A missing, unknown or mistyped value is MONITORING_FIELD_INVALID naming `values.<field>`; so is
 * a value that, once placed, breaks a limit of the alarm language (a literal grown past 80
 * characters by escaping, an unsafe pattern): the filled criteria are parsed before they are
 * answered, so they are always criteria an alarm accepts.
 */
export function fillExample(example: AlarmExample, values: Readonly<Record<string, unknown>>): string {
  const checked = checkedValues(example, values);
  const spans: { name: string; start: number; end: number }[] = [];
  let out = '';
  let from = 0;
  for (const placeholder of placeholdersOf(example.criteria)) {
    out += example.criteria.slice(from, placeholder.start);
    const text = rendered(checked.get(placeholder.name) as string | number, placeholder.context);
    spans.push({ name: placeholder.name, start: out.length, end: out.length + text.length });
    out += text;
    from = placeholder.end;
  }
  out += example.criteria.slice(from);
  try {
    checkCriteria(out);
  } catch (error) {
    if (!isStrataError(error) || error.code !== 'MONITORING_ALARM_PARSE_FAILED') throw error;
    const start = Number(error.details['error_position']);
    const name = culprit(spans, start, start + String(error.details['error_token'] ?? '').length);
    assert(name !== undefined, `${example.id}: the template parses without its values (${String(error.details['message'])})`);
    throw fieldError(`values.${name}`, `makes the criteria invalid once placed: ${String(error.details['message'])}`);
  }
  return out;
}
