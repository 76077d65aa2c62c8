// Owns THE one map from error kind to HTTP status; nothing else in Strata picks an error status.
import type { ErrorKind } from '../core/errors.js';

/** HTTP status of each error kind. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  // The reference names 413 "Over Limit" for both too-large bodies and too-large responses.
  over_limit: 413,
  // Too many requests in a rate limit's window (the reference's rateLimitReached).
  rate_limited: 429,
  unsupported_media: 415,
  internal: 500,
  unavailable: 503,
};

/** The HTTP status of an error kind. */
export function statusOfKind(kind: ErrorKind): number {
  return STATUS_OF_KIND[kind];
}
