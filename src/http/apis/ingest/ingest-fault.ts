// Owns the ingest API's error body: the metrics shape plus Blueflood's "errors" list, one entry per rejected point.
import type { IngestErrorEntry } from '../../../wire/ingest-mapping.js';
import type { ErrorView } from '../../error-view.js';
import { metricsFaultBody } from '../metrics/metrics-fault.js';

/**
 * The metrics error shape with an `errors` array, so Blueflood clients (which read `errors`) and
 * monitoring clients (which read type/code/message) both understand every ingest error.
 */
export function ingestFaultBody(view: ErrorView, txnId: string, tenant: string): Record<string, unknown> {
  const listed = view.details['errors'];
  const errors: readonly IngestErrorEntry[] = Array.isArray(listed)
    ? (listed as IngestErrorEntry[])
    : [{ index: null, tenantId: tenant, metricName: '', source: null, message: view.message, code: view.code }];
  const { errors: _omitted, ...details } = view.details;
  return { ...metricsFaultBody({ ...view, details }, txnId), errors };
}
