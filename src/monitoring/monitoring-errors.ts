// Owns building the monitoring API's errors: field errors name the key, lookups name the object.
import { StrataError } from '../core/errors.js';

/** MONITORING_FIELD_INVALID naming the body key at fault, worded like the reference ("Validation error for key 'label'"). */
export function fieldError(key: string, problem: string): StrataError {
  return new StrataError('MONITORING_FIELD_INVALID', `Validation error for key '${key}'`, { key, problem });
}

/** The parts of a JSON-schema validation error that schemaFieldError reads (Ajv's ErrorObject has them). */
export interface SchemaErrorLike {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The keys of a JSON pointer (`/details/url` → details, url), unescaped. */
function pointerKeys(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The property an object-level error is about: the missing, unknown or dependent one. */
function propertyOf(error: SchemaErrorLike): string | undefined {
  const name = error.params['missingProperty'] ?? error.params['additionalProperty'];
  return typeof name === 'string' ? name : undefined;
}

/** Longest key a problem quotes in full. */
const QUOTED_KEY_LENGTH_MAX = 40;

/** A key as a problem quotes it: JSON-quoted, long ones cut short. */
function quoted(key: string): string {
  return JSON.stringify(key.length > QUOTED_KEY_LENGTH_MAX ? `${key.slice(0, QUOTED_KEY_LENGTH_MAX)}…` : key);
}

/** What is wrong, in words: the validator's message, joined over the branches of an anyOf, and where inside the key. */
function problemOf(errors: readonly SchemaErrorLike[], first: SchemaErrorLike, inner: readonly string[]): string {
  if (first.keyword === 'required') return 'is required';
  if (first.keyword === 'additionalProperties') return 'unknown key';
  if (first.keyword === 'dependencies') return `is required when ${String(first.params['property'])} is given`;
  const allowed = first.params['allowedValues'];
  if (first.keyword === 'enum' && Array.isArray(allowed)) return `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  const here = errors.filter((error) => error.instancePath === first.instancePath);
  const anyOf = here.findIndex((error) => error.keyword === 'anyOf');
  const messages = anyOf > 0 ? here.slice(0, anyOf).map((error) => error.message) : [first.message];
  let problem = [...new Set(messages.filter((message) => message !== undefined))].join(' or ') || `fails ${first.keyword}`;
  const badName = here.find((error) => error.keyword === 'propertyNames')?.params['propertyName'];
  if (typeof badName === 'string') problem = `key ${quoted(badName)}: ${problem}`;
  return inner.length === 0 ? problem : `${inner.map(quoted).join('.')}: ${problem}`;
}

/**
 * The monitoring field error of a failed body validation, from its first error, naming the key the
 * reference names: the missing or unknown property; for a map (metadata, ip_addresses) the map, not
 * the entry; inside details `details.<field>`; `body` when the body is not an object; otherwise the
 * top-level property.
 */
export function schemaFieldError(errors: readonly SchemaErrorLike[]): StrataError {
  const first = errors[0];
  if (first === undefined) return fieldError('body', 'is not valid');
  const [top, field, ...inner] = pointerKeys(first.instancePath);
  const named = propertyOf(first);
  if (top === undefined) {
    if (named !== undefined) return fieldError(named, problemOf(errors, first, []));
    return fieldError('body', first.keyword === 'type' ? 'the body must be a JSON object' : problemOf(errors, first, []));
  }
  if (top === 'details') {
    const detail = field ?? named;
    return fieldError(detail === undefined ? 'details' : `details.${detail}`, problemOf(errors, first, inner));
  }
  return fieldError(top, problemOf(errors, first, field === undefined ? [] : [field, ...inner]));
}

/** MONITORING_OBJECT_NOT_FOUND for a missing object, naming its kind and id (the reference: Object "Entity" with key ... does not exist). */
export function notFound(kind: string, id: string): StrataError {
  return new StrataError('MONITORING_OBJECT_NOT_FOUND', 'Object does not exist', { type: kind, key: id, problem: `Object "${kind}" with key "${id}" does not exist` });
}

/** MONITORING_PARENT_NOT_FOUND for a missing parent entity of a check or alarm. */
export function parentNotFound(kind: string, id: string): StrataError {
  return new StrataError('MONITORING_PARENT_NOT_FOUND', 'Parent does not exist', { type: kind, key: id, problem: `Object "${kind}" with key "${id}" does not exist` });
}

/** MONITORING_CHILDREN_EXIST refusing a delete while children remain, as the reference's childrenExistError. */
export function childrenExist(childKind: string, childPlural: string): StrataError {
  return new StrataError('MONITORING_CHILDREN_EXIST', 'child objects exist', { type: childKind, message: `Child ${childPlural} remaining` });
}

/** MONITORING_LIMIT_REACHED when a tenant or entity holds `limit` objects of a kind already. */
export function limitReached(kind: string, limit: number): StrataError {
  return new StrataError('MONITORING_LIMIT_REACHED', `Limit of ${limit} ${kind} objects reached`, { type: kind, limit });
}
