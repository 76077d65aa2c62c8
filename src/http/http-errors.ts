// Owns raising HTTP-layer errors: the codes are in core/errors.ts like every other code.
import { StrataError, type ErrorCode } from '../core/errors.js';

/** An HTTP-layer error code (the AUTH_, HTTP_ and HTTP-only query and ingest codes). */
export type HttpErrorCode = Extract<ErrorCode, `AUTH_${string}` | `HTTP_${string}` | 'QUERY_METRICS_TOO_MANY' | 'SEARCH_RESULTS_TOO_MANY' | 'INGEST_TTL_INVALID'>;

/** A StrataError with an HTTP-layer code. */
export function httpError(code: HttpErrorCode, message: string, details: Record<string, unknown> = {}): StrataError {
  return new StrataError(code, message, details);
}
