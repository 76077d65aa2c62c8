// Owns the shape of a point as written by a client.

/** A point as written by a client: one value of one metric of one tenant at one time. */
export interface Point {
  readonly tenant: string;
  readonly metric: string;
  /** Integer milliseconds since the epoch. */
  readonly timestamp: number;
  readonly value: number | string;
  readonly unit?: string;
}
