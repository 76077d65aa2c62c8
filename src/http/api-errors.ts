// Owns answering errors in an API's own shape: each API plugin installs its shaper in its scope; headers, the 500 log line and the overload count are shared.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../core/errors.js';
import { toErrorView, type ErrorView } from './error-view.js';
import { httpError } from './http-errors.js';
import { RETRY_AFTER_SECONDS } from './http-limits.js';
import { rulesOf } from './route-rules.js';
import type { ServerContext } from './server-context.js';
import { readValidationFailure, type ValidationFailure } from './validation-failure.js';

/** An error body as an API writes it: its media type and its text (bytes for a binary body, as OTLP's protobuf Status). */
export interface ErrorBody {
  readonly type: string;
  readonly text: string | Buffer;
}

/** What an API plugin says about its errors; everything else about sending them is shared. */
export interface ApiErrorShaper {
  /** The body the API's clients expect for an error. */
  body(view: ErrorView, request: FastifyRequest): ErrorBody;
  /** The domain error a failed schema validation of one of the API's requests stands for. */
  fromValidation(failure: ValidationFailure): StrataError;
  /** The domain error a body that is not valid JSON stands for (default HTTP_BODY_INVALID). */
  fromUnparsableBody?(): StrataError;
  /** Headers the API adds to every error reply (the feeds' Basic challenge on a 401, DNS's version). */
  decorate?(view: ErrorView, reply: FastifyReply): void;
}

/** Fastify's code for a body that its JSON parser could not parse. */
const UNPARSABLE_JSON_CODES: ReadonlySet<string> = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

/** The domain error of anything thrown while handling a request of this API. */
function domainError(error: unknown, shaper: ApiErrorShaper): unknown {
  const failure = readValidationFailure(error);
  if (failure !== undefined) return shaper.fromValidation(failure);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNPARSABLE_JSON_CODES.has(code) && shaper.fromUnparsableBody !== undefined) return shaper.fromUnparsableBody();
  return error;
}

/**
 * Sends `error` as the API of `shaper` writes it. A 500 logs one line with the transaction id and
 * the cause (its stack through pino's error serializer); the client sees only the transaction id.
 */
export function sendApiError(context: ServerContext, shaper: ApiErrorShaper, request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const view = toErrorView(domainError(error, shaper));
  if (view.unexpected) {
    request.log.error({ txnId: request.id, method: request.method, url: request.url, err: error }, 'request failed unexpectedly');
  }
  if (view.code === 'HTTP_OVERLOADED') context.metrics.admissionRejected.inc({ work: rulesOf(request).work ?? 'unknown' });
  const allow = view.details['allow'];
  if (view.status === 405 && typeof allow === 'string') void reply.header('allow', allow);
  if (view.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  shaper.decorate?.(view, reply);
  const { type, text } = shaper.body(view, request);
  return reply.code(view.status).type(type).send(text);
}

/** The 404 of a URL no route of the scope matched. */
function routeNotFound(request: FastifyRequest): StrataError {
  return httpError('HTTP_ROUTE_NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`);
}

/**
 * Installs an API's error shaper in its plugin scope: fastify then routes every error of the
 * scope's routes and hooks, and every unmatched URL under the scope's prefix, through it.
 */
export function useApiErrors(scope: FastifyInstance, context: ServerContext, shaper: ApiErrorShaper, options: { readonly notFound: boolean }): void {
  scope.setErrorHandler((error, request, reply) => sendApiError(context, shaper, request, reply, error));
  if (options.notFound) scope.setNotFoundHandler((request, reply) => sendApiError(context, shaper, request, reply, routeNotFound(request)));
}
