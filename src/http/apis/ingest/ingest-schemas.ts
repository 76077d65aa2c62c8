// Owns the documented shapes of the ingestion API: Blueflood's metric array (decoded and checked per metric by the wire room) and the 207 answer.
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX, STRING_VALUE_LENGTH_MAX, TENANT_LENGTH_MAX, UNIT_LENGTH_MAX } from '../../../core/limits.js';
import { TTL_SECONDS_MAX } from '../../../wire/wire-limits.js';
import { JSON_TYPE, MSGPACK_TYPE } from '../../route-rules.js';

/** One Blueflood metric. */
const METRIC_PROPERTIES = {
  metricName: { type: 'string', minLength: 1, maxLength: METRIC_NAME_LENGTH_MAX, description: 'The metric (series) name.' },
  metricValue: {
    anyOf: [{ type: 'number' }, { type: 'string', maxLength: STRING_VALUE_LENGTH_MAX }, { type: 'null' }],
    description: 'A finite number, a string value, or null (skipped without error, as Blueflood does).',
  },
  collectionTime: { type: 'integer', description: 'Integer ms since 1970; back to the FULL retention, at most 10 minutes ahead.' },
  ttlInSeconds: { type: 'integer', minimum: 1, maximum: TTL_SECONDS_MAX, description: 'Accepted for Blueflood clients; retention is per resolution.' },
  unit: { type: 'string', maxLength: UNIT_LENGTH_MAX, description: 'Unit label of the metric.' },
} as const;

const EXAMPLE_TIME_MS = 1_764_000_000_000;

/** POST /{tenant}/ingest: the body is documented here; the wire decoders check it per metric and report each rejected one (207). */
export const INGEST_BODY_SCHEMA = {
  consumes: [JSON_TYPE, MSGPACK_TYPE],
  body: {
    type: 'array',
    maxItems: INGEST_BATCH_POINTS_MAX,
    items: { type: 'object', required: ['metricName', 'metricValue', 'collectionTime'], properties: METRIC_PROPERTIES },
    examples: [[{ metricName: 'web01.cpu', metricValue: 42.5, collectionTime: EXAMPLE_TIME_MS, ttlInSeconds: 172800, unit: 'percent' }]],
  },
} as const;

/** POST /{tenant}/ingest/multi: each metric names its tenant. */
export const INGEST_MULTI_BODY_SCHEMA = {
  consumes: [JSON_TYPE, MSGPACK_TYPE],
  body: {
    type: 'array',
    maxItems: INGEST_BATCH_POINTS_MAX,
    items: {
      type: 'object',
      required: ['tenantId', 'metricName', 'metricValue', 'collectionTime'],
      properties: { tenantId: { type: 'string', minLength: 1, maxLength: TENANT_LENGTH_MAX, description: 'The tenant the point belongs to.' }, ...METRIC_PROPERTIES },
    },
    examples: [[{ tenantId: 't1', metricName: 'web01.cpu', metricValue: 42.5, collectionTime: EXAMPLE_TIME_MS }]],
  },
} as const;

/** One rejected metric of a batch. */
const ERROR_ENTRY_SCHEMA = {
  type: 'object',
  properties: {
    index: { type: ['integer', 'null'], description: 'Position of the metric in the body.' },
    tenantId: { type: 'string' },
    metricName: { type: 'string' },
    source: { type: ['string', 'null'], description: 'The field at fault.' },
    message: { type: 'string' },
    code: { type: 'string', description: 'Strata error code (docs/errors.md).' },
    timestamp: { type: 'integer' },
  },
} as const;

/** 200 with no body when every metric was written; 207 when some were, listing the rejected ones. */
export const PARTIAL_RESPONSE = {
  200: { description: 'Every metric was written durably.', type: 'null' },
  207: {
    description: 'Some metrics were written durably; the rejected ones are listed.',
    type: 'object',
    properties: { accepted: { type: 'integer' }, rejected: { type: 'integer' }, errors: { type: 'array', items: ERROR_ENTRY_SCHEMA } },
  },
} as const;
