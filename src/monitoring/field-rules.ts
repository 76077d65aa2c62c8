// Owns the field validators every monitoring body shares: objects, strings, integers, booleans, labels, metadata.
import { fieldError } from './monitoring-errors.js';
import { LABEL_LENGTH_MAX, METADATA_ENTRIES_MAX, METADATA_TEXT_LENGTH_MAX } from './monitoring-limits.js';

/** A JSON object as read from a request body. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as an object, or a 400 naming the whole body. */
export function bodyObject(body: unknown): JsonObject {
  if (!isObject(body)) throw fieldError('body', 'the body must be a JSON object');
  return body;
}

/** Refuses keys the object kind does not know, so a typo is an error rather than silently ignored. */
export function onlyKeys(body: JsonObject, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw fieldError(key, 'unknown key');
}

/** A string of `min` to `max` characters. */
export function text(key: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string') throw fieldError(key, 'must be a string');
  if (value.length < min || value.length > max) throw fieldError(key, `must be ${min} to ${max} characters`);
  return value;
}

/** A string matching `pattern`, described by `what` in the error. */
export function matching(key: string, value: unknown, pattern: RegExp, what: string, max: number): string {
  const found = text(key, value, 1, max);
  if (!pattern.test(found)) throw fieldError(key, `must be ${what}`);
  return found;
}

/** An integer from `min` to `max`. */
export function integer(key: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw fieldError(key, 'must be an integer');
  if (value < min || value > max) throw fieldError(key, `must be between ${min} and ${max}`);
  return value;
}

/** A boolean. */
export function bool(key: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw fieldError(key, 'must be true or false');
  return value;
}

/** A label: 1 to LABEL_LENGTH_MAX characters. */
export function label(value: unknown, key = 'label'): string {
  return text(key, value, 1, LABEL_LENGTH_MAX);
}

/** A label that may be null (cleared). */
export function optionalLabel(value: unknown): string | null {
  return value === null ? null : label(value);
}

/**
 * Metadata: null or an object of at most METADATA_ENTRIES_MAX string keys and string values of 1 to
 * METADATA_TEXT_LENGTH_MAX characters (the reference: "null is not a valid value").
 */
export function metadata(value: unknown): Readonly<Record<string, string>> | null {
  if (value === null) return null;
  if (!isObject(value)) throw fieldError('metadata', 'must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > METADATA_ENTRIES_MAX) throw fieldError('metadata', `must have at most ${METADATA_ENTRIES_MAX} entries`);
  for (const [key, entry] of entries) {
    if (key.length < 1 || key.length > METADATA_TEXT_LENGTH_MAX) throw fieldError('metadata', `keys must be 1 to ${METADATA_TEXT_LENGTH_MAX} characters`);
    text('metadata', entry, 1, METADATA_TEXT_LENGTH_MAX);
  }
  return value as Record<string, string>;
}

/** `body[key]` when present (undefined when absent), so updates keep fields the body leaves out. */
export function present(body: JsonObject, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

/** A required field: a 400 naming it when absent. */
export function required(body: JsonObject, key: string): unknown {
  if (!Object.hasOwn(body, key) || body[key] === undefined) throw fieldError(key, 'is required');
  return body[key];
}
