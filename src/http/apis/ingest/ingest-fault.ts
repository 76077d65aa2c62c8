// Owns the ingest API's error body: the metrics shape plus Blueflood's "errors" list, one entry per rejected point.
import type { ErrorView } from '../../error-view.js';
import { metricsFaultBody } from '../metrics/metrics-fault.js';

/** One entry of Blueflood's `errors` list (extended with the point's index and Strata's code). */
export interface IngestErrorEntry {
  /** Position of the point in the request body. */
  readonly index: number | null;
  readonly tenantId: string;
  readonly metricName: string;
  /** The body field at fault (metricName, metricValue, collectionTime, ttlInSeconds, unit, tenantId), null for whole-request errors. */
  readonly source: string | null;
  readonly message: string;
  /** Stable Strata error code. */
  readonly code: string;
  /** The point's collectionTime when it was a number. */
  readonly timestamp?: number;
}

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
