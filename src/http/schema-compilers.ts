// Owns the Ajv instances fastify validates requests with: bodies strictly, URL parameters and query strings with string coercion.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
export function createParamsAjv(): Ajv {
  return addFormats(new Ajv({ ...SHARED_OPTIONS, coerceTypes: 'array', removeAdditional: false }));
}

/** A body that is decoded and checked by its API's own decoder: its schema documents the shape only. */
const DOCUMENTED_ONLY = (() => true) as ReturnType<FastifySchemaCompiler<unknown>>;

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
    return params.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
