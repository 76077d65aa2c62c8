// Owns the test helpers that judge a monitoring body as the HTTP edge and the service do: the schema first, then the rules.
import type { ValidateFunction } from 'ajv';
import { isStrataError, type StrataError } from '../../src/core/errors.js';
import { createBodyAjv } from '../../src/http/schema-compilers.js';
import { schemaFieldError } from '../../src/monitoring/monitoring-errors.js';
import type { JsonSchema } from '../../src/monitoring/schemas/json-schema.js';

const ajv = createBodyAjv();
const compiled = new Map<JsonSchema, ValidateFunction>();

/** The validator of `schema`, compiled once by the body Ajv the server uses (strict, no coercion). */
export function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The field error `schema` answers for `body`, or undefined when it admits the body. */
export function schemaError(schema: JsonSchema, body: unknown): StrataError | undefined {
  const validate = validatorOf(schema);
  return validate(body) ? undefined : schemaFieldError(validate.errors ?? []);
}

/** The key a monitoring field error names, or 'ok' when `run` passes. */
export function ruleKey(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (isStrataError(error) && error.code === 'MONITORING_FIELD_INVALID') return String(error.details['key']);
    throw error;
  }
}

/**
 * The key the monitoring API names for `body`: the schema's verdict when it refuses the body,
 * else the rules' (`rule` gets the body the schema admitted); 'ok' when both pass.
 */
export function bodyKey<T>(schema: JsonSchema, body: unknown, rule: (admitted: T) => unknown = () => undefined): string {
  const error = schemaError(schema, body);
  if (error !== undefined) return String(error.details['key']);
  return ruleKey(() => rule(body as T));
}
