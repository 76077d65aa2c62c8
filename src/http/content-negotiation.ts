// Owns the Accept rules of every route: the answer's media type is negotiated by negotiator (RFC 9110 preferences), never by hand.
import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { httpError } from './http-errors.js';
import { JSON_TYPE, rulesOf } from './route-rules.js';

/** The media type of a Content-Type or Accept entry, lowercased, without parameters. */
export function essence(mediaType: string): string {
  const semicolon = mediaType.indexOf(';');
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * The Accept header with each entry's parameters dropped but its q: Strata's types have no
 * parameters that select a representation, so `application/json; charset=utf-8` (the very type
 * it sends) and `text/plain; version=0.0.4` (Prometheus' scrape) must match their essence, while
 * negotiator matches parameters exactly. Undefined when the request states no preference.
 */
function preferences(request: FastifyRequest): string | undefined {
  const accept = request.headers.accept;
  if (accept === undefined || accept.trim() === '') return undefined;
  return accept
    .split(',')
    .map((entry) => {
      const q = /;\s*q\s*=\s*([0-9.]+)/i.exec(entry);
      return q === null ? essence(entry) : `${essence(entry)};q=${q[1]}`;
    })
    .join(', ');
}

/** The types of `offered` the request accepts, most preferred first (ties keep the offered order). */
function acceptable(request: FastifyRequest, offered: readonly string[]): string[] | undefined {
  const accept = preferences(request);
  return accept === undefined ? undefined : new Negotiator({ headers: { accept } }).mediaTypes([...offered]);
}

/**
 * The type of `offered` to answer `request` with: the one the Accept header prefers (q values,
 * then the most specific match, any case, q=0 excluded), `offered[0]` when Accept is absent or
 * empty or allows none (the negotiate hook has refused such requests already).
 */
export function answerType(request: FastifyRequest, offered: readonly [string, ...string[]]): string {
  return acceptable(request, offered)?.[0] ?? offered[0];
}

/** Throws HTTP_ACCEPT_UNSUPPORTED (415) when the Accept header allows none of the media types the route answers with. */
export function negotiate(request: FastifyRequest): void {
  const produces = rulesOf(request).produces ?? [JSON_TYPE];
  if (produces.includes('*/*')) return;
  const allowed = acceptable(request, produces);
  if (allowed !== undefined && allowed.length === 0) {
    throw httpError('HTTP_ACCEPT_UNSUPPORTED', `This resource answers with ${produces.join(' or ')} only.`, { produces });
  }
}
