// Owns the documented shapes of the Prometheus API: its plain-text error body, its answers, and the read body limit.
import { assert } from '../../../core/assert.js';
import { QUERY_BODY_BYTES_DEFAULT } from '../../http-limits.js';

/** Largest remote read request body (compressed): a ReadRequest is a few matchers per query, PROM_READ_QUERIES_MAX queries at most. */
export const PROM_READ_BODY_BYTES_MAX = 1024 * 1024;

assert(PROM_READ_BODY_BYTES_MAX <= QUERY_BODY_BYTES_DEFAULT, 'a largest read body fits the default query byte budget');

/** The error body: one line of plain text, as Prometheus logs what a remote endpoint answers. */
export const PROMETHEUS_ERROR_SCHEMA = {
  type: 'string',
  description: 'text/plain: `CODE: message`, the Strata error code (docs/errors.md) and a sentence; a partial write lists the accepted, rejected and skipped counts and the first reasons.',
} as const;

/** POST /{tenant}/api/v1/write answers. */
export const WRITE_RESPONSE = {
  204: { description: 'Every point was written durably, or skipped (NaN values, staleness markers).', type: 'null' },
} as const;

/** POST /{tenant}/api/v1/read answers. */
export const READ_RESPONSE = {
  200: { description: 'A snappy-compressed ReadResponse (application/x-protobuf, Content-Encoding: snappy), one result per query, in order.', type: 'string', format: 'binary' },
} as const;
