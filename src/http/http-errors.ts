// Owns the error codes the HTTP layer raises until they are folded into core/errors.ts.
import { StrataError, type ErrorKind } from '../core/errors.js';

interface PendingCodeInfo {
  readonly kind: ErrorKind;
  readonly doc: string;
}

/**
 * HTTP error codes, in the shape of ERROR_CODES. They belong in core/errors.ts (the lead folds
 * them in); until then httpError() gives a StrataError carrying them.
 */
export const HTTP_ERROR_CODES = {
  AUTH_TOKEN_MISSING: { kind: 'unauthenticated', doc: 'A request to a protected API carries no X-Auth-Token header.' },
  AUTH_TOKEN_INVALID: { kind: 'unauthenticated', doc: 'An X-Auth-Token is unknown, expired or revoked; authenticate again.' },
  AUTH_TENANT_FORBIDDEN: { kind: 'forbidden', doc: "A token is used on another tenant's URL or data." },
  AUTH_ROLE_FORBIDDEN: { kind: 'forbidden', doc: "A token's role does not allow the request (an observer writing, a non-admin using multi-tenant ingest)." },
  HTTP_REQUEST_INVALID: { kind: 'invalid', doc: 'A request is malformed at the HTTP level (URL, headers or framing).' },
  HTTP_ROUTE_NOT_FOUND: { kind: 'not_found', doc: 'No resource exists at the requested URL.' },
  HTTP_METHOD_NOT_ALLOWED: { kind: 'method_not_allowed', doc: 'The resource does not support the method; the Allow header lists those it does.' },
  HTTP_CONTENT_TYPE_UNSUPPORTED: { kind: 'unsupported_media', doc: 'A request body has no Content-Type or one the resource does not accept.' },
  HTTP_ACCEPT_UNSUPPORTED: { kind: 'unsupported_media', doc: 'The Accept header names no media type the resource can produce.' },
  HTTP_BODY_TOO_LARGE: { kind: 'over_limit', doc: "A request body is larger than the resource's byte limit (HTTP_BODY_BYTES_MAX for ingest)." },
  HTTP_BODY_INVALID: { kind: 'invalid', doc: 'A request body cannot be decoded (bad JSON or msgpack) or has the wrong shape.' },
  HTTP_OVERLOADED: { kind: 'unavailable', doc: 'The admission queue of this kind of work is full; retry after the Retry-After seconds.' },
  QUERY_METRICS_TOO_MANY: { kind: 'invalid', doc: 'A multi-metric query names more than VIEWS_METRICS_MAX metrics.' },
  SEARCH_RESULTS_TOO_MANY: { kind: 'over_limit', doc: 'A metric search matches more than SEARCH_RESULTS_MAX names; narrow the glob.' },
  INGEST_TTL_INVALID: { kind: 'invalid', doc: 'A ttlInSeconds is present but not an integer between 1 and 2147483647.' },
} as const satisfies Record<string, PendingCodeInfo>;

/** An HTTP-layer error code. */
export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/** A StrataError with an HTTP-layer code and its kind. */
export function httpError(code: HttpErrorCode, message: string, details: Record<string, unknown> = {}): StrataError {
  // StrataError's constructor only knows ERROR_CODES; start from INTERNAL and overwrite code and
  // kind so the error travels the one error path (kind → status) unchanged. Once the codes are in
  // ERROR_CODES this becomes `new StrataError(code, message, details)`.
  const error = new StrataError('INTERNAL', message, details);
  Object.defineProperty(error, 'code', { value: code, enumerable: true });
  Object.defineProperty(error, 'kind', { value: HTTP_ERROR_CODES[code].kind, enumerable: true });
  return error;
}
