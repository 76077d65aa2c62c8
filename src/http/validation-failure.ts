// Owns reading a failed schema validation from fastify's error: which part of the request, which field, what is wrong.
import { StrataError, type ErrorCode } from '../core/errors.js';

/** The part of a request a schema validated. */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

/** One Ajv error, as fastify hands it on (only the fields read here). */
export interface SchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/** A failed validation: the part, the first error, and the field it names. */
export interface ValidationFailure {
  readonly part: RequestPart;
  readonly errors: readonly SchemaError[];
  /** The top-level field at fault: a missing or unknown key, else the first segment of the path ('' for the whole part). */
  readonly field: string;
  /** Ajv's sentence for the first error ("must be integer"). */
  readonly problem: string;
}

const PARTS: ReadonlySet<string> = new Set(['body', 'querystring', 'params', 'headers']);

/** The top-level field an Ajv error is about. */
function fieldOf(error: SchemaError): string {
  if (error.keyword === 'required' && typeof error.params['missingProperty'] === 'string') return error.params['missingProperty'];
  if (error.keyword === 'additionalProperties' && typeof error.params['additionalProperty'] === 'string') return error.params['additionalProperty'];
  const first = error.instancePath.split('/')[1];
  return first === undefined ? '' : first.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Ajv's sentence for an error, said of the field it names ("is required" rather than "must have required property 'x'"). */
function problemOf(error: SchemaError): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not allowed here';
  return error.message ?? 'is not valid';
}

/** The validation failure fastify reports (error.validation with validationContext), or undefined for any other error. */
export function readValidationFailure(error: unknown): ValidationFailure | undefined {
  const candidate = error as { validation?: unknown; validationContext?: unknown } | null;
  if (candidate === null || typeof candidate !== 'object' || !Array.isArray(candidate.validation)) return undefined;
  const part = typeof candidate.validationContext === 'string' && PARTS.has(candidate.validationContext) ? (candidate.validationContext as RequestPart) : 'body';
  const errors = candidate.validation as SchemaError[];
  const first = errors[0];
  return { part, errors, field: first === undefined ? '' : fieldOf(first), problem: first === undefined ? 'is not valid' : problemOf(first) };
}

/**
 * The error of a URL or query parameter that broke its schema: `code` (by default QUERY_INVALID for
 * query strings and HTTP_REQUEST_INVALID for path parameters) naming the parameter.
 */
export function parameterError(failure: ValidationFailure, codes: Readonly<Record<string, ErrorCode>> = {}): StrataError {
  const code = codes[failure.field] ?? (failure.part === 'params' ? 'HTTP_REQUEST_INVALID' : 'QUERY_INVALID');
  const name = failure.field === '' ? 'the query string' : `parameter '${failure.field}'`;
  // `field`, as the planner names the parameter of its own QUERY_INVALID errors.
  return new StrataError(code, `${name} ${failure.problem}`, { field: failure.field, problem: failure.problem });
}

/** The error of a body that broke its schema, for APIs without a finer rule: HTTP_BODY_INVALID naming the field. */
export function bodyError(failure: ValidationFailure, message?: string): StrataError {
  const where = failure.field === '' ? 'the body' : `field '${failure.field}'`;
  return new StrataError('HTTP_BODY_INVALID', message ?? `The request body is invalid: ${where} ${failure.problem}.`, { field: failure.field, problem: failure.problem });
}
