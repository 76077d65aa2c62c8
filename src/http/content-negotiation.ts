// Owns the Content-Type and Accept rules: a body needs a type the route reads; Accept must allow what it writes.
import type { FastifyRequest } from 'fastify';
import { httpError } from './http-errors.js';
import { JSON_TYPE, rulesOf } from './route-rules.js';

/** The media type of a Content-Type or Accept entry, lowercased, without parameters. */
export function essence(mediaType: string): string {
  const semicolon = mediaType.indexOf(';');
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase();
}

/** True when an Accept header value allows one of `produces` (absent or empty Accept allows JSON). */
export function acceptAllows(accept: string | undefined, produces: readonly string[]): boolean {
  if (accept === undefined || accept.trim() === '' || produces.includes('*/*')) return true;
  for (const entry of accept.split(',')) {
    const type = essence(entry);
    // q=0 means "not acceptable"; anything else counts.
    if (/;\s*q=0(\.0*)?\s*(;|$)/.test(entry)) continue;
    if (type === '*/*') return true;
    for (const produced of produces) {
      if (type === produced) return true;
      if (type.endsWith('/*') && produced.startsWith(type.slice(0, -1))) return true;
    }
  }
  return false;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Throws HTTP_ACCEPT_UNSUPPORTED or HTTP_CONTENT_TYPE_UNSUPPORTED (415) when the request's media types do not fit its route. */
export function negotiate(request: FastifyRequest): void {
  const rules = rulesOf(request);
  const produces = rules.produces ?? [JSON_TYPE];
  if (!acceptAllows(request.headers.accept, produces)) {
    throw httpError('HTTP_ACCEPT_UNSUPPORTED', `This resource answers with ${produces.join(' or ')} only.`, { produces });
  }
  if (rules.bodyTypes === undefined || !hasBody(request)) return;
  const contentType = request.headers['content-type'];
  if (contentType === undefined || !rules.bodyTypes.includes(essence(contentType))) {
    throw httpError('HTTP_CONTENT_TYPE_UNSUPPORTED', `A request body must have Content-Type ${rules.bodyTypes.join(' or ')}.`, {
      accepted: rules.bodyTypes,
    });
  }
}
