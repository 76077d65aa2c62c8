// Owns building the monitoring API's errors: field errors name the key, lookups name the object.
import { StrataError } from '../core/errors.js';

/** A 400 naming the body key at fault, worded like the reference ("Validation error for key 'label'"). */
export function fieldError(key: string, problem: string): StrataError {
  return new StrataError('MONITORING_FIELD_INVALID', `Validation error for key '${key}'`, { key, problem });
}

/** A 404 for a missing object, naming its kind and id (the reference: Object "Entity" with key ... does not exist). */
export function notFound(kind: string, id: string): StrataError {
  return new StrataError('MONITORING_OBJECT_NOT_FOUND', 'Object does not exist', { type: kind, key: id, problem: `Object "${kind}" with key "${id}" does not exist` });
}

/** A 404 for a missing parent entity of a check or alarm. */
export function parentNotFound(kind: string, id: string): StrataError {
  return new StrataError('MONITORING_PARENT_NOT_FOUND', 'Parent does not exist', { type: kind, key: id, problem: `Object "${kind}" with key "${id}" does not exist` });
}

/** A 400 refusing a delete while children remain, as the reference's childrenExistError. */
export function childrenExist(childKind: string, childPlural: string): StrataError {
  return new StrataError('MONITORING_CHILDREN_EXIST', 'child objects exist', { type: childKind, message: `Child ${childPlural} remaining` });
}

/** A 400 when a tenant or entity holds `limit` objects of a kind already. */
export function limitReached(kind: string, limit: number): StrataError {
  return new StrataError('MONITORING_LIMIT_REACHED', `Limit of ${limit} ${kind} objects reached`, { type: kind, limit });
}
