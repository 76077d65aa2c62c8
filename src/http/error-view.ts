// Owns turning any thrown value into one error view: stable code, kind, status, message, details.
import { isStrataError, type ErrorKind } from '../core/errors.js';
import { statusOfKind } from '../core/error-status.js';
import { httpError, type HttpErrorCode } from './http-errors.js';

/** Everything an error-body shaper needs, whatever was thrown. */
export interface ErrorView {
  readonly status: number;
  /** Stable Strata error code. */
  readonly code: string;
  readonly kind: ErrorKind;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
  /** True when the cause is a bug or an unexpected failure: logged with its stack, never shown. */
  readonly unexpected: boolean;
}

// Fastify's own errors (body parsing, routing) mapped onto Strata codes.
const FASTIFY_CODES: Readonly<Record<string, HttpErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'HTTP_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'HTTP_CONTENT_TYPE_UNSUPPORTED',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'HTTP_REQUEST_INVALID',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'HTTP_BODY_INVALID',
  FST_ERR_CTP_INVALID_JSON_BODY: 'HTTP_BODY_INVALID',
  FST_ERR_BAD_URL: 'HTTP_REQUEST_INVALID',
  // A path parameter longer than PATH_PARAM_LENGTH_MAX (fastify would say 414).
  FST_ERR_MAX_PARAM_LENGTH: 'HTTP_REQUEST_INVALID',
  FST_ERR_ASYNC_CONSTRAINT: 'HTTP_REQUEST_INVALID',
  // @fastify/basic-auth's malformed Authorization header.
  FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER: 'AUTH_BASIC_INVALID',
};

// Other client-side failures fastify or Node report only by status.
const STATUS_CODES: Readonly<Record<number, HttpErrorCode>> = {
  400: 'HTTP_REQUEST_INVALID',
  404: 'HTTP_ROUTE_NOT_FOUND',
  413: 'HTTP_BODY_TOO_LARGE',
  415: 'HTTP_CONTENT_TYPE_UNSUPPORTED',
};

const MESSAGES: Readonly<Partial<Record<HttpErrorCode, string>>> = {
  HTTP_BODY_TOO_LARGE: 'The request body is too large.',
  HTTP_CONTENT_TYPE_UNSUPPORTED: 'The request Content-Type is not supported by this resource.',
  HTTP_BODY_INVALID: 'The request body cannot be parsed.',
  AUTH_BASIC_INVALID: 'The basic credentials were not accepted; send the account username and API key.',
};

function fromCode(code: HttpErrorCode, fallbackMessage: string): ErrorView {
  const error = httpError(code, MESSAGES[code] ?? fallbackMessage);
  return { status: statusOfKind(error.kind), code, kind: error.kind, message: error.message, details: {}, unexpected: false };
}

/** The error view of anything thrown while handling a request. */
export function toErrorView(error: unknown): ErrorView {
  if (isStrataError(error)) {
    const unexpected = error.kind === 'internal';
    // An internal StrataError's message may describe internals; show a fixed sentence instead.
    const message = unexpected ? 'An unexpected condition occurred; the transaction id identifies it in the log.' : error.message;
    return { status: statusOfKind(error.kind), code: error.code, kind: error.kind, message, details: unexpected ? {} : error.details, unexpected };
  }
  const fastifyCode = (error as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode] !== undefined) {
    return fromCode(FASTIFY_CODES[fastifyCode], 'The request is malformed.');
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && STATUS_CODES[status] !== undefined) {
    return fromCode(STATUS_CODES[status], 'The request is malformed.');
  }
  return {
    status: 500,
    code: 'INTERNAL',
    kind: 'internal',
    message: 'An unexpected condition occurred; the transaction id identifies it in the log.',
    details: {},
    unexpected: true,
  };
}
