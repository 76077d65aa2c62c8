// Owns sending an error: view, family shape, Allow and Retry-After headers, and the one log line of a 500.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { familyOf } from './api-family.js';
import { toErrorView, type ErrorView } from './error-view.js';
import { httpError } from './http-errors.js';
import { RETRY_AFTER_SECONDS } from './http-limits.js';
import { identityFaultBody } from './routes/identity/identity-fault.js';
import { ingestFaultBody } from './routes/ingest/ingest-fault.js';
import { metricsFaultBody } from './routes/metrics/metrics-fault.js';

/** The body an error of this request's API family has. */
export function errorBody(request: FastifyRequest, view: ErrorView): Record<string, unknown> {
  switch (familyOf(request.url)) {
    case 'identity':
      return identityFaultBody(view);
    case 'ingest': {
      const tenant = (request.params as { tenant?: unknown } | undefined)?.tenant;
      return ingestFaultBody(view, request.id, typeof tenant === 'string' ? tenant : '');
    }
    case 'metrics':
      return metricsFaultBody(view, request.id);
  }
}

/** Sends `error` as this request's family expects; a 500 logs one line with the transaction id and the cause. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const view = toErrorView(error);
  if (view.unexpected) {
    // One line, with the cause's stack, for operators; the client sees only the transaction id.
    request.log.error({ txnId: request.id, method: request.method, url: request.url, err: error }, 'request failed unexpectedly');
  }
  const allow = view.details['allow'];
  if (view.status === 405 && typeof allow === 'string') void reply.header('allow', allow);
  if (view.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply.code(view.status).type('application/json; charset=utf-8').send(JSON.stringify(errorBody(request, view)));
}

/** The not-found handler: a 404 in the family's shape. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, httpError('HTTP_ROUTE_NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`));
}
