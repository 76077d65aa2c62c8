// Owns wiring admission into a request's life: charging it in onRequest and releasing it exactly once when it ends.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Admission } from './admission.js';
import { isRefusal } from './admission-budget.js';
import { httpError } from './http-errors.js';
import { principalOf, rulesOf } from './route-rules.js';

/** Where a request's release is kept until its response is sent or its connection ends. */
const RELEASE = Symbol('admission release');

type Releasable = FastifyRequest & { [RELEASE]?: () => void };

/**
 * Bytes a request's body will occupy, known from its headers alone: its Content-Length, or, for a
 * chunked body (no Content-Length), the worst case: the route's body limit. Never more than the
 * route's limit (a larger declared body gets its 413 without being read); 0 without a body.
 */
export function declaredBodyBytes(headers: FastifyRequest['headers'], routeBodyLimit: number): number {
  const declared = headers['content-length'];
  if (declared !== undefined) {
    const bytes = Number(declared);
    return Number.isSafeInteger(bytes) && bytes >= 0 ? Math.min(bytes, routeBodyLimit) : routeBodyLimit;
  }
  return headers['transfer-encoding'] !== undefined ? routeBodyLimit : 0;
}

/**
 * Admits a request of a route that has a kind of work, in the onRequest hook: after auth (the
 * tenant is the URL's `:tenant`, else the token's) and before its body is read. A refused request
 * throws HTTP_OVERLOADED (its API's error shaper answers 503 with Retry-After); when it has a body
 * it also gets `Connection: close`, so Node stops reading the socket once the answer is out
 * instead of pulling the whole unread body through the parser. An admitted request is released
 * exactly once: on its response (`releaseRequest` from onResponse, and the response's `close`),
 * or when its connection ends first (an abort, or a pipelined request queued behind it).
 */
export function admitRequest(admission: Admission, request: FastifyRequest, reply: FastifyReply, serverBodyLimit: number): void {
  const { work } = rulesOf(request);
  if (work === undefined) return;
  const param = (request.params as { tenant?: unknown } | undefined)?.tenant;
  const tenant = typeof param === 'string' ? param : (principalOf(request)?.user.tenant ?? '');
  const bodyBytes = declaredBodyBytes(request.headers, request.routeOptions.bodyLimit ?? serverBodyLimit);
  const outcome = admission.tryAdmit(work, tenant, bodyBytes);
  if (isRefusal(outcome)) {
    if (bodyBytes > 0) void reply.header('connection', 'close');
    const whose = outcome.scope === 'tenant' ? 'this tenant' : 'all tenants';
    const what = outcome.limit === 'requests' ? 'requests' : 'request body bytes';
    throw httpError('HTTP_OVERLOADED', `The server is busy: ${work} ${what} in flight for ${whose} are at their limit; retry after the Retry-After seconds.`, {
      work,
      scope: outcome.scope,
      limit: outcome.limit,
    });
  }
  const socket = request.raw.socket;
  const release = (): void => {
    socket.removeListener('close', release);
    reply.raw.removeListener('close', release);
    (request as Releasable)[RELEASE] = undefined;
    admission.release(outcome);
  };
  // The response's close covers an answer sent and a connection lost while it was owed; the
  // socket's covers pipelined requests whose response never got the socket (no close of their own).
  reply.raw.once('close', release);
  socket.once('close', release);
  (request as Releasable)[RELEASE] = release;
}

/** Releases a request's admission charge now (from onResponse); does nothing for one not admitted or already released. */
export function releaseRequest(request: FastifyRequest): void {
  (request as Releasable)[RELEASE]?.();
}
