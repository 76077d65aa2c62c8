// Owns the Ajv instances fastify validates requests with: bodies strictly, URL parameters and query strings with string coercion.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Options shared by both instances: the first error only (a 400 names one field), no schema caching by id. */
const SHARED_OPTIONS: Options = { allErrors: false, strict: true, strictRequired: false, addUsedSchema: false, useDefaults: false };

/**
 * The Ajv of request bodies: no type coercion (a string is not a number in JSON) and unknown keys
 * are refused where a schema says `additionalProperties: false`, never silently removed
 * (fastify's default removes them), so a typo is an error.
 */
export function createBodyAjv(): Ajv {
  return addFormats(new Ajv({ ...SHARED_OPTIONS, coerceTypes: false, removeAdditional: false }));
}

/**
 * The Ajv of URL parameters and query strings: their values are text, so `type: integer` coerces
 * from the text, and a parameter given once where an array is allowed becomes a one-item array.
 */
function createParamsAjv(): Ajv {
  return addFormats(new Ajv({ ...SHARED_OPTIONS, coerceTypes: 'array', removeAdditional: false }));
}

/** A body that is decoded and checked by its API's own decoder: its schema documents the shape only. */
const DOCUMENTED_ONLY = (() => true) as ReturnType<FastifySchemaCompiler<unknown>>;

/** Decimal integer text: what a query or path integer may be spelt as (Number() would also take 0x10, 1e2, +5 and blanks). */
const DECIMAL_INTEGER = /^-?\d+$/;

type ParamsValidator = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: FastifySchemaValidationError[] | null };

/** The first way `raw` breaks the wire rules Ajv's coercion cannot see, as an Ajv-shaped error, or undefined. */
function wireProblem(schema: Readonly<Record<string, unknown>>, raw: Readonly<Record<string, unknown>>): FastifySchemaValidationError | undefined {
  const properties = (schema['properties'] ?? {}) as Readonly<Record<string, { type?: unknown }>>;
  for (const [key, property] of Object.entries(properties)) {
    const value = raw[key];
    if (value === undefined) continue;
    if (property.type !== 'array' && Array.isArray(value) && value.length > 1) {
      return { instancePath: `/${key}`, schemaPath: `#/properties/${key}/type`, keyword: 'type', params: { type: property.type }, message: 'may be given once' };
    }
    const text = Array.isArray(value) ? value[0] : value;
    if (property.type === 'integer' && typeof text === 'string' && !DECIMAL_INTEGER.test(text)) {
      return { instancePath: `/${key}`, schemaPath: `#/properties/${key}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be a decimal integer' };
    }
  }
  return undefined;
}

/**
 * A validator of URL parameters or a query string: the wire rules first (an integer is decimal
 * text; a parameter that is not a list is given once), then the schema with coercion from text.
 */
function paramsValidator(ajv: Ajv, schema: Readonly<Record<string, unknown>>): ParamsValidator {
  const validate = ajv.compile(schema);
  const check = ((data: unknown) => {
    const problem = typeof data === 'object' && data !== null ? wireProblem(schema, data as Record<string, unknown>) : undefined;
    if (problem !== undefined) {
      check.errors = [problem];
      return false;
    }
    const valid = validate(data);
    check.errors = (validate.errors as FastifySchemaValidationError[] | null | undefined) ?? null;
    return valid;
  }) as ParamsValidator;
  return check;
}

/**
 * The validator compiler of a fastify scope. With `bodies: 'documented'` a body schema is not
 * applied (the ingest API decodes raw bytes in the wire room, per metric, at a fraction of what a
 * schema pass over 100,000 points would cost); its parameters are still validated.
 */
export function requestValidators(options: { readonly bodies: 'validated' | 'documented' } = { bodies: 'validated' }): FastifySchemaCompiler<unknown> {
  const bodies = createBodyAjv();
  const params = createParamsAjv();
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return options.bodies === 'documented' ? DOCUMENTED_ONLY : (bodies.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>);
    return paramsValidator(params, schema as Readonly<Record<string, unknown>>);
  };
}
