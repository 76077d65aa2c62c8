// Owns the shapes the ingest codecs share: the body format, whose points a body holds, and what decoding yields.
import type { PointColumns } from '../model/point-columns.js';

/** An ingest body's encoding; the HTTP layer maps a media type to one. */
export type IngestFormat = 'json' | 'msgpack';

/** Whose points a body holds: the URL's tenant, or each point's `tenantId` (multi). */
export type IngestScope =
  | { readonly multi: false; readonly tenant: string }
  | { readonly multi: true; readonly ownTenant: string; readonly anyTenant: boolean };

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

/** Points for the store, where each came from in the body, and the points refused before the store. */
export interface IngestMapping {
  readonly columns: PointColumns;
  /** Body index of each point; null when point i came from body[i] for every i. */
  readonly positions: number[] | null;
  readonly errors: IngestErrorEntry[];
  /** Points with a null metricValue, skipped without error as Blueflood does. */
  readonly skipped: number;
}
