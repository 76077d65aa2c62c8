// Owns the JSON schemas of each API's error bodies, for the OpenAPI document (every route lists its API's 4XX and 5XX shape).

/** The metrics and monitoring fault: `{type, code, message, details, txnId}`. */
export const METRICS_ERROR_SCHEMA = {
  type: 'object',
  description: 'The monitoring fault: a type name, the HTTP status, a message, details (details.code is the Strata error code) and the transaction id.',
  required: ['type', 'code', 'message', 'details', 'txnId'],
  properties: {
    type: { type: 'string', description: 'The reference type name (badRequest, notFoundError, invalidLimit, ...).' },
    code: { type: 'integer', description: 'The HTTP status.' },
    message: { type: 'string' },
    details: { type: 'object', additionalProperties: true, properties: { code: { type: 'string', description: 'Strata error code (docs/errors.md).' } } },
    txnId: { type: 'string', description: 'Also in the X-Response-Id header and the server log.' },
  },
} as const;

/** The ingest fault: the metrics fault plus Blueflood's `errors` list, one entry per rejected metric. */
export const INGEST_ERROR_SCHEMA = {
  ...METRICS_ERROR_SCHEMA,
  description: "The monitoring fault plus Blueflood's errors list (one entry per rejected metric, or one for the whole request).",
  required: [...METRICS_ERROR_SCHEMA.required, 'errors'],
  properties: { ...METRICS_ERROR_SCHEMA.properties, errors: { type: 'array', items: { type: 'object', additionalProperties: true } } },
} as const;

/** The identity fault: `{"<faultName>": {code, message}}`. */
export const IDENTITY_ERROR_SCHEMA = {
  type: 'object',
  description: 'The fault wrapped under its name (badRequest, unauthorized, forbidden, itemNotFound, ...).',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
} as const;

/** The event-feed fault in JSON (`<error>` in XML when the request accepts XML). */
export const FEEDS_ERROR_SCHEMA = {
  type: 'object',
  description: 'In JSON; an <error xmlns="http://abdera.apache.org"> document in XML.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', description: 'The HTTP status, as text.' }, message: { type: 'string' }, details: { type: 'object', additionalProperties: true } },
    },
  },
} as const;

/** The domain-listing fault in JSON (a named element such as `<badRequest code="400">` in XML). */
export const DNS_ERROR_SCHEMA = {
  type: 'object',
  description: 'Unwrapped in JSON; a fault element named by status (badRequest, itemNotFound, ...) in XML.',
  required: ['message', 'code', 'details'],
  properties: { message: { type: 'string' }, code: { type: 'integer', description: 'The HTTP status.' }, details: { type: 'string', description: 'Strata error code.' } },
} as const;
