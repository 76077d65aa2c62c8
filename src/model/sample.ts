// Owns the shapes of points as written and the series key that identifies a series.

/** A point as written by a client: one value of one metric of one tenant at one time. */
export interface Point {
  readonly tenant: string;
  readonly metric: string;
  /** Integer milliseconds since the epoch. */
  readonly timestamp: number;
  readonly value: number | string;
  readonly unit?: string;
}

/** Key of a series: tenant and metric, joined by a separator neither may contain. */
export function seriesKey(tenant: string, metric: string): string {
  return `${tenant}\u0000${metric}`;
}
