// Owns the Blueflood metric as a decoded body holds it: its fields, and its point taken as-is for bulk loads.
import type { Point } from '../model/sample.js';

/** A decoded Blueflood metric: field values are whatever the body held, checked by whoever maps it. */
export interface BluefloodMetric {
  readonly metricName?: unknown;
  readonly metricValue?: unknown;
  readonly collectionTime?: unknown;
  readonly ttlInSeconds?: unknown;
  readonly unit?: unknown;
  readonly tenantId?: unknown;
}

/** True when a decoded object is a Blueflood metric (it has a metricName field) rather than a Strata point. */
export function isBluefloodMetric(entry: object): entry is BluefloodMetric {
  return 'metricName' in entry;
}

/**
 * The point of a Blueflood metric taken as-is, under its tenantId when that is a string, else
 * under `tenant`; undefined when it names neither. Unlike the HTTP mapping (ingest-body.ts) this
 * checks no field and skips nothing: bulk loads leave every rule to the store's validation, which
 * reports each point it refuses.
 */
export function bluefloodPoint(metric: BluefloodMetric, tenant: string | undefined): Point | undefined {
  const pointTenant = typeof metric.tenantId === 'string' ? metric.tenantId : tenant;
  if (pointTenant === undefined) return undefined;
  const point: Point = { tenant: pointTenant, metric: metric.metricName as string, timestamp: metric.collectionTime as number, value: metric.metricValue as number };
  return typeof metric.unit === 'string' ? { ...point, unit: metric.unit } : point;
}
