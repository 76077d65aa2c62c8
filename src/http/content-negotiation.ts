// Owns the Accept rules of every route: the answer's media type is negotiated by @fastify/accepts (negotiator), never by hand.
import type { FastifyRequest } from 'fastify';
import { httpError } from './http-errors.js';
import { JSON_TYPE, rulesOf } from './route-rules.js';

/** The media type of a Content-Type or Accept entry, lowercased, without parameters. */
export function essence(mediaType: string): string {
  const semicolon = mediaType.indexOf(';');
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase();
}

/** True when the request states no preference: no Accept header, or an empty one (JSON then, as before negotiation). */
function noPreference(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept === undefined || accept.trim() === '';
}

/**
 * The type of `offered` to answer `request` with: the one the Accept header prefers (q values,
 * then the most specific match, case-insensitive, q=0 excluded), `offered[0]` when Accept is
 * absent or allows none (the negotiate hook has refused such requests already).
 */
export function answerType(request: FastifyRequest, offered: readonly [string, ...string[]]): string {
  if (noPreference(request)) return offered[0];
  const chosen = request.accepts().type([...offered]);
  return typeof chosen === 'string' ? chosen : offered[0];
}

/** Throws HTTP_ACCEPT_UNSUPPORTED (415) when the Accept header allows none of the media types the route answers with. */
export function negotiate(request: FastifyRequest): void {
  const produces = rulesOf(request).produces ?? [JSON_TYPE];
  if (noPreference(request) || produces.includes('*/*')) return;
  if (request.accepts().type([...produces]) === false) {
    throw httpError('HTTP_ACCEPT_UNSUPPORTED', `This resource answers with ${produces.join(' or ')} only.`, { produces });
  }
}
